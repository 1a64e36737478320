"""FastDropout is dropout: drop share p, kept elements scaled by 1 / (1 - p), gradients through the same mask."""

from __future__ import annotations

import numpy as np
import pytest

from factscope.training.fast_dropout import FastDropout, use_fast_dropout
from tiny_models import build_nli_classifier

torch = pytest.importorskip("torch")


def test_drop_share_and_scale():
    dropout = FastDropout(0.1, np.random.default_rng(0)).train()
    out = dropout(torch.ones(1000, 1000))
    dropped = float((out == 0).float().mean())
    # 10^6 draws: the share's standard deviation is 0.0003; round(0.1 * 65536) / 65536 = 0.100006
    assert abs(dropped - 0.1) < 0.0015
    assert torch.allclose(out[out != 0], torch.full_like(out[out != 0], 1 / 0.9))


def test_gradient_uses_the_forward_mask():
    dropout = FastDropout(0.5, np.random.default_rng(1)).train()
    x = torch.randn(64, 32, requires_grad=True)
    out = dropout(x)
    out.sum().backward()
    expected = torch.where(out != 0, torch.tensor(2.0), torch.tensor(0.0))
    assert torch.equal(x.grad, expected)


def test_identity_in_eval_mode_or_with_p_zero_and_masks_follow_the_seed():
    x = torch.randn(8, 16)
    assert torch.equal(FastDropout(0.3, np.random.default_rng(0)).eval()(x), x)
    assert torch.equal(FastDropout(0.0, np.random.default_rng(0)).train()(x), x)
    a, b = (FastDropout(0.3, np.random.default_rng(7)).train() for _ in range(2))
    first = a(x)
    assert torch.equal(first, b(x))  # same seed, same mask
    assert not torch.equal(first, a(x))  # the next call draws a new mask
    with pytest.raises(ValueError):
        FastDropout(1.0, np.random.default_rng(0))


def test_use_fast_dropout_replaces_only_active_dropouts(tmp_path):
    from transformers import AutoModelForSequenceClassification

    folder = build_nli_classifier(tmp_path, {0: "entailment", 1: "neutral", 2: "contradiction"})
    model = AutoModelForSequenceClassification.from_pretrained(folder, attention_probs_dropout_prob=0.0)
    keys = list(model.state_dict())
    active = sum(1 for m in model.modules() if type(m) is torch.nn.Dropout and m.p > 0)
    assert active > 0
    assert use_fast_dropout(model, seed=0) == active
    assert not any(type(m) is torch.nn.Dropout and m.p > 0 for m in model.modules())
    assert type(model.bert.encoder.layer[0].attention.self.dropout) is torch.nn.Dropout  # p = 0 stays
    assert list(model.state_dict()) == keys
