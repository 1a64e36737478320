"""An option declared once, in a field of a library dataclass (a system spec or a settings group), is an option
of every command built from that dataclass: a field added to ``CheckSpec`` or ``CheckerOptions`` shows in `check
--help` with its help and range, is among the command's parameters with its default and flag, is checked while
the command line is parsed, and reaches the spec the command runs. And every field a command offers is its option
with the field's flag, default and help, each parameter it mentions shown as its flag. A rule declared on a field
(``counts_when``) is enforced by every command built from it, as the dataclass enforces it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from command_line import command_line, swap_option_groups
from factscope.checkers.options import CheckerOptions
from factscope.checkers.wheel import CheckerPackage
from factscope.cli import check
from factscope.cli.agree import AGREE_SETTINGS, AGREE_SPEC_FIELDS
from factscope.cli.engine_options import CommandRun, EngineOptions
from factscope.cli.eval_checker import EVAL_SETTINGS
from factscope.cli.ground_calibrate import PRESENCE_FIELDS
from factscope.cli.option_groups import add_field_options, option_flags, range_shown
from factscope.cli.output_options import RERUN_FIELDS, OutputOptions
from factscope.cli.parameter_flags import MENTION
from factscope.conner.command_form import KnowledgeReading
from factscope.conner.demonstrations import DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.generation_run import SELECTION_FIELDS, KnowledgeGenerationSettings
from factscope.conner.spec import KnowledgeSpec
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen
from factscope.core.options.validation import ValidatedOptions
from factscope.engines.ray import RayOptions
from factscope.grounding.calibration import CalibrationSettings
from factscope.grounding.command_form import GroundReading
from factscope.grounding.distractors import DistractorSettings
from factscope.grounding.generation import ResponseGenerationSettings
from factscope.grounding.spec import GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile
from factscope.kalma.generation_settings import AnswerGenerationSettings, EvolutionSettings
from factscope.kalma.spec import AttributeSpec
from factscope.refchecker.command_form import CheckReading
from factscope.refchecker.spec import CheckSpec
from factscope.refchecker.system import CheckSystem
from factscope.reports.report_options import ReportOptions
from factscope.retrieve.web_settings import WebSettings
from factscope.serve.config import Components, Limits, ServeConfig, Startup


@dataclass(frozen=True)
class SpecWithKnob(CheckSpec):
    claim_budget: int = field(default=7, metadata=about("at most N claims per response", min=1))


@dataclass(frozen=True)
class CheckerWithKnob(CheckerOptions):
    evidence_span: float = field(default=0.5, metadata=about(
        "share of a window the evidence covers, with `max_tokens` segments", flag="--span-share", min=0.0, max=1.0
    ))


def _app(monkeypatch: pytest.MonkeyPatch, ran: list[CheckSpec]) -> typer.Typer:
    """The `check` command built from the spec and checker settings with one more field each; its run records
    the spec it would run."""
    swap_option_groups(monkeypatch, CheckSystem, {CheckSpec: SpecWithKnob, CheckerOptions: CheckerWithKnob})

    def run(self: CommandRun, system: Any, spec: CheckSpec, *args: Any, **kwargs: Any) -> Any:
        ran.append(spec)
        raise typer.Exit(0)

    monkeypatch.setattr(CommandRun, "__call__", run)
    return command_line(check)


def _params(app: typer.Typer) -> dict[str, Any]:
    return {param.name: param for param in typer.main.get_command(app).commands["check"].params}  # type: ignore[attr-defined]


def test_a_field_added_to_a_spec_is_in_help_and_among_the_options(monkeypatch):
    app = _app(monkeypatch, [])
    params = _params(app)
    assert params["claim_budget"].opts == ["--claim-budget"] and params["claim_budget"].default == 7
    assert params["span_share"].opts == ["--span-share"] and params["span_share"].default == 0.5
    shown = " ".join(CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "200"}).output.split())
    assert "--claim-budget" in shown and "at most N claims per response" in shown
    assert "--span-share" in shown and "share of a window the evidence covers, with --segment-tokens segments" in shown
    assert "[0.0<=x<=1.0]" in shown


def test_the_added_fields_reach_the_spec_the_command_runs(monkeypatch, tmp_path):
    ran: list[CheckSpec] = []
    app = _app(monkeypatch, ran)
    records = tmp_path / "in.jsonl"
    records.write_text('{"response": "a", "references": ["b"]}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["check", str(records), "--claim-budget", "3", "--span-share", "0.25"])
    assert result.exit_code == 0, result.output
    assert isinstance(ran[0], SpecWithKnob) and ran[0].claim_budget == 3
    assert ran[0].checker_settings.evidence_span == 0.25  # type: ignore[attr-defined]
    assert ran[0].checker_settings.max_tokens == CheckerOptions().max_tokens


def test_the_engine_and_the_ray_settings_reach_the_run_as_given(monkeypatch, tmp_path):
    ran: list[CommandRun] = []

    def run(self: CommandRun, system: Any, spec: CheckSpec, *args: Any, **kwargs: Any) -> Any:
        ran.append(self)
        raise typer.Exit(0)

    monkeypatch.setattr(CommandRun, "__call__", run)
    app = command_line(check)
    records = tmp_path / "in.jsonl"
    records.write_text('{"response": "a", "references": ["b"]}\n', encoding="utf-8")
    given = ["--engine", "ray", "--ray-address", "auto", "--concurrency", "3", "--num-gpus", "0.5"]
    for options in ([], given):
        result = CliRunner().invoke(app, ["check", str(records), "-o", str(tmp_path / "out"), *options])
        assert result.exit_code == 0, result.output
    assert ran[0].engine == EngineOptions("local") and ran[0].ray == RayOptions(concurrency=2)
    assert ran[1].engine == EngineOptions("ray")
    assert ran[1].ray == RayOptions(address="auto", concurrency=3, num_gpus=0.5)


@pytest.mark.parametrize(("option", "value"), [("--claim-budget", "0"), ("--span-share", "1.5"),
                                               ("--span-share", "nan")])
def test_an_added_fields_range_is_checked_while_parsing(monkeypatch, tmp_path, option, value):
    ran: list[CheckSpec] = []
    result = CliRunner().invoke(_app(monkeypatch, ran), ["check", str(tmp_path / "in.jsonl"), option, value])
    assert result.exit_code == 2 and f"Invalid value for '{option}'" in " ".join(result.output.split())
    assert not ran


OFFERED = [
    (CheckerOptions, ("check",), None, {}),
    (CheckerOptions, ("agree",), AGREE_SETTINGS, {}),
    (CheckerOptions, ("eval-checker",), EVAL_SETTINGS, {"llm_mode": "single"}),
    (CheckerOptions, ("attribute", "score"), {"mode"}, {}),
    (CheckSpec, ("check",), None, {}),
    (CheckSpec, ("agree",), AGREE_SPEC_FIELDS, {}),
    (WebSettings, ("check",), None, {}),
    (WebSettings, ("knowledge", "score"), None, {}),
    (WebSettings, ("serve",), None, {}),
    *[(group, ("serve",), None, {}) for group in (Startup, ServeConfig, Components, Limits)],
    (CheckerPackage, ("package-checker",), None, {}),
    (ReportOptions, ("report",), None, {}),
    (KnowledgeSpec, ("knowledge", "score"), None, {}),
    (KnowledgeSpec, ("knowledge", "generate"), SELECTION_FIELDS, {}),
    (KnowledgeSpec, ("knowledge", "select"), SELECTION_FIELDS, {}),
    (GenerationSettings, ("knowledge", "generate"), None, {}),
    (GenerationSettings, ("knowledge", "select"), None, {}),
    (CandidateSampling, ("knowledge", "select"), None, {}),
    (DemonstrationSettings, ("knowledge", "generate"), None, {}),
    (DemonstrationSettings, ("knowledge", "select"), {"train", "shots", "answer"}, {}),
    (GroundSpec, ("ground", "score"), None, {}),
    (GroundSpec, ("ground", "calibrate"), PRESENCE_FIELDS, {}),
    (DistractorSettings, ("ground", "generate"), None, {}),
    (ResponseGenerationSettings, ("ground", "generate"), None, {}),
    (CalibrationSettings, ("ground", "calibrate"), None, {}),
    (AtomicFactsFile, ("ground", "score"), None, {}),
    (GroundReading, ("ground", "score"), None, {}),
    (CheckReading, ("check",), None, {}),
    (KnowledgeReading, ("knowledge", "score"), None, {}),
    (KnowledgeGenerationSettings, ("knowledge", "score"), {"task"}, {}),
    (AttributeSpec, ("attribute", "score"), None, {}),
    (AnswerGenerationSettings, ("attribute", "generate"), None, {}),
    (AnswerGenerationSettings, ("attribute", "score"), {"minimum"}, {}),
    (EvolutionSettings, ("attribute", "make-questions"), None, {}),
    *[(OutputOptions, path, None, {}) for path in (("check",), ("ground", "score"), ("attribute", "score"))],
    *[(group, path, None, defaults) for path in (("check",), ("ground", "score"), ("attribute", "score"),
                                                 ("knowledge", "score"))
      for group, defaults in ((EngineOptions, {}), (RayOptions, {"concurrency": 2}))],
    *[(OutputOptions, path, RERUN_FIELDS, {}) for path in (
        ("knowledge", "score"), ("knowledge", "generate"), ("knowledge", "select"), ("ground", "generate"),
        ("attribute", "generate"), ("attribute", "make-questions"), ("agree",),
    )],
]
"""Each dataclass whose fields a command offers, the command, the fields it offers (None: every field with a help
text) and the defaults it sets itself."""


@pytest.mark.parametrize(("group", "path", "names", "defaults"), OFFERED,
                         ids=[f"{group.__name__}-{' '.join(path)}" for group, path, _, _ in OFFERED])
def test_every_offered_field_is_an_option_with_its_flag_default_and_help(group, path, names, defaults):
    command = typer.main.get_command(command_line())
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    params = {param.name: param for param in command.params}
    offered = [item for item in dataclasses.fields(group) if "help" in item.metadata
               and (names is None or item.name in names)]
    assert offered and (names is None or {item.name for item in offered} == set(names))
    for item in offered:
        flag = option_flags(item)[0]
        param = params[flag.split("/")[0][2:].replace("-", "_")]
        assert param.opts == [given.split("/")[0] for given in option_flags(item)], item.name
        required = item.default is dataclasses.MISSING and item.name not in defaults
        default = None if required else defaults.get(item.name, item.default)
        assert param.required == required and param.default == default, item.name
        declared = item.metadata["help"]
        shown = param.help.removesuffix(range_shown(item.metadata))
        assert shown.startswith(declared.split("`")[0]) and shown.endswith(declared.split("`")[-1])
        assert not [name for name, _ in MENTION.findall(param.help) if name in params], (item.name, param.help)


@dataclass(frozen=True)
class Source(ValidatedOptions):
    corpus: str | None = field(default=None, metadata=about("passages to crawl from"))
    engine: str = field(default="local", metadata=about("where the crawl runs"))


@dataclass(frozen=True)
class Crawl(ValidatedOptions):
    depth: int = field(default=1, metadata=about("links followed", min=0, counts_when=CountsWhen(
        lambda values: values["corpus"] is not None, "with `corpus`"
    )))
    width: int = field(default=2, metadata=about("pages per link", min=1, counts_when=CountsWhen(
        lambda values: values["depth"] > 0, "with `depth` above 0"
    )))
    workers: int = field(default=1, metadata=about("fetches at once", flag="--crawl-workers", counts_when=CountsWhen(
        lambda values: values["engine"] == "ray", "with `engine='ray'`", warn=True
    )))


def _crawl(ran: list[Crawl], *, source_first: bool = True, sources: set[str] | None = None) -> typer.Typer:
    """A command built from ``Source`` (its fields of ``sources``) and ``Crawl``, in either order, that records
    the crawl settings it is called with."""

    def crawl(*, source: Source, settings: Crawl) -> None:
        ran.append(settings)

    if source_first:
        command = add_field_options(add_field_options(crawl, Source, "source", names=sources), Crawl, "settings")
    else:
        command = add_field_options(add_field_options(crawl, Crawl, "settings"), Source, "source", names=sources)
    app = typer.Typer()
    app.command()(command)
    return app


@pytest.mark.parametrize("source_first", [True, False])
@pytest.mark.parametrize(("arguments", "refused"), [
    ([], None),
    (["--corpus", "c.jsonl", "--depth", "3", "--width", "4"], None),
    (["--depth", "3"], "Invalid value for '--depth': --depth counts only with --corpus"),
    (["--depth", "1"], None),
    (["--corpus", "c.jsonl", "--depth", "0", "--width", "4"],
     "Invalid value for '--width': --width counts only with --depth above 0"),
])
def test_a_rule_declared_on_a_field_is_enforced_by_the_generated_command(arguments, refused, source_first):
    """Set away from its default where its rule does not hold, an option is a usage error naming it, whichever
    group of options the rule reads, as the dataclass refuses it; at its default, or left out, it is taken."""
    ran: list[Crawl] = []
    result = CliRunner().invoke(_crawl(ran, source_first=source_first), arguments)
    if refused is None:
        assert result.exit_code == 0 and len(ran) == 1, result.output
    else:
        assert result.exit_code == 2 and refused in " ".join(result.output.replace("│", " ").split())
        assert ran == []


def test_a_rule_that_warns_lets_the_command_run_without_the_option():
    ran: list[Crawl] = []
    result = CliRunner().invoke(_crawl(ran), ["--crawl-workers", "4"])
    assert result.exit_code == 0 and ran == [Crawl(workers=4)]
    assert "warning --crawl-workers counts only with --engine ray; this run ignores it" in result.output
    result = CliRunner().invoke(_crawl(ran), ["--engine", "ray", "--crawl-workers", "4"])
    assert result.exit_code == 0 and "counts only" not in result.output


def test_a_rule_reading_a_field_the_command_does_not_offer_is_not_enforced():
    ran: list[Crawl] = []
    result = CliRunner().invoke(_crawl(ran, sources={"engine"}), ["--depth", "3"])
    assert result.exit_code == 0 and ran == [Crawl(depth=3)], result.output
