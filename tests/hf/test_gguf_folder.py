"""A GGUF file's dequantised folder: named by the file's SHA-256, converted once and then reused, clear errors for a
missing file or reader (the real conversion of the embedded model runs in test_embedded_lm.py)."""

from __future__ import annotations

import pytest

from factscope.core.errors import ConfigError
from factscope.hf import gguf_folder


def test_the_hash_is_the_sha256_of_the_files_bytes(tmp_path):
    path = tmp_path / "abc.gguf"
    path.write_bytes(b"abc")
    # the SHA-256 of "abc" (FIPS 180-2, appendix B.1)
    assert gguf_folder.file_sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_converted_folder_is_reused_without_reading_the_file_again(tmp_path, monkeypatch):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"not really a model")
    folder = tmp_path / "cache" / gguf_folder.file_sha256(path)
    folder.mkdir(parents=True)
    (folder / gguf_folder.WEIGHTS).write_bytes(b"")
    monkeypatch.setattr(gguf_folder, "_convert", lambda *args: pytest.fail("converted again"))
    assert gguf_folder.dequantised_folder(path, tmp_path / "cache") == folder


def test_a_new_file_is_converted_into_its_own_folder_once(tmp_path, monkeypatch):
    calls = []

    def convert(path, target):
        calls.append(path)
        (target / gguf_folder.WEIGHTS).write_bytes(b"weights")

    monkeypatch.setattr(gguf_folder, "_convert", convert)
    monkeypatch.setattr(gguf_folder, "gguf_reader_available", lambda: True)
    first, second = tmp_path / "a.gguf", tmp_path / "b.gguf"
    first.write_bytes(b"one")
    second.write_bytes(b"two")
    folders = [gguf_folder.dequantised_folder(path, tmp_path / "cache") for path in (first, second, first)]
    assert calls == [first, second]
    assert folders[0] == folders[2] != folders[1]
    assert (folders[0] / gguf_folder.WEIGHTS).read_bytes() == b"weights"
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(p.name for p in folders[:2])


def test_a_missing_file_or_reader_is_a_clear_error(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="no GGUF model file at"):
        gguf_folder.dequantised_folder(tmp_path / "missing.gguf", tmp_path)
    path = tmp_path / "model.gguf"
    path.write_bytes(b"x")
    monkeypatch.setattr(gguf_folder, "gguf_reader_available", lambda: False)
    with pytest.raises(ConfigError, match=r"needs transformers, gguf and accelerate: pip install 'factscope\[lm\]'"):
        gguf_folder.dequantised_folder(path, tmp_path / "cache")
