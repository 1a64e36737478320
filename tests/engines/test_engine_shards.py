"""The sharded layout: input shards, work units over their lines, and the results folder's manifest."""

from __future__ import annotations

from pathlib import Path

import pytest

from factscope.core.errors import InputError
from factscope.core.files.manifest import ResultsMismatch, RunManifest
from factscope.engines.shards import (
    FOLDER_MANIFEST,
    check_results_folder,
    count_lines,
    input_fingerprints,
    input_shards,
    prepare_results_folder,
    result_shard,
    unit_records,
    work_units,
)


def manifest(threshold: float, inputs: Path) -> RunManifest:
    return RunManifest(
        system="check",
        factscope_version="1",
        inputs=input_fingerprints(input_shards(inputs)),
        settings={"threshold": threshold},
    )


def test_a_folder_gives_its_jsonl_shards_in_order_and_each_its_results_shard(tmp_path):
    for name in ("b.jsonl", "a.jsonl", "notes.txt"):
        (tmp_path / name).write_text("{}\n")
    shards = input_shards(tmp_path)
    assert [p.name for p in shards] == ["a.jsonl", "b.jsonl"]
    assert result_shard(tmp_path / "out", shards[0]) == tmp_path / "out" / "a.jsonl"
    assert result_shard(tmp_path / "out", tmp_path / "answers.json").name == "answers.jsonl"
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no \\*.jsonl shards"):
        input_shards(tmp_path / "empty")


def test_work_units_cover_every_line_once(tmp_path):
    shard = tmp_path / "s.jsonl"
    shard.write_text("".join(f'{{"n": {n}}}\n' for n in range(10)) + '{"n": 10}')
    assert count_lines(shard) == 11
    units = work_units(shard, 4)
    assert [(u.first, u.last) for u in units] == [(1, 4), (5, 8), (9, 11)]
    listed = tmp_path / "list.json"
    listed.write_text('[\n{"n": 1},\n{"n": 2}\n]\n')
    assert [(u.first, u.last) for u in work_units(listed, 1)] == [(1, 4)]
    (tmp_path / "empty.jsonl").write_text("")
    assert work_units(tmp_path / "empty.jsonl", 4) == []


def test_a_unit_of_a_large_file_reads_only_its_own_bytes(tmp_path):
    shard = tmp_path / "s.jsonl"
    shard.write_bytes(b'{"n": "\xff broken"}\n' + b"".join(b'{"n": %d}\n' % n for n in range(2, 11)))
    units = work_units(shard, 4)
    data = shard.read_bytes()
    assert [data[u.start : u.end].count(b"\n") for u in units] == [4, 4, 2]
    assert [(line, raw) for line, raw in unit_records(units[1])] == [(n, {"n": n}) for n in range(5, 9)]
    assert [line for line, _ in unit_records(units[2])] == [9, 10]
    first = list(unit_records(units[0]))
    assert isinstance(first[0][1], InputError) and first[0][0] == 1 and "UTF-8" in str(first[0][1])


def test_the_folder_manifest_is_written_checked_and_replaced_with_overwrite(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.jsonl").write_text('{"id": "1"}\n')
    out = tmp_path / "out"
    prepare_results_folder(out, manifest(0.5, inputs))
    assert RunManifest.model_validate_json((out / FOLDER_MANIFEST).read_text()) == manifest(0.5, inputs)
    (out / "a.jsonl").write_text('{"id": "1"}\n')
    prepare_results_folder(out, manifest(0.5, inputs))
    with pytest.raises(ResultsMismatch, match="setting 'threshold': 0.5 -> 0.7"):
        prepare_results_folder(out, manifest(0.7, inputs))
    (inputs / "a.jsonl").write_text('{"id": "2"}\n')
    with pytest.raises(ResultsMismatch, match="input 'a.jsonl'"):
        prepare_results_folder(out, manifest(0.5, inputs))
    prepare_results_folder(out, manifest(0.7, inputs), overwrite=True)
    assert not (out / "a.jsonl").exists()
    assert RunManifest.model_validate_json((out / FOLDER_MANIFEST).read_text()).settings == {"threshold": 0.7}


def test_a_file_or_a_foreign_folder_is_refused_as_results_folder(tmp_path):
    (tmp_path / "file.jsonl").write_text("")
    with pytest.raises(InputError, match="is a file"):
        check_results_folder(tmp_path / "file.jsonl")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "rows.jsonl").write_text('{"id": "1"}\n')
    with pytest.raises(ResultsMismatch, match="no manifest.json"):
        check_results_folder(foreign)
    check_results_folder(foreign, overwrite=True)
