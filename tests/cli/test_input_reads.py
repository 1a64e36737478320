"""A command reads its input file at most twice: once to check and fingerprint it, once to run. Counted in bytes
read from the file (every open of it goes through ``io.open``), on an input large enough that a third pass
cannot hide in the small reads that tell a file's format."""

import io
import json

import pytest
from typer.testing import CliRunner

from factscope.core.files.manifest import fingerprint_items
from factscope.grounding.data import ScoredExamples
from factscope.refchecker.data import CheckRecords
from repo_paths import EXAMPLES

RECORDS = 200
PADDING = "x" * 1500
"""A metadata field that makes each record about 1.7 kB, so the file is about 340 kB and a format peek (a 64 kB
chunk or a first line) is small beside one pass."""
PEEKS = 3 * 64 * 1024
"""What telling a file's format may read on top of the passes: a few 64 kB chunks or first lines (a third pass
would read about 340 kB more)."""


class CountedFile:
    """A file handle that adds what is read through it to a counter."""

    def __init__(self, handle, counter):
        self._handle = handle
        self._counter = counter

    def _counted(self, data):
        self._counter[0] += len(data)
        return data

    def read(self, *args):
        return self._counted(self._handle.read(*args))

    def read1(self, *args):
        return self._counted(self._handle.read1(*args))

    def readline(self, *args):
        return self._counted(self._handle.readline(*args))

    def readinto(self, buffer):
        count = self._handle.readinto(buffer)
        self._counter[0] += count or 0
        return count

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()

    def __getattr__(self, name):
        return getattr(self._handle, name)


@pytest.fixture
def bytes_read(monkeypatch):
    """``count(path)``: a counter of the bytes read from ``path`` from now on (its one item)."""
    opened = io.open

    def count(path):
        counter = [0]

        def counting_open(file, mode="r", *args, **kwargs):
            handle = opened(file, mode, *args, **kwargs)
            if "r" in mode and str(file) == str(path):
                return CountedFile(handle, counter)
            return handle

        monkeypatch.setattr(io, "open", counting_open)
        return counter

    return count


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="ascii")
    return path.stat().st_size


def check_records(tmp_path):
    return tmp_path / "answers.jsonl", [
        {"id": f"r{n}", "response": f"Tower {n} is in Paris.", "references": [f"Tower {n} is in Paris."],
         "note": PADDING}
        for n in range(RECORDS)
    ]


def ground_records(tmp_path):
    return tmp_path / "records.jsonl", [
        {"id": f"g{n}", "question": f"Where is tower {n}?", "contexts": [f"Tower {n} is in Paris."],
         "gold_facts": [f"Tower {n} is in Paris."], "response": f"Tower {n} is in Paris.", "pop": "high",
         "note": PADDING}
        for n in range(RECORDS)
    ]


def examples_padded(name):
    """The shipped example records of ``name`` repeated to ``RECORDS`` records, each with its own id."""
    shipped = [json.loads(line) for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines()]

    def records(tmp_path):
        return tmp_path / "records.jsonl", [
            {**shipped[n % len(shipped)], "id": f"e{n}", "note": PADDING} for n in range(RECORDS)
        ]

    return records


@pytest.mark.parametrize(
    ("records", "command", "options"),
    [
        (check_records, ["check"], ["--extractor", "sentences", "--checker", "similarity"]),
        (ground_records, ["ground", "score"], ["--extractor", "sentences", "--presence", "bi"]),
        (examples_padded("attribute/answers.jsonl"), ["attribute", "score"], ["--checker", "similarity"]),
        (examples_padded("knowledge/records.jsonl"), ["knowledge", "score"],
         ["--corpus", str(EXAMPLES / "knowledge" / "corpus.jsonl"), "--checker", "similarity", "--lm", "none",
          "--relevance-model", "none", "--coherence-model", "none"]),
    ],
    ids=["check", "ground score", "attribute score", "knowledge score"],
)
def test_a_command_reads_its_input_at_most_twice(app, tmp_path, bytes_read, records, command, options):
    path, rows = records(tmp_path)
    size = write_jsonl(path, rows)
    read = bytes_read(path)
    output = tmp_path / "out.jsonl"
    outcome = CliRunner().invoke(app, [*command, str(path), *options, "-o", str(output)], env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, (outcome.output, outcome.exception)
    assert 2 * size <= read[0] <= 2 * size + PEEKS, f"read {read[0] / size:.2f} times the file's size"
    assert len(output.read_text(encoding="utf-8").splitlines()) == RECORDS


def test_the_digest_made_while_reading_is_the_fingerprint_a_fresh_pass_makes(tmp_path):
    """A file's records fingerprinted from the pass that checked them match a fresh pass, so results files
    written before still resume."""
    path, rows = check_records(tmp_path)
    write_jsonl(path, rows[:5])
    records = CheckRecords(path)
    assert records.digest is None
    fresh = fingerprint_items(list(CheckRecords(path)))
    assert len(list(records)) == 5 and fingerprint_items(records) == fresh
    path, rows = ground_records(tmp_path)
    write_jsonl(path, rows[:5])
    examples = ScoredExamples(path)
    assert examples.digest is not None and fingerprint_items(examples) == fingerprint_items(list(examples))
    assert examples.fields == {"pop", "note"}


def test_an_answers_file_digested_while_read_is_fingerprinted_as_a_fresh_pass(tmp_path):
    """An answers file's records fingerprinted from the pass that counted them match a fresh pass, so results
    files written before still resume."""
    from factscope.kalma.answers import AnswerRecords

    path, rows = examples_padded("attribute/answers.jsonl")(tmp_path)
    write_jsonl(path, rows[:5])
    answers = AnswerRecords(path)
    assert answers.digest is None
    fresh = fingerprint_items(list(AnswerRecords(path)))
    assert len(list(answers)) == 5 and fingerprint_items(answers) == fresh
