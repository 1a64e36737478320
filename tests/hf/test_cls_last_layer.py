"""The [CLS]-only last layer gives the full model's logits and gradients, and leaves the weights as they were."""

from __future__ import annotations

import pytest

from factscope.hf.cls_last_layer import restrict_last_layer_to_cls
from tiny_models import build_nli_classifier

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

PREMISES = ["the cat sat on the mat .", "marie curie won the nobel prize in physics in 1903 and in chemistry in 1911 ."]
HYPOTHESES = ["a cat sat .", "curie was born in paris ."]


def _pair(folder, attention: str):
    """The same tiny classifier twice (full and restricted), in eval mode, and a padded batch for it."""
    build_nli_classifier(folder, {0: "entailment", 1: "neutral", 2: "contradiction"}, seed=3)
    kwargs = {"attn_implementation": attention}
    full = transformers.AutoModelForSequenceClassification.from_pretrained(folder, **kwargs).eval()
    restricted = transformers.AutoModelForSequenceClassification.from_pretrained(folder, **kwargs).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    batch = tokenizer(PREMISES, HYPOTHESES, padding=True, return_tensors="pt")
    return full, restricted, batch


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
def test_logits_match_the_full_model_on_a_padded_batch(tmp_path, attention):
    full, restricted, batch = _pair(tmp_path, attention)
    assert restrict_last_layer_to_cls(restricted)
    assert int(batch["attention_mask"].sum()) < batch["attention_mask"].numel()
    with torch.no_grad():
        expected = full(**batch).logits
        got = restricted(**batch).logits
    assert torch.allclose(got, expected, atol=1e-5)
    assert restricted.bert(**batch).last_hidden_state.shape[1] == 1


def test_training_gradients_match_and_state_dict_keys_are_unchanged(tmp_path):
    full, restricted, batch = _pair(tmp_path, "sdpa")
    keys = list(restricted.state_dict())
    restrict_last_layer_to_cls(restricted)
    assert list(restricted.state_dict()) == keys
    target = torch.tensor([0, 2])
    for model in (full, restricted):
        model.train()
        for module in model.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
        model(**batch, labels=target).loss.backward()
    for name, parameter in full.named_parameters():
        other = dict(restricted.named_parameters())[name]
        assert torch.allclose(parameter.grad, other.grad, atol=1e-5), name


def test_other_models_are_left_alone(tmp_path):
    build_nli_classifier(tmp_path, {0: "entailment", 1: "not_entailment"})
    base = transformers.AutoModel.from_pretrained(tmp_path)
    assert not restrict_last_layer_to_cls(base)
