"""`factscope eval-checker`: reading labelled pair files, scoring a checker on them, the command end to end."""

import json
from collections.abc import Sequence

import pytest

from factscope.checkers.base import CheckTask
from factscope.core.errors import ConfigError, InputError
from factscope.core.schema import Label, Verdict
from factscope.evaluation.checker_eval import evaluate_checker, tune_threshold
from factscope.evaluation.pairs import LabelledPair, read_pairs, sample_pairs
from factscope.evaluation.splits import part_of

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION


def write_lines(path, rows):
    path.write_text("\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows) + "\n")
    return path


def test_reads_nli_records_with_names_in_any_case_and_numbers(tmp_path):
    path = write_lines(
        tmp_path / "mine.jsonl",
        [
            {"id": "a", "premise": "P1", "hypothesis": "H1", "label": "Entailment"},
            {"id": "b", "premise": "P2", "hypothesis": "H2", "label": 2},
            {
                "id": "c",
                "premise": "P3",
                "hypothesis": "H3",
                "label": "NOT_ENTAILMENT",
                "dataset": "x",
                "group": 7,
            },
        ],
    )
    pairs, skipped = read_pairs(path)
    assert skipped == []
    assert [(p.id, p.label, p.dataset, p.group, p.line) for p in pairs] == [
        ("a", "entailment", "mine", "a", 1),
        ("b", "contradiction", "mine", "b", 2),
        ("c", "not_entailment", "x", "7", 3),
    ]
    assert [p.entailed for p in pairs] == [True, False, False]


def test_reads_llm_aggrefact_rows_as_jsonl_and_as_csv(tmp_path):
    rows = [
        {"dataset": "ExpertQA", "doc": "The sky is blue.", "claim": "The sky is blue.", "label": 1},
        {"dataset": "Lfqa", "doc": "Water boils.", "claim": "Ice is hot.", "label": 0},
    ]
    jsonl = write_lines(tmp_path / "aggrefact.jsonl", rows)
    csv_file = tmp_path / "aggrefact.csv"
    csv_file.write_text(
        ',dataset,doc,claim,label,contamination_identifier\n0,ExpertQA,"The sky\nis blue.",The sky is blue.,1,x\n'
        "1,Lfqa,Water boils.,Ice is hot.,0,y\n"
    )
    for path, first_doc in ((jsonl, "The sky is blue."), (csv_file, "The sky\nis blue.")):
        pairs, skipped = read_pairs(path)
        assert skipped == []
        assert [(p.dataset, p.label, p.hypothesis) for p in pairs] == [
            ("ExpertQA", "entailment", "The sky is blue."),
            ("Lfqa", "not_entailment", "Ice is hot."),
        ]
        assert pairs[0].premise == first_doc
    csv_pairs, _ = read_pairs(csv_file)
    assert [p.line for p in csv_pairs] == [2, 4]


def test_bad_records_are_located_and_skipped(tmp_path):
    path = write_lines(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "premise": "P", "hypothesis": "H", "label": "entailment"},
            {"id": "b", "premise": "P", "hypothesis": "H", "label": "generic"},
            {"id": "c", "premise": "P", "label": "neutral"},
            "{broken",
            {"text": "neither shape"},
            {"doc": "D", "claim": "C", "label": 2},
            {"id": "a", "premise": "P", "hypothesis": "H", "label": "neutral"},
            {"id": "d", "premise": "P", "hypothesis": "H", "label": 1},
        ],
    )
    pairs, skipped = read_pairs(path)
    assert [p.id for p in pairs] == ["a", "d"]
    located = [(error.path, error.line, error.field) for error in skipped]
    assert located == [
        (str(path), 2, "label"),
        (str(path), 3, "hypothesis"),
        (str(path), 4, None),
        (str(path), 5, "premise"),
        (str(path), 6, "label"),
        (str(path), 7, "id"),
    ]
    assert "generic" in str(skipped[0])


def test_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not found"):
        read_pairs(tmp_path / "nothing.jsonl")


def test_part_keeps_the_pairs_whose_group_falls_in_it(tmp_path):
    rows = [
        {"premise": "P", "hypothesis": f"H{i}", "label": "neutral", "group": f"g{i % 40}"} for i in range(200)
    ]
    rows += [{"id": f"i{i}", "premise": "P", "hypothesis": "H", "label": 0} for i in range(40)]
    path = write_lines(tmp_path / "pairs.jsonl", rows)
    every, _ = read_pairs(path)
    by_part = {part: read_pairs(path, part=part)[0] for part in ("train", "validation", "test")}
    assert sum(len(pairs) for pairs in by_part.values()) == len(every) == 240
    for part, pairs in by_part.items():
        assert pairs and all(part_of(pair.group) == part for pair in pairs)
    groups = {part: {pair.group for pair in pairs} for part, pairs in by_part.items()}
    assert not groups["train"] & groups["validation"] and not groups["train"] & groups["test"]
    # Records without a group are split by their id.
    assert {pair.group for pair in every if pair.id.startswith("i")} == {f"i{i}" for i in range(40)}


def test_a_sample_keeps_at_most_n_pairs_per_dataset_in_file_order(tmp_path):
    rows = [
        {"premise": "P", "hypothesis": "H", "label": 0, "dataset": d} for d in ("a", "b") for _ in range(10)
    ]
    pairs, _ = read_pairs(write_lines(tmp_path / "p.jsonl", rows))
    sample = sample_pairs(pairs, 3)
    assert [p.dataset for p in sample] == ["a"] * 3 + ["b"] * 3
    assert [p.line for p in sample] == sorted(p.line for p in sample)
    assert sample == sample_pairs(list(reversed(pairs)), 3)[::-1]


def pair(i, label, dataset="d"):
    return LabelledPair(
        id=f"{dataset}{i}",
        premise=f"premise {i}",
        hypothesis=f"claim {i}",
        label=label,
        dataset=dataset,
        group=str(i),
        line=i,
    )


class ScriptedChecker:
    """Answers each claim with a scripted verdict; counts its calls."""

    name = "scripted"

    def __init__(self, verdicts: dict[str, Verdict]) -> None:
        self.verdicts = verdicts
        self.calls: list[int] = []

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        self.calls.append(len(tasks))
        assert all(len(task.references) == 1 for task in tasks)
        return [self.verdicts[task.claim] for task in tasks]


def probs(entailment):
    rest = (1 - entailment) / 2
    return (entailment, rest, rest)


class ListedChecker:
    """Answers tasks with the next verdicts of a list; records the size of each call."""

    name = "listed"

    def __init__(self, verdicts: list[Verdict]) -> None:
        self.verdicts = list(verdicts)
        self.calls: list[int] = []

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        self.calls.append(len(tasks))
        return [self.verdicts.pop(0) for _ in tasks]


def test_figures_per_dataset_with_labels_and_failures():
    gold = ["entailment", "neutral", "contradiction", "entailment", "neutral", "contradiction"]
    said = [E, E, C, N, N, C]
    three = [pair(i, label, "three") for i, label in enumerate(gold)]
    two = [
        pair(i, label, "two") for i, label in enumerate(["entailment", "not_entailment", "not_entailment"])
    ]
    # In "two" the last check fails: it is counted, not scored.
    both = ListedChecker(
        [Verdict(label=label) for label in said]
        + [Verdict(label=E), Verdict(label=E), Verdict(label=None, failed=True, error="down")]
    )
    report_pairs = three + two
    report = evaluate_checker(both, report_pairs, batch_size=4)
    assert both.calls == [4, 4, 1]
    three_figures, two_figures = report.datasets
    # three: gold E,N,C,E,N,C; binary predictions E,E,not,not,not,not.
    assert three_figures.balanced_accuracy == pytest.approx((1 / 2 + 3 / 4) / 2)
    assert three_figures.confusion.counts == [[1, 1], [1, 3]]
    assert three_figures.confusion_3way.counts == [[1, 1, 0], [1, 1, 0], [0, 0, 2]]
    f1_e, f1_n, f1_c = 1 / 2, 1 / 2, 1.0
    assert three_figures.macro_f1_3way == pytest.approx((f1_e + f1_n + f1_c) / 3)
    # two: the failed pair is left out; gold E, not -> predicted E, E.
    assert (two_figures.n, two_figures.failed) == (2, 1)
    assert two_figures.balanced_accuracy == pytest.approx((1 + 0) / 2)
    assert two_figures.macro_f1_3way is None and two_figures.confusion_3way is None
    assert report.failed == 1 and report.pairs == 9
    assert report.mean_balanced_accuracy == pytest.approx(((1 / 2 + 3 / 4) / 2 + 1 / 2) / 2)
    assert report.mean_macro_f1_3way == pytest.approx((f1_e + f1_n + f1_c) / 3)
    assert report.decided_by == ["label"]
    assert report.pairs_per_second is not None and report.pairs_per_second > 0
    json.dumps(report.model_dump(mode="json"))


def test_a_threshold_reads_the_probability_of_entailment_or_the_score():
    pairs = [pair(i, label) for i, label in enumerate(["entailment", "entailment", "neutral", "neutral"])]
    checker = ScriptedChecker(
        {
            "claim 0": Verdict(label=N, probs=probs(0.45)),
            "claim 1": Verdict(label=E, score=0.9),
            "claim 2": Verdict(label=N, probs=probs(0.3)),
            "claim 3": Verdict(label=E),  # no probability or score: judged by its label
        }
    )
    by_label = evaluate_checker(checker, pairs)
    assert by_label.datasets[0].confusion.counts == [[1, 1], [1, 1]]
    report = evaluate_checker(checker, pairs, threshold=0.4)
    assert report.datasets[0].confusion.counts == [[2, 0], [1, 1]]
    assert report.decided_by == ["label", "probability", "score"]
    assert report.threshold == 0.4


def test_the_threshold_tuned_on_dev_pairs_maximises_balanced_accuracy():
    scores = [0.1, 0.35, 0.4, 0.6, 0.8]
    labels = ["neutral", "neutral", "entailment", "contradiction", "entailment"]
    dev = [pair(i, label) for i, label in enumerate(labels)]
    checker = ScriptedChecker({p.hypothesis: Verdict(label=N, probs=probs(s)) for p, s in zip(dev, scores)})
    # Cut 0.35|0.4: recall on entailment 2/2, on the rest 2/3 -> the best.
    assert tune_threshold(checker, dev) == pytest.approx((0.35 + 0.4) / 2)


def test_tuning_needs_scores():
    dev = [pair(0, "entailment"), pair(1, "neutral")]
    checker = ScriptedChecker({"claim 0": Verdict(label=E), "claim 1": Verdict(label=N)})
    with pytest.raises(ConfigError, match="no probability or score"):
        tune_threshold(checker, dev)


PAIRS = [
    {
        "id": "1",
        "premise": "The Eiffel Tower is in Paris. It opened in 1889.",
        "hypothesis": "The Eiffel Tower is in Paris.",
        "label": "entailment",
    },
    {
        "id": "2",
        "premise": "The Eiffel Tower is in Paris. It opened in 1889.",
        "hypothesis": "The Eiffel Tower opened in 1920.",
        "label": "contradiction",
    },
    {
        "id": "3",
        "premise": "Marie Curie won two Nobel Prizes.",
        "hypothesis": "Marie Curie won two Nobel Prizes.",
        "label": "entailment",
    },
    {
        "id": "4",
        "premise": "Marie Curie won two Nobel Prizes.",
        "hypothesis": "Marie Curie liked to swim in lakes.",
        "label": "neutral",
    },
]


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["similarity", "embedded"])
def test_real_checkers_on_a_handful_of_pairs(tmp_path, spec):
    from factscope.checkers.registry import make_checker

    pairs, _ = read_pairs(write_lines(tmp_path / "tiny.jsonl", PAIRS))
    checker = make_checker(spec)
    report = evaluate_checker(checker, pairs)
    (figures,) = report.datasets
    assert figures.n == 4 and figures.failed == 0
    assert sum(map(sum, figures.confusion.counts)) == 4
    assert figures.confusion_3way is not None
    # Copies of a premise sentence are entailed for both checkers.
    assert figures.confusion.counts[0][0] == 2
    tuned = evaluate_checker(checker, pairs, threshold=tune_threshold(checker, pairs))
    assert tuned.decided_by == (["score"] if spec == "similarity" else ["probability"])
    assert tuned.datasets[0].balanced_accuracy == 1.0
