"""The `factscope ...` example command lines of every --help page and of the documentation's shell blocks,
collected so that a test runs each as written (see tests/cli/test_command_examples.py)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from repo_paths import ROOT

DOCS = ROOT / "docs"
_COMMAND = re.compile(r"^(?:\$ )?(?:[A-Z_]+=\S+ )*factscope(?: |$)")
_SHELL_BLOCK = re.compile(r"^```(?:bash|console|sh|shell)\n(.*?)^```$", flags=re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Example:
    """One example command line and where it is shown (a command's --help, or a documentation page)."""

    source: str
    line: str
    environment: tuple[tuple[str, str], ...] = ()
    """Variables an ``export`` line before it in the same block sets."""

    def commands(self) -> list[list[str]]:
        """The example's commands (``a && b`` is two), each as its words, environment assignments first."""
        words = shlex.split(self.line, comments=True)
        commands: list[list[str]] = [[]]
        for word in words:
            if word == "&&":
                commands.append([])
            else:
                commands[-1].append(word)
        return commands


def _command_lines(text: str) -> list[str]:
    """The lines of ``text`` that run factscope (a line ending in a backslash goes on on the next), stripped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [
        " ".join(line.strip().removeprefix("$ ").split())
        for line in joined.splitlines()
        if _COMMAND.match(line.strip())
    ]


def help_examples() -> list[Example]:
    """The examples of every command's and command group's --help text, each line once (the first page that shows
    it), in the order of the command tree."""
    import typer

    from factscope.cli import main as entry

    app = typer.Typer(name="factscope")
    for module in entry.command_modules():
        module.register(app)
    found: dict[str, Example] = {}

    def walk(command, path: str) -> None:
        for line in _command_lines(command.help or ""):
            found.setdefault(line, Example(f"factscope {path} --help".replace("  ", " "), line))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(typer.main.get_command(app), "")
    return list(found.values())


def doc_examples() -> list[Example]:
    """The `factscope ...` lines of the shell blocks (```bash, ```console, ```sh) of every documentation page, each
    line once (its first page), pages in path order. An ``export`` line sets its variables for the block's later
    lines; in a ``for VAR in A B ...; do`` loop, ``$VAR`` is its first value."""
    found: dict[str, Example] = {}
    for page in sorted(DOCS.rglob("*.md")):
        for block in _SHELL_BLOCK.findall(page.read_text(encoding="utf-8")):
            environment: dict[str, str] = {}
            for line in re.sub(r"\\\n\s*", " ", block).splitlines():
                loop = re.match(r"\s*for (\w+) in (\S+)", line)
                if loop:
                    block = block.replace(f"${loop.group(1)}", loop.group(2))
            for line in re.sub(r"\\\n\s*", " ", block).splitlines():
                if line.startswith("export "):
                    environment.update(word.split("=", 1) for word in shlex.split(line)[1:] if "=" in word)
                for command in _command_lines(line):
                    example = Example(str(page.relative_to(DOCS)), command, tuple(environment.items()))
                    found.setdefault(command, example)
    return list(found.values())


def distinct_examples(examples: list[Example], skipped: set[str]) -> list[Example]:
    """``examples`` with each command run once: those that run the same (:func:`same_run`) are one example, shown
    where it is first met; an example of which any showing is in ``skipped`` is left out."""
    by_run: dict[tuple, list[Example]] = {}
    for example in examples:
        by_run.setdefault(same_run(example), []).append(example)
    return [shown[0] for shown in by_run.values() if not any(example.line in skipped for example in shown)]


def same_run(example: Example) -> tuple:
    """What an example runs, the same for two lines that differ only in their comments, in the order of their
    options (a flag and the words up to the next flag) or in a leading ``HF_HUB_OFFLINE=1`` (the tests' own
    setting)."""
    runs = []
    for words in example.commands():
        words = [word for word in words if word != "HF_HUB_OFFLINE=1"]
        first = next((index for index, word in enumerate(words) if word.startswith("-")), len(words))
        options: list[list[str]] = []
        for word in words[first:]:
            if word.startswith("-"):
                options.append([word])
            else:
                options[-1].append(word)
        runs.append((tuple(words[:first]), tuple(sorted(tuple(option) for option in options))))
    return tuple(runs)


def output_paths(words: list[str]) -> list[str]:
    """The files or folders a command's words name as its outputs (-o, --output, --out, --report, --summary)."""
    flags = {"-o", "--output", "--out", "--report", "--summary"}
    return [words[index + 1] for index, word in enumerate(words[:-1]) if word in flags]


def placeholder_words(words: list[str]) -> list[str]:
    """The words of a command that may name an input: every word, and the value of a ``name:VALUE`` spec."""
    return [part for word in words for part in (word, word.split(":", 1)[-1]) if not part.startswith("-")]


def as_path(folder: Path, word: str) -> Path:
    """``word`` as a path under ``folder``."""
    return folder / word.rstrip("/")
