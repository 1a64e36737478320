"""The unseen-sets benchmark keeps a run only while its checker and sample are the ones that made it, and refuses
to add runs to a file measured on another sample."""

import json
import sys

import pytest

import repo_paths

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import unseen_sets

from factscope.evaluation.splits import part_of

PREMISE = "The bridge over the river was opened in 1932 by the mayor of the town."
CLAIMS = ("The bridge was opened in 1932.", "The bridge was closed in 1932.")


def groups_in_test_part(count: int) -> list[str]:
    """``count`` group names that the split puts in the test part."""
    names = (f"group-{n}" for n in range(10_000))
    return [name for name in names if part_of(name) == "test"][:count]


@pytest.fixture
def data(tmp_path):
    """Each unseen set as a file of four test pairs, two supported and two not."""
    folder = tmp_path / "data"
    for pair_set in unseen_sets.UNSEEN:
        path = folder / pair_set.path
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [
            {"id": f"{pair_set.name}-{n}", "group": group, "premise": PREMISE, "hypothesis": CLAIMS[n % 2],
             "label": "entailment" if n % 2 == 0 else "contradiction"}
            for n, group in enumerate(groups_in_test_part(4))
        ]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return folder


def run(monkeypatch, capsys, data, out, *runs, limit=4):
    argv = ["unseen_sets.py", "--data", str(data), "--limit", str(limit), "--out", str(out)]
    for text in runs:
        argv += ["--run", text]
    monkeypatch.setattr(sys, "argv", argv)
    unseen_sets.main()
    return capsys.readouterr().out


def test_a_rerun_measures_only_new_or_changed_runs(monkeypatch, capsys, data, tmp_path):
    out = tmp_path / "unseen.json"
    printed = run(monkeypatch, capsys, data, out, "win2=embedded:window_sentences=2")
    assert printed.startswith("win2 ")
    first = json.loads(out.read_text(encoding="utf-8"))
    assert first["runs"]["win2"]["checker"]["scorer"]["contents"].startswith("sha256:")
    assert first["sample"].startswith("sha256:") and first["limit"] == 4

    printed = run(monkeypatch, capsys, data, out, "win2=embedded:window_sentences=2", "win1=embedded:window_sentences=1")
    assert "win2 " not in printed and "win1 " in printed

    stored = json.loads(out.read_text(encoding="utf-8"))
    stored["runs"]["win2"]["checker"]["scorer"]["contents"] = "sha256:0000000000000000"
    out.write_text(json.dumps(stored), encoding="utf-8")
    printed = run(monkeypatch, capsys, data, out, "win2=embedded:window_sentences=2")
    assert "win2: the file's run was another checker" in printed
    assert json.loads(out.read_text(encoding="utf-8"))["runs"]["win2"]["checker"] == first["runs"]["win2"]["checker"]


def test_another_sample_is_refused(monkeypatch, capsys, data, tmp_path):
    out = tmp_path / "unseen.json"
    run(monkeypatch, capsys, data, out, "win2=embedded:window_sentences=2")
    before = out.read_text(encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        run(monkeypatch, capsys, data, out, "win2=embedded:window_sentences=2", limit=3)
    assert str(out) in str(stopped.value) and "limit" in str(stopped.value) and "--out" in str(stopped.value)
    assert out.read_text(encoding="utf-8") == before


def test_the_sample_digest_follows_the_pairs_ids():
    class Pair:
        def __init__(self, id):
            self.id = id

    one = unseen_sets.sample_digest({"sick": [Pair("a"), Pair("b")]})
    assert one == unseen_sets.sample_digest({"sick": [Pair("a"), Pair("b")]})
    assert one != unseen_sets.sample_digest({"sick": [Pair("a"), Pair("c")]})
    assert one != unseen_sets.sample_digest({"rte": [Pair("a"), Pair("b")]})


def test_a_run_names_its_settings_after_the_spec():
    assert unseen_sets.parse_run("q=mpnet:precision=int8,window_sentences=1") == (
        "q", "mpnet", {"precision": "int8", "window_sentences": 1}
    )
    assert unseen_sets.parse_run("p=path:/a/b") == ("p", "path:/a/b", {})
    with pytest.raises(SystemExit, match="precision=fp32|int8"):
        unseen_sets.parse_run("q=mpnet:precision=int4")
