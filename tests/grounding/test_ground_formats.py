"""Truly Ground's own formats in `factscope ground`: the generation script's prediction files as responses,
atomic facts supplied in FActScore-style files, the --by rule, and the sentence extractor end to end."""

import json
from pathlib import Path

import pytest
import typer

import repo_paths
from factscope.cli import ground
from factscope.cli import main as entry
from factscope.core.errors import InputError
from factscope.core.files.manifest import fingerprint_file, manifest_path
from factscope.core.schema import Claim, Extraction
from factscope.grounding.atomic_facts import SentenceFacts, load_atomic_facts, paper_fact_rules
from factscope.grounding.data import attach_responses, load_dataset
from factscope.grounding.responses import read_responses, response_entries
from factscope.grounding.supplied_facts import SuppliedFactExtractor

DATA = repo_paths.DATA / "ground"
PROMPT = (
    "Title: Harbour Line tramway ... Question: In which year was the Harbour Line tramway opened?\nAnswer:"
)
PREDICTIONS = {
    # a causal LM echoes its prompt: the scoring script removes it from the output
    "q1": {"input": PROMPT, "output": PROMPT + " The Harbour Line tramway was opened in 1894."},
    # the generation script may write one-element lists
    "q2": {
        "input": ["Describe the diet of the marsh owl."],
        "output": ["The marsh owl feeds mainly on rodents."],
    },
    "q3": {"input": "Which river?", "output": "The Lenne flows through Corvel and Astry."},
}


def _write(path: Path, value) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _lines(path: Path, rows) -> Path:
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_prediction_files_of_the_generation_script_are_responses(tmp_path):
    dataset = load_dataset(DATA / "original.json")
    attach_responses(dataset, _write(tmp_path / "pred.json", PREDICTIONS))
    assert not dataset.errors and not dataset.warnings
    assert [e.response for e in dataset.examples] == [
        " The Harbour Line tramway was opened in 1894.",
        "The marsh owl feeds mainly on rodents.",
        "The Lenne flows through Corvel and Astry.",
    ]
    rows, _ = read_responses(tmp_path / "pred.json")
    assert rows[0].prompt == PROMPT and rows[1].prompt == "Describe the diet of the marsh owl."


def test_a_bad_prediction_entry_is_located_by_its_question_id_and_the_others_kept(tmp_path):
    path = _write(
        tmp_path / "pred.json",
        {
            "q1": PREDICTIONS["q1"],
            "q2": {"input": "p"},
            "q3": {"input": "p", "output": ["one", "two"]},
            "q4": "a bare string",
        },
    )
    rows, errors = read_responses(path)
    assert [row.id for row in rows] == ["q1"]
    assert [(e.field, e.reason) for e in errors] == [
        ("output", "question 'q2': missing"),
        ("output", "question 'q3': expected a string or a list of one string, got a list of 2"),
        (None, "question 'q4': expected an object, got a string"),
    ]
    assert all(e.path == str(path) for e in errors)


@pytest.mark.parametrize(
    "text, holds",
    [
        (
            json.dumps(["The Lenne.", "Owls."]),
            "no record object (first: item 0 is a str, expected an object)",
        ),
        (json.dumps({"q1": "The Lenne.", "q2": "Owls."}), "an object whose values are a string, not objects"),
        ('"The Lenne."\n"Owls."\n', "no record object (first: expected a JSON object, got str)"),
    ],
)
def test_a_responses_file_in_no_known_format_is_an_error_naming_the_formats(tmp_path, text, holds):
    path = tmp_path / "responses.json"
    path.write_text(text, encoding="utf-8")
    dataset = load_dataset(DATA / "original.json")
    with pytest.raises(InputError) as raised:
        attach_responses(dataset, path)
    message = str(raised.value)
    assert message.startswith(f"{path}: not a responses file: it holds {holds}. Accepted: JSONL")
    assert '{"<qId>": {"input": ..., "output": ...}}' in message


def test_the_keyed_atomic_facts_file_of_the_scoring_script_follows_its_rules(tmp_path):
    path = _write(
        tmp_path / "atomic.json",
        {
            # [sentence, [facts]] pairs as FActScore's generator writes them
            "q1": [
                [
                    "The tramway was opened in 1894.",
                    ["The tramway was opened in 1894.", "The tramway was opened."],
                ],
                ["Sure.", ["Sure."]],
                [
                    "It was built by Elsby.",
                    ["The tramway was built by the Elsby Tramway Company of Port Elsby."],
                ],
            ],
            # the same, under "atomic_facts"; a single sentence without facts is its own fact
            "q2": {"atomic_facts": [["The marsh owl feeds mainly on rodents.", []]]},
            # plain facts, duplicates dropped
            "q3": ["The Lenne flows through Corvel.", "The Lenne flows through Corvel."],
        },
    )
    found = load_atomic_facts(path)
    assert not found.errors
    assert found.facts == {
        # "Sure." is one word among several sentences: dropped; the 12-word fact of a 5-word sentence becomes it
        "q1": ["The tramway was opened in 1894.", "The tramway was opened.", "It was built by Elsby."],
        "q2": ["The marsh owl feeds mainly on rodents."],
        "q3": ["The Lenne flows through Corvel."],
    }
    as_given = load_atomic_facts(path, paper_rules=False).facts
    assert as_given["q1"][2:] == [
        "Sure.",
        "The tramway was built by the Elsby Tramway Company of Port Elsby.",
    ]
    assert as_given["q2"] == [] and len(as_given["q3"]) == 2


def test_paper_fact_rules_by_hand():
    assert paper_fact_rules([SentenceFacts("Yes.", [])]) == ["Yes."]
    assert paper_fact_rules(
        [SentenceFacts("Yes.", ["Yes."]), SentenceFacts("Owls hunt.", ["Owls hunt."])]
    ) == ["Owls hunt."]
    assert paper_fact_rules([SentenceFacts(None, ["a b c d", "a b c d", " "])]) == ["a b c d"]


FACTSCORE = {
    "input": "Question: Describe the diet of the marsh owl.",
    "output": "The marsh owl feeds mainly on rodents. It hunts at dusk.",
    "topic": "Marsh owl",
    "annotations": [
        {
            "text": "The marsh owl feeds mainly on rodents.",
            "is-relevant": True,
            "model-atomic-facts": [{"text": "The marsh owl feeds on rodents."}],
            "human-atomic-facts": [{"text": "The marsh owl feeds mainly on rodents.", "label": "S"}],
        },
        {
            "text": "It hunts at dusk.",
            "is-relevant": False,
            "model-atomic-facts": [{"text": "The marsh owl hunts at dusk."}],
            "human-atomic-facts": None,
        },
    ],
}


def test_records_with_id_or_qid_and_factscore_annotations(tmp_path):
    path = _lines(
        tmp_path / "atomic.jsonl",
        [
            {"id": "q1", "atomic_facts": ["The tramway was opened in 1894."]},
            {"qId": "q2", **FACTSCORE},
            {"id": "q3", **FACTSCORE, "annotations": None},
        ],
    )
    model = load_atomic_facts(path)
    assert not model.errors
    assert model.facts == {
        "q1": ["The tramway was opened in 1894."],
        # the paper's rules: "The marsh owl hunts at dusk." (6 words) is longer than its sentence (4): the sentence
        "q2": ["The marsh owl feeds on rodents.", "It hunts at dusk."],
        "q3": [],  # FActScore's null annotations: an empty output, no facts
    }
    assert load_atomic_facts(path, paper_rules=False).facts["q2"][1] == "The marsh owl hunts at dusk."
    human = load_atomic_facts(path, human=True)
    assert human.facts["q2"] == ["The marsh owl feeds mainly on rodents."]  # the irrelevant sentence has none


ENTRY_ERROR = "expected a fact (a string, or an object with 'text') or a [sentence, [facts]] pair, "
REPEATED_A = (
    "id 'a' is already used by line 1; only the first record with an id is read, so this one is skipped: give it an "
    "id of its own"
)


def test_bad_atomic_facts_records_are_located_and_unknown_shapes_refused(tmp_path):
    only_model = {"text": "Owls hunt.", "model-atomic-facts": ["Owls hunt."]}
    path = _lines(
        tmp_path / "atomic.jsonl",
        [
            {"id": "a", "atomic_facts": ["A fact."]},
            {"atomic_facts": ["no id"]},
            {"id": "c", "topic": "x"},
            {"id": "d", "atomic_facts": ["ok", 3]},
            {"id": "e", "annotations": [only_model]},
            {"id": "a", "atomic_facts": ["again"]},
        ],
    )
    found = load_atomic_facts(path, human=True)
    assert found.facts == {"a": ["A fact."]}
    assert [(e.line, e.field, e.reason) for e in found.errors] == [
        (2, "id", "missing"),
        (3, None, "no facts: give 'atomic_facts' (a list) or FActScore's 'annotations'"),
        (4, "atomic_facts.1", ENTRY_ERROR + "got a number"),
        (5, "annotations", "no sentence has 'human-atomic-facts'; they have 'model-atomic-facts'"),
        (6, "id", REPEATED_A),
    ]
    with pytest.raises(InputError, match="not an atomic-facts file: no record object .* Accepted: records"):
        load_atomic_facts(_write(tmp_path / "strings.json", ["A fact.", "Another."]))


class _Echo:
    """Each text is its own fact; records the texts it was asked about."""

    name = "echo"

    def __init__(self):
        self.asked = []

    def extract(self, texts, questions=None):
        self.asked.append(list(texts))
        return [Extraction(claims=[Claim(text=text)]) for text in texts]


def test_the_supplied_fact_extractor_serves_known_responses_and_falls_back():
    dataset = load_dataset(DATA / "original.json")
    for example in dataset.examples:
        example.response = f"Response {example.id}."
    fallback = _Echo()
    extractor = SuppliedFactExtractor.for_examples(
        dataset.examples, {"q2": ["F1.", "F2."], "q9": ["x"]}, fallback
    )
    questions = [e.question for e in dataset.examples]
    out = extractor.extract([e.response for e in dataset.examples], questions)
    assert [[c.text for c in x.claims] for x in out] == [["Response q1."], ["F1.", "F2."], ["Response q3."]]
    assert fallback.asked == [["Response q1.", "Response q3."]]
    assert extractor.extract(["Response q2."], [questions[1]])[0].claims[1].text == "F2."
    assert fallback.asked == [["Response q1.", "Response q3."]]
    clash = load_dataset(DATA / "original.json").examples[:2]
    clash[1].question, clash[0].response, clash[1].response = clash[0].question, "Same.", "Same."
    with pytest.raises(InputError, match="questions 'q1' and 'q2' have the same question and response"):
        SuppliedFactExtractor.for_examples(clash, {"q1": ["A."], "q2": ["B."]}, fallback)


def _main(monkeypatch, capsys, *argv) -> tuple[int, str]:
    """Run the real entry point (its error handler and exit codes) with only `ground` registered."""
    app = typer.Typer(pretty_exceptions_enable=False, add_completion=False)
    app.callback()(entry._root)
    monkeypatch.setattr(entry, "app", app)
    monkeypatch.setattr(entry, "_register", lambda: ground.register(app))
    monkeypatch.setattr(entry, "_options", entry.RootOptions())
    monkeypatch.setattr("sys.argv", ["factscope", *[str(a) for a in argv]])
    with pytest.raises(SystemExit) as exited:
        entry.main()
    captured = capsys.readouterr()
    return int(exited.value.code or 0), " ".join((captured.out + captured.err).split())


def test_ground_scores_with_prediction_files_and_supplied_atomic_facts(monkeypatch, capsys, tmp_path):
    predictions = _write(tmp_path / "pred.json", PREDICTIONS)
    supplied = ["The Harbour Line tramway was opened in 1894.", "The tramway had twelve cars."]
    facts = _lines(
        tmp_path / "atomic.jsonl", [{"id": "q1", "atomic_facts": supplied}, {"id": "q9", "atomic_facts": []}]
    )
    out = tmp_path / "out.jsonl"
    args = [
        "ground",
        DATA / "original.json",
        "--metadata",
        DATA / "metadata.json",
        "--responses",
        predictions,
        "--atomic-facts",
        facts,
        "--extractor",
        "sentences",
        "-o",
        out,
    ]
    code, text = _main(monkeypatch, capsys, *args)
    assert code == 0, text
    rows = {row["id"]: row for row in _rows(out)}
    assert [f["fact"] for f in rows["q1"]["response_facts"]] == supplied
    assert [f["fact"] for f in rows["q3"]["response_facts"]] == ["The Lenne flows through Corvel and Astry."]
    assert "response facts: supplied / extracted │ 1 / 2" in text
    assert "1 id(s) match no scored record: q9" in text
    recorded = json.loads(manifest_path(out).read_text())["settings"]["atomic_facts"]
    assert recorded["sha256"] == fingerprint_file(facts).sha256 and recorded["paper_fact_rules"] is True
    _lines(facts, [{"id": "q1", "atomic_facts": supplied[:1]}])
    code, text = _main(monkeypatch, capsys, *args)
    assert code == 2 and "setting 'atomic_facts.sha256'" in text and "--overwrite" in text


def test_ground_refuses_a_responses_file_in_no_known_format(monkeypatch, capsys, tmp_path):
    strings = _write(tmp_path / "responses.json", ["The Lenne flows through Corvel."])
    code, text = _main(monkeypatch, capsys, "ground", DATA / "original.json", "--responses", strings)
    assert code == 2 and f"{strings}: not a responses file" in text and "no response for" not in text


def test_by_a_field_no_record_has_is_an_error_and_the_default_takes_the_fields_present(
    monkeypatch, capsys, tmp_path
):
    out = tmp_path / "out.jsonl"
    base = ["ground", DATA / "original.json", "--responses", DATA / "responses.jsonl", "-o", out]
    code, text = _main(
        monkeypatch, capsys, *base, "--metadata", DATA / "metadata.json", "--by", "pop,popularity"
    )
    assert code == 2 and not out.exists()
    assert (
        "cannot break results down by 'popularity': no record has that field in its metadata. "
        "Fields present: has_answer, has_multi, pop" in text
    )
    code, text = _main(monkeypatch, capsys, *base, "--by", "pop")
    assert code == 2 and "Fields present: none" in text
    summary = tmp_path / "summary.json"
    code, text = _main(monkeypatch, capsys, *base, "--summary", summary, "--window", "0")
    assert code == 0, text
    assert json.loads(summary.read_text())["by_factor"] == []


def test_the_sentence_extractor_gives_one_fact_per_sentence(monkeypatch, capsys, tmp_path):
    out = tmp_path / "out.jsonl"
    code, text = _main(
        monkeypatch,
        capsys,
        "ground",
        DATA / "original.json",
        "--metadata",
        DATA / "metadata.json",
        "--responses",
        DATA / "responses.jsonl",
        "--extractor",
        "sentences",
        "--presence",
        "bi",
        "--threshold",
        "0.8",
        "-o",
        out,
    )
    assert code == 0, text
    rows = {row["id"]: row for row in _rows(out)}
    assert [f["fact"] for f in rows["q1"]["response_facts"]] == [
        "The Harbour Line tramway was opened in 1894.",
        "It was built by the Elsby Tramway Company.",
    ]
    # MiniLM cosine: the first sentence 0.87 against the context, the second (not in it) 0.62: at 0.8,
    # precision 1/2; the gold fact scores 0.88 against the response: recall 1
    assert rows["q1"]["precision"] == 0.5 and rows["q1"]["recall"] == 1.0
    assert "sentences / bi-encoder" in text


def test_a_broken_entry_of_a_prediction_file_is_skipped_with_its_line_and_the_others_read(tmp_path):
    path = tmp_path / "pred.json"
    path.write_text('{\n"q1": {"output": "First."},\n"q2": {"output": "Sec" "ond."},\n"q3": {"output": ["Third."]}\n}\n',
                    encoding="utf-8")
    first, broken, third = response_entries(path)
    assert (first.id, first.text, third.id, third.text) == ("q1", "First.", "q3", "Third.")
    assert isinstance(broken, InputError) and (broken.path, broken.line) == (str(path), 3)
    assert broken.reason.startswith("key 'q2': broken JSON")


def test_supplied_facts_are_refused_on_ray_before_ray_starts(monkeypatch, capsys, tmp_path):
    facts = _lines(tmp_path / "atomic.jsonl", [{"id": "q1", "atomic_facts": ["A fact."]}])
    data = _lines(tmp_path / "data.jsonl", [{"id": "q1", "question": "Q?", "contexts": ["c"], "response": "r"}])
    code, text = _main(monkeypatch, capsys, "ground", data, "--atomic-facts", facts, "--engine", "ray",
                       "-o", tmp_path / "out")
    assert code == 2, text
    assert "--metadata, --responses and --atomic-facts are not taken with --engine ray" in text
    assert not (tmp_path / "out").exists()
