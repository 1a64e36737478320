"""A checker folder as an installable wheel that adds the checker to factscope by name.

``build_checker_wheel`` packs a folder that ``--checker path:DIR`` reads (a checker trained with
``factscope train-checker``, or a Hugging Face NLI model folder) into ``factscope_checker_NAME-VERSION-py3-none-any.whl``.
The wheel holds the folder, its model card and a small module that registers ``NAME`` in the ``factscope.checkers``
entry-point group; once it is installed, ``--checker NAME`` builds the checker from the installed copy with the same layout,
threshold and options as ``path:DIR``. The wheel is written directly (zip, ``RECORD`` with SHA-256 digests,
``WHEEL`` and ``METADATA`` per the binary distribution format), so no build backend is needed.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from factscope.checkers.checker_card import UNKNOWN_TERMS, checker_card
from factscope.checkers.embedded import MANIFEST, read_manifest
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import fingerprint_file
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.version import __version__

CHECKER_NAME = re.compile(r"^[a-z][a-z0-9-]*[a-z0-9]$")
"""A checker name a package can register: lower-case letters, digits and inner hyphens."""

RELEASE = re.compile(r"^\d+(\.\d+)*$")
"""A plain release version (``1``, ``1.0``, ``2.1.3``)."""

PYPI_FILE_LIMIT = 100 * 1000 * 1000
"""PyPI's default upper size of one uploaded file, in bytes; a project may ask PyPI for a larger one."""

_MODULE = '''"""The factscope checker {name!r}, built by `factscope package-checker`."""

from pathlib import Path
from typing import Any

from factscope.checkers.registry import checker_from_folder
from factscope.core.registry import Entry

FOLDER = Path(__file__).parent / "checker"


def build(argument: None, options: Any, llm: Any) -> Any:
    """The checker in FOLDER, with make_checker's options (a CheckerOptions)."""
    return checker_from_folder(FOLDER, options, name={name!r})


ENTRY = Entry({name!r}, {description!r}, build)
'''


def distribution_name(name: str) -> str:
    """The distribution that carries checker ``name``: ``factscope-checker-NAME``."""
    return f"factscope-checker-{name}"


def module_name(name: str) -> str:
    """The import name of checker ``name``'s package: ``factscope_checker_NAME`` with underscores."""
    return "factscope_checker_" + name.replace("-", "_")


def build_checker_wheel(
    folder: str | Path,
    name: str,
    out_dir: str | Path,
    *,
    version: str = "1.0.0",
    description: str | None = None,
    card: str | None = None,
) -> Path:
    """Write the wheel of the checker in ``folder`` registered as ``name`` into ``out_dir``; return its path.

    ``description`` is the one line ``--checker`` help shows (default: from the folder's manifest). ``card`` is the
    Markdown model card the package carries as its long description and as ``MODEL_CARD.md`` (default:
    ``checker_card`` of the folder). Raises a
    ConfigError when the folder is not a checker, the name is taken by a built-in checker or malformed, or the
    version is not a plain release number."""
    from factscope.checkers.registry import CHECKERS

    source = Path(folder)
    if not CHECKER_NAME.match(name):
        raise ConfigError(f"checker name {name!r}: use lower-case letters, digits and hyphens, e.g. 'my-checker'")
    if name in CHECKERS.own_names():
        raise ConfigError(f"'{name}' is a built-in checker; a package cannot replace it. Choose another name")
    if not RELEASE.match(version):
        raise ConfigError(f"version {version!r}: use a release number such as 1.0.0")
    if description is not None and (not description.strip() or "\n" in description or "\r" in description):
        raise ConfigError("the description is the one line the checker's help shows: give one non-empty line")
    summary = description or _describe_folder(source)
    card_text = card if card is not None else checker_card(source, name)
    module = module_name(name)
    files = sorted(p for p in source.rglob("*") if p.is_file())
    wheel = Path(out_dir) / f"{module}-{version}-py3-none-any.whl"
    wheel.parent.mkdir(parents=True, exist_ok=True)
    info = f"{module}-{version}.dist-info"
    record: list[str] = []
    partial = wheel.with_name(wheel.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        _add_text(archive, record, f"{module}/__init__.py", _MODULE.format(name=name, description=summary))
        _add_text(archive, record, f"{module}/MODEL_CARD.md", card_text)
        for path in files:
            arcname = f"{module}/checker/{path.relative_to(source).as_posix()}"
            archive.write(path, arcname)
            fingerprint = fingerprint_file(path)
            record.append(_record_line(arcname, bytes.fromhex(fingerprint.sha256), fingerprint.size))
        _add_text(archive, record, f"{info}/METADATA", _metadata(name, version, summary, card_text))
        _add_text(archive, record, f"{info}/WHEEL", _wheel_file())
        _add_text(archive, record, f"{info}/entry_points.txt", f"[factscope.checkers]\n{name} = {module}:ENTRY\n")
        record.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    partial.replace(wheel)
    return wheel


@dataclass(frozen=True)
class PackedChecker:
    """A checker packed as a wheel: the checker's name, the wheel, and the model card it carries."""

    name: str
    wheel: Path
    card: str
    card_file: Path | None
    """The card written beside the wheel when it was made from the checker's manifest (None: a card was given)."""

    @property
    def card_names_every_licence(self) -> bool:
        """Whether the card names the licence of every training set."""
        return UNKNOWN_TERMS not in self.card

    @property
    def over_pypi_limit(self) -> bool:
        """Whether the wheel is larger than PyPI takes by default (``PYPI_FILE_LIMIT``)."""
        return self.wheel.stat().st_size > PYPI_FILE_LIMIT

    def notes(self) -> list[str]:
        """What to do next: complete a card written from the manifest, name every training set's licence,
        install the wheel and use the checker, and where to share a wheel larger than PyPI takes."""
        notes = []
        if self.card_file is not None:
            notes.append(f"the model card it carries was written from the manifest; it is saved as {self.card_file}: "
                         "complete it and pack again with `card`")
        if not self.card_names_every_licence:
            notes.append("note: the card does not name the licence of every training set; fill them in before you "
                         "publish")
        notes.append(f"wrote {self.wheel} ({self.wheel.stat().st_size / 1e6:.1f} MB), the distribution "
                     f"{distribution_name(self.name)}; after `pip install {self.wheel}`, use `checker={self.name!r}`")
        if self.over_pypi_limit:
            notes.append("note: above PyPI's default limit of 100 MB a file; install it from a file share or ask "
                         "PyPI for a larger limit")
        return notes


def _existing_file(path: Path) -> None:
    """Refuse a model card that is not a file."""
    if not path.is_file():
        raise ValueError(f"'{path}' is not a file")


@dataclass(frozen=True)
class CheckerPackage(ValidatedOptions):
    """The package a checker folder is packed as (``package_checker``): the checker's name, the folder the wheel
    is written into, the package's release number, the checker's one-line description and the model card."""

    name: str = field(metadata=about(
        "the checker's name for `checker`: lower-case letters, digits, hyphens", flag="--name"
    ))
    out: Path = field(default=Path("dist"), metadata=about(
        "folder to write the wheel into", flag=("--out", "-o")
    ))
    version: str = field(default="1.0.0", metadata=about("the package's release number"))
    description: str | None = field(default=None, metadata=about(
        "the one line the checker's help shows (default: from its manifest)"
    ))
    card: Path | None = field(default=None, metadata=about(
        "a Markdown model card for the package (default: one written from the checker's manifest)",
        check=_existing_file,
    ))


def package_checker(folder: str | Path, package: CheckerPackage) -> PackedChecker:
    """Pack the checker in ``folder`` as ``package`` says (``build_checker_wheel``), with the Markdown model card
    of the file ``package.card``, or, without one, the card written from the checker's manifest, which is then
    also saved beside the wheel (``MODULE-VERSION.MODEL_CARD.md``) to be completed and packed again."""
    text = _read_card(Path(package.card)) if package.card is not None else checker_card(folder, package.name)
    wheel = build_checker_wheel(
        folder, package.name, package.out, version=package.version, description=package.description, card=text
    )
    card_file = None
    if package.card is None:
        card_file = Path(package.out) / f"{module_name(package.name)}-{package.version}.MODEL_CARD.md"
        card_file.write_text(text, encoding="utf-8")
    return PackedChecker(package.name, wheel, text, card_file)


def _read_card(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"`card` {path}: cannot read it as a UTF-8 Markdown file ({error})") from error


def _describe_folder(folder: Path) -> str:
    if not folder.is_dir():
        raise ConfigError(f"checker folder '{folder}' does not exist")
    manifest = folder / MANIFEST
    if manifest.is_file():
        data = read_manifest(manifest)
        if "method" in data:
            encoder = data.get("encoder")
            base = Path(encoder).name if isinstance(encoder, str) and encoder else "its encoder"
            how = {"finetune": "fine-tuned from", "repc": "a RepC head over"}.get(data["method"], "trained from")
            return f"a factscope checker, {how} {base}"
    if (folder / "config.json").is_file():
        return "a Hugging Face NLI classifier"
    raise ConfigError(
        f"'{folder}' is neither a factscope checker (manifest.json) nor a Hugging Face model (config.json); "
        "give the folder `factscope train-checker` wrote"
    )


def _metadata(name: str, version: str, summary: str, card: str) -> str:
    major, minor = __version__.split(".")[:2]
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {distribution_name(name)}\n"
        f"Version: {version}\n"
        f"Summary: factscope checker '{name}': {summary}\n"
        f"Requires-Dist: factscope>={major}.{minor}\n"
        "Description-Content-Type: text/markdown\n"
        f"\n{card}"
    )


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: factscope {__version__}\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _add_text(archive: zipfile.ZipFile, record: list[str], arcname: str, text: str) -> None:
    data = text.encode("utf-8")
    archive.writestr(arcname, data)
    record.append(_record_line(arcname, hashlib.sha256(data).digest(), len(data)))


def _record_line(arcname: str, digest: bytes, size: int) -> str:
    encoded = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    return f"{arcname},sha256={encoded},{size}"
