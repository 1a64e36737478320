"""Training a checker: data loading, split, metrics, shallow heads, cues, and end-to-end repc / finetune runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from command_line import command_line
from factscope.checkers.cues import CueStacker, best_evidence_sentence, cue_features
from factscope.checkers.embedded import CrossEncoderModel, EmbeddedScorer, apply_log_bias, to_three_way
from factscope.checkers.int8_weights import INT8_WEIGHTS
from factscope.checkers.repc import ShallowHead, parse_layers
from factscope.cli import train_checker
from factscope.core.errors import InputError
from factscope.core.schema import LABELS
from factscope.evaluation.splits import part_of
from factscope.training.evaluation import (
    cross_validate_log_bias,
    evaluate,
    evaluate_by_source,
    mix_objective,
    tune_log_bias,
)
from factscope.training.finetune import (
    EAGER_ATTENTION_MAX_TOKENS,
    FinetuneConfig,
    _length_bucketed_batches,
    candidate_epochs,
    choose_attention,
    epoch_schedule,
    finetune_cross_encoder,
    mixed_nll,
    resolve_precision,
)
from factscope.training.focus import focus_window
from factscope.training.long_context import context_copies
from factscope.training.nli_data import (
    NOT_ENTAILMENT,
    NLIExample,
    load_nli_jsonl,
    load_training_mix,
    parse_label,
    split_by_group,
)
from factscope.training.repc import fit_head
from nli_pairs import TEMPLATES, write_pairs
from tiny_models import build_nli_classifier


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory) -> Path:
    """A 2-layer BERT (hidden 32) over a small vocabulary, standing in for a hub encoder."""
    folder = tmp_path_factory.mktemp("tiny_encoder")
    return build_nli_classifier(folder, {0: "entailment", 1: "neutral", 2: "contradiction"})


def run_cli(*args: object):
    arguments = ["train-checker", *[str(a) for a in args]]
    return CliRunner().invoke(command_line(train_checker), arguments, catch_exceptions=False)


# --- data -------------------------------------------------------------------------------------------------


def test_bad_records_are_skipped_and_located(tmp_path):
    path = write_pairs(
        tmp_path / "pairs.jsonl",
        n=9,
        extra_lines=(
            "{broken",
            json.dumps({"premise": "a", "label": "neutral"}),
            json.dumps({"premise": "a", "hypothesis": "b", "label": "maybe"}),
            json.dumps({"premise": "", "hypothesis": "b", "label": "neutral"}),
        ),
    )
    dataset = load_nli_jsonl(path)
    assert len(dataset.examples) == 9
    assert dataset.classes == ("entailment", "neutral", "contradiction")
    located = [(e.line, e.field) for e in dataset.skipped]
    assert located == [(10, None), (11, "hypothesis"), (12, "label"), (13, "premise")]
    assert all(str(path) in str(e) for e in dataset.skipped)


def test_two_way_labels_and_mixing(tmp_path):
    two = tmp_path / "two.jsonl"
    two.write_text(
        "\n".join(
            json.dumps({"premise": "p", "hypothesis": f"h{i}", "label": label})
            for i, label in enumerate(["entailment", "not_entailment", "Non-Entailment"])
        ),
        encoding="utf-8",
    )
    dataset = load_nli_jsonl(two)
    assert dataset.classes == ("entailment", "not_entailment")
    assert dataset.labels.tolist() == [0, 1, 1]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        json.dumps({"premise": "p", "hypothesis": "h", "label": "neutral"})
        + "\n"
        + json.dumps({"premise": "p", "hypothesis": "h", "label": "not_entailment"}),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="mixes 2-way"):
        load_nli_jsonl(mixed)


def test_parse_label_numbers_follow_factscope_order():
    assert [parse_label(i) for i in (0, 1, 2)] == ["entailment", "neutral", "contradiction"]
    assert parse_label(" Contradiction. ") == "contradiction"
    with pytest.raises(ValueError):
        parse_label(True)


def test_split_keeps_each_group_in_one_part_and_matches_eval_checker_parts(tmp_path):
    path = tmp_path / "claims.jsonl"
    rows = [
        {"premise": f"Evidence {i}.", "hypothesis": f"Claim {i // 3}.", "label": "entailment" if i % 2 else "neutral",
         "group": f"claim-{i // 3}"}
        for i in range(90)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    split = split_by_group(load_nli_jsonl(path).examples)
    parts = {name: {e.group for e in part} for name, part in
             (("train", split.train), ("validation", split.validation), ("test", split.test))}
    assert sum(len(part) for part in (split.train, split.validation, split.test)) == 90
    assert not (parts["train"] & parts["validation"] or parts["train"] & parts["test"] or parts["validation"] & parts["test"])
    assert all(part_of(group) == name for name, groups in parts.items() for group in groups)


def test_a_two_way_set_joins_a_three_way_mix_as_not_entailment(tmp_path):
    three = write_pairs(tmp_path / "three.jsonl", n=9)
    two = tmp_path / "two.jsonl"
    two.write_text(
        json.dumps({"premise": "A.", "hypothesis": "B.", "label": "not_entailment"}) + "\n"
        + json.dumps({"premise": "A.", "hypothesis": "A.", "label": "entailment"}) + "\n"
        + json.dumps({"premise": "A.", "hypothesis": "C.", "label": "generic"}) + "\n",
        encoding="utf-8",
    )
    datasets, classes = load_training_mix([three, two])
    assert classes == ("entailment", "neutral", "contradiction")
    assert [e.label for e in datasets[1].examples] == [NOT_ENTAILMENT, 0]
    assert [e.source for e in datasets[1].examples] == ["two", "two"]
    assert datasets[1].skipped[0].line == 3 and datasets[1].skipped[0].field == "label"


def test_not_entailment_is_trained_on_neutral_plus_contradiction():
    import torch

    logits = torch.tensor([[2.0, 1.0, 0.0], [0.5, 0.5, 3.0]])
    log_p = torch.log_softmax(logits, dim=-1)
    # target 3 on row 0: -log(P(N) + P(C)); target 2 on row 1: the usual cross-entropy
    expected = -(torch.log(log_p[0, 1].exp() + log_p[0, 2].exp()) + log_p[1, 2]) / 2
    assert float(mixed_nll(logits, torch.tensor([NOT_ENTAILMENT, 2]))) == pytest.approx(float(expected))
    assert float(mixed_nll(logits, torch.tensor([0, 2]))) == pytest.approx(
        float(torch.nn.functional.cross_entropy(logits, torch.tensor([0, 2])))
    )


def test_figures_per_set_hand_computed():
    labels = np.array([0, 0, 1, 2, 0, NOT_ENTAILMENT, NOT_ENTAILMENT])
    sources = np.array(["a", "a", "a", "a", "b", "b", "b"])
    probs = np.array([[.8, .1, .1], [.2, .7, .1], [.1, .8, .1], [.1, .2, .7], [.6, .3, .1], [.7, .2, .1], [.1, .1, .8]])
    figures = evaluate_by_source(labels, probs, sources)
    # set a: E recall 1/2, not-E recall 2/2 -> 0.75; 3-way F1: E 2/3, N 2*(1/2*1)/(1/2+1)=2/3, C 1 -> 7/9
    assert figures["a"]["balanced_accuracy"] == pytest.approx((1 / 2 + 1) / 2)
    assert figures["a"]["macro_f1"] == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    # set b (2-way): E recall 1/1, not-E recall 1/2 -> 0.75, no 3-way figure
    assert figures["b"] == {"n": 3, "balanced_accuracy": pytest.approx(0.75)}
    assert mix_objective(labels, probs, sources) == pytest.approx(((2 / 3 + 2 / 3 + 1) / 3 + 0.75) / 2)


def test_focus_window_keeps_the_sentences_about_the_hypothesis():
    filler = "Rain fell on the plains that year. " * 40
    premise = filler + "The bridge opened in Sydney in 1932. It cost ten million pounds. " + filler
    window = focus_window(premise, "The Sydney bridge opened in 1932.", 30)
    assert "opened in Sydney in 1932" in window and len(window.split()) <= 30
    assert focus_window("Short premise.", "Anything.", 30) == "Short premise."


# --- metrics and biases --------------------------------------------------------------------------------------


def test_evaluate_matches_hand_computation():
    gold = np.array([0, 0, 1, 1, 2, 2])
    # predictions 0, 1, 1, 1, 2, 0
    probs = np.eye(3)[[0, 1, 1, 1, 2, 0]]
    report = evaluate(gold, probs, ("entailment", "neutral", "contradiction"))
    # accuracy 4/6; E: P 1/2 R 1/2 F1 0.5; N: P 2/3 R 1 F1 0.8; C: P 1 R 1/2 F1 2/3
    assert report.accuracy == pytest.approx(4 / 6)
    assert report.per_class_f1 == pytest.approx({"entailment": 0.5, "neutral": 0.8, "contradiction": 2 / 3})
    assert report.macro_f1 == pytest.approx((0.5 + 0.8 + 2 / 3) / 3)


def test_log_bias_shift_and_tuning():
    probs = np.array([[0.5, 0.3, 0.2]])
    shifted = apply_log_bias(probs, np.array([0.0, np.log(2.0), 0.0]))
    # 0.5 : 0.6 : 0.2 renormalised over 1.3
    assert shifted[0] == pytest.approx([0.5 / 1.3, 0.6 / 1.3, 0.2 / 1.3])
    # a model that under-predicts neutral: every neutral pair has N at 0.4 against E at 0.45
    gold = np.array([0, 0, 1, 1, 2, 2])
    raw = np.array(
        [[0.8, 0.1, 0.1], [0.7, 0.2, 0.1], [0.45, 0.4, 0.15], [0.45, 0.4, 0.15], [0.1, 0.1, 0.8], [0.1, 0.2, 0.7]]
    )
    bias = tune_log_bias(gold, raw)
    assert bias[0] == 0.0 and bias[1] > 0
    assert evaluate(gold, apply_log_bias(raw, bias), ("e", "n", "c")).macro_f1 == pytest.approx(1.0)


def test_cross_validated_bias_check_on_a_systematic_shift():
    # 10 pairs a class; every neutral pair has N at 0.4 under E at 0.45, so without biases all 20 E and N pairs
    # are called E: F1 E = 2 * 0.5 * 1 / 1.5 = 2/3, F1 N = 0, F1 C = 1, macro 5/9. Biases tuned on any four
    # folds lift N above E and every held fold is then right.
    gold = np.repeat([0, 1, 2], 10)
    probs = np.array([[0.8, 0.1, 0.1]] * 10 + [[0.45, 0.4, 0.15]] * 10 + [[0.1, 0.1, 0.8]] * 10)
    check = cross_validate_log_bias(gold, probs, folds=5, seed=1)
    assert check.folds == 5
    assert check.score_without == pytest.approx(5 / 9)
    assert check.score_with == pytest.approx(1.0)
    assert check.helps


def test_cross_validated_bias_check_rejects_biases_fitted_to_noise():
    # calibrated probabilities: the label is drawn from them, so any bias tuned on part of the data fits noise
    rng = np.random.default_rng(0)
    probs = rng.dirichlet([1.0, 1.0, 1.0], size=300)
    gold = np.array([rng.choice(3, p=row) for row in probs])
    tuned = tune_log_bias(gold, probs)
    assert tuned.any()  # tuning on all of it finds a "gain" ...
    check = cross_validate_log_bias(gold, probs)
    assert not check.helps  # ... that does not carry over to the folds it was not tuned on
    few = cross_validate_log_bias(np.array([0, 0, 1, 1, 2, 2]), np.full((6, 3), 1 / 3), folds=5)
    assert few.folds == 2  # never more folds than the rarest class has pairs


def test_two_way_probabilities_fill_three_columns():
    three = to_three_way(np.array([[0.7, 0.3]]), ("entailment", "not_entailment"))
    assert three.tolist() == [[0.7, 0.3, 0.0]]


# --- shallow heads ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["logreg", "svm", "mlp", "knn"])
def test_shallow_heads_fit_save_and_load(kind, tmp_path):
    rng = np.random.default_rng(0)
    centres = np.array([[3.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]])
    y = np.repeat([0, 1, 2], 40)
    x = centres[y] + rng.normal(scale=0.5, size=(120, 4))
    vy = np.repeat([0, 1, 2], 10)
    vx = centres[vy] + rng.normal(scale=0.5, size=(30, 4))
    head = fit_head(kind, x, y, vx, vy, n_classes=3, knn_k=5)
    probs = head.probs(vx)
    assert probs.shape == (30, 3) and np.allclose(probs.sum(axis=1), 1.0)
    assert (probs.argmax(axis=1) == vy).mean() > 0.9
    head.save(tmp_path / "head.npz")
    assert np.allclose(ShallowHead.load(tmp_path / "head.npz").probs(vx), probs, atol=1e-3)


def test_two_class_logreg_head_matches_sigmoid():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 30)
    x = np.c_[y * 2.0 + rng.normal(scale=0.7, size=60), rng.normal(size=60)]
    head = fit_head("logreg", x, y, x, y, n_classes=2)
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaled = StandardScaler().fit(x).transform(x)
    reference = LogisticRegression(C=0.5, max_iter=2000, random_state=13).fit(scaled, y).predict_proba(scaled)
    assert np.allclose(head.probs(x), reference, atol=1e-5)


def test_parse_layers():
    assert parse_layers("all", 7) == [1, 2, 3, 4, 5, 6]
    assert parse_layers("3,-1", 7) == [3, 6]
    with pytest.raises(ValueError):
        parse_layers("9", 7)


# --- cues ------------------------------------------------------------------------------------------------------


def test_cue_features_on_hand_examples():
    premise = "The bridge opened in 1932. It carries 6 lanes and is not tolled. Paris lies far away."
    assert best_evidence_sentence(premise, "The bridge opened in 1935.") == "The bridge opened in 1932."
    number, date, negation, name, overlap = cue_features(premise, "The bridge opened in 1935.")
    # 1935 vs 1932: a number and a date the sentence lacks; no negation either side; no new name;
    # content words {bridge, opened, 1935}: {bridge, opened} found -> 2/3
    assert (number, date, negation, name) == (1.0, 1.0, 0.0, 0.0)
    assert overlap == pytest.approx(2 / 3)
    # "not tolled" against "is tolled": negation differs; "Berlin" appears nowhere in the premise
    assert cue_features(premise, "It carries 6 lanes and is tolled.")[2] == 1.0
    assert cue_features(premise, "It carries 6 lanes near Berlin.")[3] == 1.0
    assert cue_features(premise, "It carries 6 lanes near Paris.")[3] == 0.0


def test_cue_stacker_learns_from_a_cue_and_round_trips(tmp_path):
    # the model is unsure (uniform) and only the negation cue separates E from C
    premises = ["the door is open."] * 40
    hypotheses = ["the door is open."] * 20 + ["the door is not open."] * 20
    labels = np.array([0] * 20 + [2] * 20)
    labels[0] = 1  # every class must be present
    probs = np.full((40, 3), 1 / 3)
    stacker = CueStacker.fit(probs, premises, hypotheses, labels)
    out = stacker.apply(probs, premises, hypotheses)
    assert np.allclose(out.sum(axis=1), 1.0)
    assert out[25].argmax() == 2 and out[5].argmax() == 0
    stacker.save(tmp_path / "cues.npz")
    assert np.allclose(CueStacker.load(tmp_path / "cues.npz").apply(probs, premises, hypotheses), out)


# --- end to end ------------------------------------------------------------------------------------------------


def check_loadable(out: Path) -> EmbeddedScorer:
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["classes"] == ["entailment", "neutral", "contradiction"]
    assert manifest["label_order"] == [label.value for label in LABELS]
    assert len(manifest["training"]["data"][0]["sha256"]) == 64
    assert set(manifest["held_out"]) >= {"accuracy", "macro_f1", "per_class_f1"}
    scorer = EmbeddedScorer.from_dir(out)
    probs = scorer.score(["the cat sat on the mat ."] * 2, ["the cat sat .", "the cat is not on the mat ."])
    assert probs.shape == (2, 3) and np.allclose(probs.sum(axis=1), 1.0)
    assert scorer.count_tokens("the cat sat") == 3
    return scorer


def test_repc_end_to_end_on_a_tiny_encoder(tmp_path, tiny_encoder):
    data = write_pairs(tmp_path / "pairs.jsonl", n=60, extra_lines=("{broken",))
    out = tmp_path / "repc"
    result = run_cli(
        "--data", data, "--out", out, "--method", "repc", "--encoder", tiny_encoder, "--layers", "1,2",
        "--classifier", "logreg", "--cues", "on",
    )
    assert result.exit_code == 0, result.output
    assert "held-out macro-F1" in result.output and "skipped" in result.output
    scorer = check_loadable(out)
    manifest = scorer.manifest
    assert manifest["layers"] == [1, 2] and manifest["classifier"] == "logreg"
    # --cues on keeps the stacker whatever the held-out figures say, and the loaded scorer applies it
    assert manifest["cue_test"]["kept"] and (out / manifest["cues"]["file"]).exists()
    premises, hypotheses = ["The cat sat on the mat in 1990."], ["The cat sat on the mat in 1991."]
    expected = scorer._cues.apply(scorer.model_probs(premises, hypotheses), premises, hypotheses)
    assert np.allclose(scorer.class_probs(premises, hypotheses), expected)
    # the templates repeat, so a fitted head separates them: the held-out pairs are seen templates
    assert manifest["held_out"]["macro_f1"] > 0.9


def test_finetune_end_to_end_two_tiny_epochs(tmp_path, tiny_encoder):
    data = write_pairs(tmp_path / "pairs.jsonl", n=60)
    out = tmp_path / "ft"
    result = run_cli(
        "--data", data, "--out", out, "--method", "finetune", "--encoder", tiny_encoder, "--epochs", "2",
        "--cues", "off", "--long-context", "0.5", "--context-words", "30", "--context-epochs", "1",
        "--precision", "fp32",
    )
    assert result.exit_code == 0, result.output
    scorer = check_loadable(out)
    finetune = scorer.manifest["finetune"]
    [member] = finetune["members"]
    # one context epoch: the last epoch is the only candidate, so it is kept without a validation pass
    assert member["best_epoch"] == 2 and member["seed"] == 13
    assert [h["epoch"] for h in member["history"]] == [1, 2]
    assert all("validation" not in h and h["train_loss"] > 0 for h in member["history"])
    assert scorer.manifest["members"] == ["encoder"] and finetune["weights"] == "fp16"
    assert scorer.manifest["training"]["long_context"] == {
        "share": 0.5, "words": 30, "epochs": 1, "unrelated_share": 0.25
    }
    unrelated = scorer.manifest["held_out_unrelated_labels"]
    assert set(unrelated) == {"entailment", "neutral", "contradiction"}
    assert sum(unrelated.values()) == pytest.approx(1.0)
    assert "unrelated segments: Neutral share" in result.output
    assert finetune["max_length"] == 320 and finetune["precision"] == "fp32"
    assert 0.0 <= scorer.manifest["held_out_in_context"]["macro_f1"] <= 1.0
    # --class-biases auto: tuned biases ship only when the 5-fold check within validation says they help
    assert scorer.manifest["thresholds"]["class_biases"] == "auto"
    check = scorer.manifest.get("class_bias_check")
    if check is not None:
        assert check["kept"] == (check["score_with"] > check["score_without"])
        assert check["kept"] == any(scorer.manifest["log_bias"])
    assert (out / "encoder" / "model.safetensors").exists()
    assert not (out.parent / "ft.partial").exists()
    assert not list(out.glob("checkpoint_*.pt")) and not (out / "run_settings.json").exists()
    assert scorer.manifest["inference"] == {"window_sentences": 2}


def test_finetune_ensemble_of_two_int8_members(tmp_path, tiny_encoder):
    data = write_pairs(tmp_path / "pairs.jsonl", n=60)
    out = tmp_path / "ens"
    result = run_cli(
        "--data", data, "--out", out, "--encoder", tiny_encoder, "--epochs", "1", "--cues", "off",
        "--long-context", "0", "--unrelated-context", "0", "--precision", "fp32", "--members", "2",
        "--weights", "int8", "--seed", "5", "--class-biases", "off",
    )
    assert result.exit_code == 0, result.output
    assert "members (training seeds)" in result.output and "2 (5, 6)" in result.output
    scorer = check_loadable(out)
    assert scorer.manifest["members"] == ["encoder", "encoder_2"]
    assert [m["seed"] for m in scorer.manifest["finetune"]["members"]] == [5, 6]
    assert not any(scorer.manifest["log_bias"]) and "class_bias_check" not in scorer.manifest
    for folder in ("encoder", "encoder_2"):
        assert (out / folder / INT8_WEIGHTS).exists() and not (out / folder / "model.safetensors").exists()
    members = [CrossEncoderModel.from_pretrained(out / folder) for folder in ("encoder", "encoder_2")]
    premises, hypotheses = ["the cat sat on the mat ."] * 2, ["the cat sat .", "the cat is not on the mat ."]
    first, second = (member.probs(premises, hypotheses) for member in members)
    assert not np.allclose(first, second)  # different seeds, different members
    assert np.allclose(scorer.model_probs(premises, hypotheses), (first + second) / 2)


@pytest.mark.parametrize("train_words", [False, True])
def test_word_embeddings_frozen_unless_asked_and_attention_dropout_set(tmp_path, tiny_encoder, train_words):
    from transformers import AutoModelForSequenceClassification

    examples = load_nli_jsonl(write_pairs(tmp_path / "pairs.jsonl", n=18)).examples
    classes = ("entailment", "neutral", "contradiction")
    config = FinetuneConfig(epochs=1, batch_size=6, precision="fp32", train_word_embeddings=train_words)
    result = finetune_cross_encoder(str(tiny_encoder), examples, examples[:6], classes, config)
    before = AutoModelForSequenceClassification.from_pretrained(str(tiny_encoder)).get_input_embeddings().weight
    after = result.model.model.get_input_embeddings().weight
    assert torch_equal(before, after) is not train_words
    assert result.model.model.config.attention_probs_dropout_prob == 0.0
    assert result.model.model.bert.encoder.layer[0].attention.self.dropout.p == 0.0


def torch_equal(a, b) -> bool:
    import torch

    return bool(torch.equal(a.detach(), b.detach()))


def test_members_and_weights_are_checked(tmp_path):
    from factscope.core.errors import ConfigError

    data = write_pairs(tmp_path / "pairs.jsonl", n=9)
    with pytest.raises(ConfigError, match="`members`"):
        run_cli("--data", data, "--out", tmp_path / "x", "--method", "repc", "--members", "2")
    refused = run_cli("--data", data, "--out", tmp_path / "x", "--weights", "int4")
    assert refused.exit_code == 2 and "Invalid value for '--weights'" in refused.output


def test_epoch_schedule_adds_the_copies_to_the_last_epochs():
    plain = [NLIExample("p", "h", 0, i) for i in range(4)]
    copies = [NLIExample("long p", "h", 0, i) for i in range(2)]
    schedule = epoch_schedule(plain, copies, epochs=3, context_epochs=1)
    assert [len(data) for data in schedule] == [4, 4, 6]
    assert schedule[2][4:] == copies
    assert [len(data) for data in epoch_schedule(plain, copies, 2, 5)] == [6, 6]
    assert [len(data) for data in epoch_schedule(plain, copies, 2, 0)] == [4, 4]
    assert [len(data) for data in epoch_schedule(plain, [], 2, 1)] == [4, 4]


def test_candidate_epochs_are_those_trained_on_the_last_mix():
    assert candidate_epochs(3, 1, with_copies=True) == [3]
    assert candidate_epochs(4, 2, with_copies=True) == [3, 4]
    assert candidate_epochs(2, 5, with_copies=True) == [1, 2]
    assert candidate_epochs(3, 1, with_copies=False) == [1, 2, 3]
    assert candidate_epochs(3, 0, with_copies=True) == [1, 2, 3]


def test_several_candidates_are_validated_and_the_best_is_kept(tmp_path, tiny_encoder):
    examples = load_nli_jsonl(write_pairs(tmp_path / "pairs.jsonl", n=24)).examples
    classes = ("entailment", "neutral", "contradiction")
    copies = context_copies(examples, 0.5, 20, seed=1)
    config = FinetuneConfig(epochs=3, context_epochs=2, batch_size=6, precision="fp32")
    result = finetune_cross_encoder(
        str(tiny_encoder), examples, examples[:9], classes, config, context_copies=copies
    )
    assert "validation" not in result.history[0]
    validated = {h["epoch"]: h["validation"]["macro_f1"] for h in result.history[1:]}
    assert set(validated) == {2, 3} and result.best_epoch in validated
    assert validated[result.best_epoch] == max(validated.values())
    labels = np.array([e.label for e in examples[:9]])
    probs = result.model.probs([e.premise for e in examples[:9]], [e.hypothesis for e in examples[:9]])
    assert evaluate(labels, probs, classes).macro_f1 == pytest.approx(validated[result.best_epoch])


def test_length_buckets_cover_every_pair_once_with_similar_lengths():
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 300, size=1000)
    batches = _length_bucketed_batches(lengths, 8, np.random.default_rng(1))
    assert sorted(i for batch in batches for i in batch) == list(range(1000))
    padded = sum(len(batch) * lengths[batch].max() for batch in batches)
    assert padded < 1.1 * lengths.sum()  # sorted within chunks of 400 pairs: little padding


def test_precision_choice():
    assert resolve_precision("fp32") == "fp32" and resolve_precision("bf16") == "bf16"
    assert resolve_precision("auto") in ("fp32", "bf16")
    with pytest.raises(ValueError, match="precision"):
        resolve_precision("fp8")


def test_bf16_batches_choose_the_attention_by_length_and_compute_the_same_logits(tiny_encoder):
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(str(tiny_encoder)).eval()
    assert model.config._attn_implementation == "sdpa"
    ids = torch.tensor([[2, 7, 8, 9, 3, 10, 3], [2, 7, 8, 3, 10, 3, 0]])
    batch = {"input_ids": ids, "attention_mask": (ids != 0).long()}
    with torch.no_grad():
        fused = model(**batch).logits
        choose_attention(model, EAGER_ATTENTION_MAX_TOKENS, bf16=True)
        assert model.config._attn_implementation == "eager"
        assert torch.allclose(model(**batch).logits, fused, atol=1e-6)
    choose_attention(model, EAGER_ATTENTION_MAX_TOKENS + 1, bf16=True)
    assert model.config._attn_implementation == "sdpa"
    choose_attention(model, 16, bf16=False)
    assert model.config._attn_implementation == "sdpa"


def test_unknown_method_is_a_usage_error_listing_the_methods(tmp_path):
    from typer.testing import CliRunner

    from factscope.cli import train_checker

    app = command_line(train_checker)
    data = write_pairs(tmp_path / "pairs.jsonl", n=9)
    result = CliRunner().invoke(app, ["train-checker", "--data", str(data), "--out", str(tmp_path / "x"), "--method", "lora"])
    assert result.exit_code == 2 and "'finetune'" in result.output and "'repc'" in result.output


def test_finetune_on_a_mix_reports_every_set_and_refuses_cues_on(tmp_path, tiny_encoder):
    three = write_pairs(tmp_path / "nli.jsonl", n=60)
    two = tmp_path / "claims.jsonl"
    rows = [
        {"premise": premise, "hypothesis": hypothesis, "group": f"g{i}",
         "label": "entailment" if label == "entailment" else "not_entailment"}
        for i, (premise, hypothesis, label) in enumerate(TEMPLATES * 7)
    ]
    two.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "mix"
    common = ("--data", three, "--data", two, "--out", out, "--encoder", tiny_encoder, "--epochs", "1",
              "--long-context", "0", "--unrelated-context", "0", "--precision", "fp32")
    from factscope.core.errors import ConfigError

    with pytest.raises(ConfigError, match="`cues='on'`"):
        run_cli(*common, "--cues", "on")
    result = run_cli(*common)
    assert result.exit_code == 0, result.output
    manifest = check_loadable(out).manifest
    assert manifest["training"]["objective"] == "mix"
    assert [d["path"] for d in manifest["training"]["data"]] == [str(three), str(two)]
    assert set(manifest["held_out_by_set"]) == {"nli", "claims"}
    assert "macro_f1" in manifest["held_out_by_set"]["nli"] and "macro_f1" not in manifest["held_out_by_set"]["claims"]
    assert "held-out claims: balanced accuracy" in result.output


def test_the_manifest_names_the_narrowest_window_only_when_given(tmp_path):
    from factscope.core.errors import ConfigError
    from factscope.training.options import TrainOptions
    from factscope.training.train import inference_layout, train_checker

    options = TrainOptions(data=[tmp_path / "pairs.jsonl"], out=tmp_path / "out")
    assert inference_layout(options) == {"window_sentences": 2}
    mixed = TrainOptions(data=options.data, out=options.out, window_sentences=2, min_window_sentences=1)
    assert inference_layout(mixed) == {"window_sentences": 2, "min_window_sentences": 1}
    too_narrow = TrainOptions(data=options.data, out=options.out, window_sentences=0, min_window_sentences=1)
    with pytest.raises(ConfigError, match="`min_window_sentences`"):
        train_checker(too_narrow, lambda description, total: None)
