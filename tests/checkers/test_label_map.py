"""Label maps read whole words with negations, and refuse a map that cannot be right."""

import pytest

from factscope.checkers.registry import make_checker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label
from factscope.hf.label_map import label_columns, name_words, read_label_name
from tiny_models import build_nli_classifier

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION


def test_words_of_label_names():
    assert name_words("not_entailment") == ["not", "entailment"]
    assert name_words("NotEntailed") == ["not", "entailed"]
    assert name_words("LABEL_0") == ["label"]


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("supported", E), ("SUPPORTS", E), ("entailment", E), ("Entailed", E), ("consistent", E),
        ("unsupported", N), ("not_entailment", N), ("non-entailment", N), ("NOT ENTAILED", N), ("inconsistent", N),
        ("no support", N), ("neutral", N), ("contradiction", C), ("REFUTES", C),
        ("LABEL_1", None), ("not_contradiction", None), ("hallucinated", None),
    ],
)
def test_one_name(name, label):
    assert read_label_name(name) is label


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["unsupported", "supported"], {0: N, 1: E}),
        (["supported", "unsupported"], {0: E, 1: N}),
        (["not_entailment", "entailment"], {0: N, 1: E}),
        (["entailment", "not_entailment"], {0: E, 1: N}),
        (["CONTRADICTION", "ENTAILMENT", "NEUTRAL"], {0: C, 1: E, 2: N}),
    ],
)
def test_maps_from_the_config_in_either_order(names, expected):
    assert label_columns(dict(enumerate(names))) == expected


def test_generic_names_need_an_explicit_order_which_may_be_reversed():
    for names in (["LABEL_0", "LABEL_1"], ["LABEL_0", "LABEL_1", "LABEL_2"]):
        with pytest.raises(ConfigError, match="`label_order`"):
            label_columns(dict(enumerate(names)))
    generic = {0: "LABEL_0", 1: "LABEL_1"}
    assert label_columns(generic, ["unsupported", "supported"]) == {0: N, 1: E}
    assert label_columns(generic, ["supported", "unsupported"]) == {0: E, 1: N}
    with pytest.raises(ConfigError, match="names 3 columns"):
        label_columns(generic, ["entailment", "neutral", "contradiction"])


@pytest.mark.parametrize(
    "names",
    [
        ["supported", "entailment"],  # both columns would be Entailment
        ["neutral", "contradiction"],  # nothing says entailed
        ["entailment"],  # no way to say not entailed
        ["unsupported", "not_entailment"],
    ],
)
def test_maps_that_cannot_be_right_are_refused(names):
    with pytest.raises(ConfigError, match="`label_order`"):
        label_columns(dict(enumerate(names)))


def test_nli_checker_refuses_a_model_whose_labels_are_generic(tmp_path):
    folder = build_nli_classifier(tmp_path / "generic", {0: "LABEL_0", 1: "LABEL_1"})
    with pytest.raises(ConfigError, match="`label_order`"):
        make_checker(f"nli:{folder}")
    checker = make_checker(f"nli:{folder}", label_order=["unsupported", "supported"])
    assert checker.name == f"nli:{folder}"


def test_unsupported_supported_model_is_no_longer_all_entailment(tmp_path):
    # the bias makes column 0 ('unsupported') win: the claim must come out Neutral with P(E) small
    folder = build_nli_classifier(tmp_path / "two-way", {0: "unsupported", 1: "supported"}, bias=[3.0, 0.0])
    from factscope.checkers.base import CheckTask

    verdict = make_checker(f"nli:{folder}").check([CheckTask("the cat sat", ("the cat sat on the mat .",))])[0]
    assert verdict.label is N
    assert verdict.probs is not None and verdict.probs[0] < 0.1


def test_check_command_names_label_order_and_takes_it(tmp_path, monkeypatch, capsys):
    import json

    from cli_entry import run_factscope

    folder = build_nli_classifier(tmp_path / "generic", {0: "LABEL_0", 1: "LABEL_1"})
    records = tmp_path / "answers.jsonl"
    records.write_text(json.dumps({"id": "r1", "response": "The cat sat.", "references": ["the cat sat ."]}) + "\n")
    output = tmp_path / "checked.jsonl"
    refused = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(output), "--checker", f"nli:{folder}")
    assert refused.code == 2 and "--label-order" in refused.text
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(output), "--checker", f"nli:{folder}",
                        "--label-order", "unsupported,supported", "--threshold", "0.0", "--mismatch-checks", "off")
    assert ran.code == 0, ran.text
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    labels = [claim["verdict"]["label"] for row in rows for claim in row.get("claims", [])]
    assert labels and set(labels) == {"Entailment"}  # threshold 0: every segment entails
