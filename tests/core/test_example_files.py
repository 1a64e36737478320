"""``copy_examples``: every shipped example file copied into a folder, byte for byte; a file in the way or a
copy that would overwrite one refused with nothing copied."""

from __future__ import annotations

import pytest

from factscope.core.errors import InputError
from factscope.core.files.example_files import copy_examples
from repo_paths import EXAMPLES


def test_every_example_is_copied_byte_for_byte_and_the_copies_are_returned(tmp_path):
    shipped = sorted(path.relative_to(EXAMPLES) for path in EXAMPLES.rglob("*") if path.is_file())
    copies = copy_examples(tmp_path / "ex")
    assert sorted(path.relative_to(tmp_path / "ex") for path in copies) == shipped
    assert all((tmp_path / "ex" / name).read_bytes() == (EXAMPLES / name).read_bytes() for name in shipped)


def test_a_clash_or_a_file_in_the_way_is_refused_and_nothing_is_copied(tmp_path):
    dest = tmp_path / "ex"
    (dest / "ground").mkdir(parents=True)
    (dest / "check.jsonl").write_text("mine\n", encoding="utf-8")
    with pytest.raises(InputError, match="1 file\\(s\\) would be overwritten"):
        copy_examples(dest)
    assert sorted(path.name for path in dest.rglob("*")) == ["check.jsonl", "ground"]
    assert (dest / "check.jsonl").read_text(encoding="utf-8") == "mine\n"
    with pytest.raises(InputError, match="is not a folder"):
        copy_examples(dest / "check.jsonl")
