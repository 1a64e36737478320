"""`factscope eval-checker`: reading labelled pair files, scoring a checker on them, the command end to end."""

import json
from collections.abc import Sequence

import pytest

from cli_entry import run_factscope
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
        ',dataset,doc,claim,label,contamination_identifier,id\n0,ExpertQA,"The sky\nis blue.",The sky is blue.,1,x,\n'
        "1,Lfqa,Water boils.,Ice is hot.,0,y,r2\n"
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
    assert [p.id for p in csv_pairs] == ["aggrefact:2", "r2"]  # an empty cell is no value


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
    assert both.calls == [4, 2, 3]  # batches never mix datasets
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
        "hypothesis": "The Eiffel Tower opened in 1889.",
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


@pytest.fixture
def scripted(monkeypatch):
    """Makes `eval-checker` use a ScriptedChecker, set by the test through the returned dict."""
    made = {}
    monkeypatch.setattr("factscope.evaluation.checker_comparison.make_checker", lambda spec, **options: made["checker"])
    return made


def test_the_command_prints_a_table_and_writes_a_json_report(tmp_path, monkeypatch, capsys, scripted):
    path = write_lines(
        tmp_path / "mine.jsonl",
        [
            {"id": "a", "premise": "P", "hypothesis": "yes 1", "label": "entailment"},
            {"id": "b", "premise": "P", "hypothesis": "no 1", "label": "neutral"},
            {"id": "c", "premise": "P", "hypothesis": "no 2", "label": "contradiction"},
            {"id": "d", "premise": "P", "hypothesis": "H", "label": "generic"},
        ],
    )
    aggrefact = write_lines(
        tmp_path / "aggrefact.jsonl",
        [
            {"dataset": "Lfqa", "doc": "D", "claim": f"{word} {i}", "label": i % 2}
            for i, word in enumerate(["no", "yes", "yes", "no"])
        ],
    )
    said = {"yes 1": E, "no 1": N, "no 2": E, "no 0": N, "yes 2": E, "no 3": E}
    scripted["checker"] = ScriptedChecker({claim: Verdict(label=label) for claim, label in said.items()})
    out = tmp_path / "report.json"
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path), str(aggrefact), "-o", str(out))
    assert ran.code == 0, ran.text
    assert "mine.jsonl:4" in ran.text and "generic" in ran.text
    assert "mine" in ran.text and "Lfqa" in ran.text and "mean" in ran.text
    report = json.loads(out.read_text())
    mine, lfqa = report["datasets"]
    assert (mine["dataset"], mine["n"], lfqa["dataset"], lfqa["n"]) == ("mine", 3, "Lfqa", 4)
    # mine: gold E, N, C said E, N, E -> recall 1 on entailment, 1/2 on the rest.
    assert mine["balanced_accuracy"] == pytest.approx((1 + 1 / 2) / 2)
    assert mine["confusion_3way"]["counts"] == [[1, 0, 0], [0, 1, 0], [1, 0, 0]]
    # Lfqa: gold not, E, not, E said not, E, E, E -> recall 2/2 and 1/2; no 3-way figures.
    assert lfqa["balanced_accuracy"] == pytest.approx((1 + 1 / 2) / 2)
    assert lfqa["macro_f1_3way"] is None
    assert report["skipped"] == 1 and report["inputs"] == [str(path), str(aggrefact)]
    assert report["threshold"] is None and report["load_seconds"] is not None


def test_the_command_tunes_the_threshold_on_a_dev_file(tmp_path, monkeypatch, capsys, scripted):
    dev = write_lines(
        tmp_path / "dev.jsonl",
        [{"premise": "P", "hypothesis": f"dev {i}", "label": label} for i, label in enumerate([0, 1, 0, 2])],
    )
    test = write_lines(
        tmp_path / "test.jsonl",
        [{"premise": "P", "hypothesis": f"test {i}", "label": label} for i, label in enumerate([0, 1])],
    )
    chances = {"dev 0": 0.5, "dev 1": 0.2, "dev 2": 0.7, "dev 3": 0.45, "test 0": 0.48, "test 1": 0.46}
    scripted["checker"] = ScriptedChecker(
        {claim: Verdict(label=N, probs=probs(p)) for claim, p in chances.items()}
    )
    out = tmp_path / "report.json"
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(test), "--tune-on", str(dev), "-o", str(out))
    assert ran.code == 0, ran.text
    report = json.loads(out.read_text())
    # On dev the best cut lies between 0.45 (contradiction) and 0.5 (entailment).
    assert report["threshold"] == pytest.approx((0.45 + 0.5) / 2)
    assert report["tuned_on"] == [str(dev)] and report["decided_by"] == ["probability"]
    assert report["datasets"][0]["confusion"]["counts"] == [[1, 0], [0, 1]]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--threshold", "0.5", "--tune-on", "dev.jsonl"], "not both"),
        (["--part", "everything"], "everything"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_bad_options_are_usage_errors(tmp_path, monkeypatch, capsys, options, message):
    path = write_lines(tmp_path / "pairs.jsonl", [{"premise": "P", "hypothesis": "H", "label": 0}])
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path), *options)
    assert ran.code == 2 and message in ran.text


def test_a_file_without_usable_pairs_exits_2(tmp_path, monkeypatch, capsys, scripted):
    path = write_lines(tmp_path / "pairs.jsonl", [{"premise": "P", "hypothesis": "H", "label": "generic"}])
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path))
    assert ran.code == 2 and "no usable pair" in ran.text


def test_the_llm_checker_through_a_fake_server_and_its_failures(tmp_path, monkeypatch, capsys, fake_llm):
    def responder(request):
        claim = request["messages"][0]["content"].split("### Claim")[1]
        return "Entailment" if "1889" in claim else "no idea" if "swim" in claim else "Contradiction"

    fake_llm.responder = responder
    path = write_lines(tmp_path / "pairs.jsonl", PAIRS)
    out = tmp_path / "report.json"
    llm = ["--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    ran = run_factscope(
        monkeypatch, capsys, "eval-checker", str(path), "--checker", "llm", "-o", str(out), *llm
    )
    assert ran.code == 3, ran.text
    assert "1 pair checks failed" in ran.text
    (figures,) = json.loads(out.read_text())["datasets"]
    assert (figures["n"], figures["failed"]) == (3, 1)
    # Gold E, C, E said E, C, C (the third has no "1889" in its claim).
    assert figures["confusion_3way"]["counts"] == [[1, 0, 1], [0, 0, 0], [0, 0, 1]]
    assert len(fake_llm.requests) == 4


def test_a_dataset_whose_pairs_are_all_entailed_gets_no_3_way_figures():
    pairs = [pair(0, "entailment"), pair(1, "entailment")]
    report = evaluate_checker(ListedChecker([Verdict(label=E), Verdict(label=N)]), pairs)
    (figures,) = report.datasets
    assert figures.macro_f1_3way is None and figures.confusion_3way is None
    assert figures.balanced_accuracy == pytest.approx(1 / 2)


def test_tuning_on_the_evaluated_pairs_is_warned_about(tmp_path, monkeypatch, capsys, scripted):
    rows = [{"premise": "P", "hypothesis": f"h {i}", "label": i % 2, "group": f"g{i}"} for i in range(80)]
    path = write_lines(tmp_path / "pairs.jsonl", rows)
    scripted["checker"] = ScriptedChecker(
        {row["hypothesis"]: Verdict(label=N, probs=probs(0.9 if row["label"] == 0 else 0.1)) for row in rows}
    )
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path), "--tune-on", str(path))
    assert ran.code == 0 and "optimistic" in ran.text
    ran = run_factscope(
        monkeypatch,
        capsys,
        "eval-checker",
        str(path),
        "--tune-on",
        str(path),
        "--tune-part",
        "validation",
        "--part",
        "test",
    )
    assert ran.code == 0, ran.text
    assert "optimistic" not in ran.text


def test_many_skipped_records_are_summed_up(tmp_path, monkeypatch, capsys, scripted):
    rows = [{"premise": "P", "hypothesis": "H", "label": "generic"} for _ in range(25)]
    rows.append({"premise": "P", "hypothesis": "yes", "label": "entailment"})
    path = write_lines(tmp_path / "pairs.jsonl", rows)
    scripted["checker"] = ScriptedChecker({"yes": Verdict(label=E)})
    out = tmp_path / "report.json"
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path), "-o", str(out))
    assert ran.code == 0, ran.text
    assert ran.text.count("'generic' is not a pair label") == 20 and "5 more records" in ran.text
    assert json.loads(out.read_text())["skipped"] == 25


def test_every_evaluation_setting_is_an_option_with_its_flags_and_default(app):
    import dataclasses

    import typer

    from factscope.cli.option_groups import option_flags
    from factscope.evaluation.checker_comparison import EvaluationSettings

    params = {param.name: param for param in typer.main.get_command(app).commands["eval-checker"].params}
    for item in dataclasses.fields(EvaluationSettings):
        assert params[item.name].opts == option_flags(item) and params[item.name].default == item.default


def test_the_dev_files_without_a_usable_pair_are_named_by_their_flag(tmp_path, monkeypatch, capsys, scripted):
    path = write_lines(tmp_path / "pairs.jsonl", [{"premise": "P", "hypothesis": "H", "label": 0, "group": "g"}])
    part = part_of("g")
    other = next(name for name in ("train", "validation", "test") if name != part)
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path), "--tune-on", str(path), "--tune-part", other)
    assert ran.code == 2 and f"the --tune-on files hold no usable pair in part '{other}'" in ran.text
