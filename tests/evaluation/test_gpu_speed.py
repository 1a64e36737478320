"""benchmarks/gpu_speed.py on the CPU with the smallest sizes: every checker and batch size gets its figures."""

import json
import sys

import pytest

import repo_paths

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import gpu_speed


def write_claims(folder):
    """A factcheckgpt.jsonl of twelve claims, each with three short snippets that share no word with another's."""
    words = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "heron", "iris", "jade", "kelp", "lynx"]
    rows = [
        {"group": word, "premise": f"{word.title()} {snippet} shines.", "hypothesis": f"{word.title()} shines.",
         "label": "entailment"}
        for word in words
        for snippet in ("north", "south", "west")
    ]
    folder.mkdir()
    (folder / "factcheckgpt.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


@pytest.mark.slow
def test_pairs_and_records_a_second_for_each_batch_size_on_the_cpu(monkeypatch, tmp_path):
    write_claims(tmp_path / "claims")
    out = tmp_path / "gpu_speed.json"
    argv = ["gpu_speed.py", "--device", "cpu", "--checkers", "embedded", "--batch-sizes", "2", "8",
            "--pairs", "4", "--data", str(tmp_path / "claims"), "--sets", "factcheckgpt=1", "--page-tokens", "10",
            "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    gpu_speed.main()
    figures = json.loads(out.read_text())["figures"]
    assert figures["device"] == "cpu"
    sizes = figures["checkers"]["embedded"]["batch_sizes"]
    assert sorted(sizes) == ["2", "8"]
    for found in sizes.values():
        assert found["pairs"] == 4
        assert found["records"] == 1
        assert found["pairs_per_second"] > 0
        assert found["records_per_second"] > 0
