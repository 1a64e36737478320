"""The checker registry: checkers by the short spec names the CLI and the tasks use, plus plugins.

Plugins register in the entry-point group ``factscope.checkers`` (see factscope.core.registry); a factory is
called as ``factory(argument, options=..., llm=...)``: ``options`` is the run's ``CheckerOptions``, whole, and
``llm`` its LLM client (or None).
``CHECKER_SPECS`` is the registry's help text, made on first access so that plugins are listed and imported only
when someone asks.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.checkers.base import Checker, PairScorer
from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.core.errors import ConfigError, FactscopeWarning
from factscope.core.registry import Argument, Entry, Registry

if TYPE_CHECKING:
    from factscope.checkers.options import CheckerOptions
    from factscope.llm.client import LLMClient

MODEL_BATCH = 32
"""Pairs per batch of an nli or path model when ``batch_size`` is not set."""

JUDGE_BATCH = 16
"""Pairs per batch of a published judge (minicheck, hhem, alignscore) when ``batch_size`` is not set."""


def _segmented(scorer: PairScorer, options: CheckerOptions, *, name: str | None = None) -> Checker:
    """A SegmentedChecker over ``scorer`` that checks as ``options`` say, named ``name`` (default: the scorer's)."""
    from factscope.checkers.segmented import SegmentedChecker

    return SegmentedChecker(scorer, options, name=name)


def _embedded(argument: None, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.checkers.embedded import load_embedded_scorer
    from factscope.hf.device import resolve_device

    scorer = load_embedded_scorer(device=resolve_device(options.device), precision=options.precision)
    return _segmented(scorer, _checker_defaults(scorer, options), name="embedded")


def _mpnet(argument: None, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.checkers.embedded import load_embedded_scorer, mpnet_checker_dir
    from factscope.hf.device import resolve_device

    scorer = load_embedded_scorer(
        mpnet_checker_dir(), device=resolve_device(options.device), precision=options.precision
    )
    return _segmented(scorer, _checker_defaults(scorer, options), name="mpnet")


ACCURATE_RENAMED = (
    "the checker 'accurate' is now called 'mpnet': it is not more accurate than the default on LLM outputs "
    "checked against their sources (see 'Choosing a checker' in the docs); use the checker 'mpnet'"
)
"""The warning of the checker's former name."""


def _accurate(argument: None, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    warnings.warn(ACCURATE_RENAMED, FactscopeWarning, stacklevel=2)
    return _mpnet(argument, options, llm)


def _cascade(argument: str, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.checkers.cascade import CascadeChecker, fitted_band, parse_cascade

    first, second, band = parse_cascade(argument)
    if first.startswith("cascade:") or second.startswith("cascade:"):
        raise ConfigError("a cascade's checkers cannot be cascades themselves")
    band = band or fitted_band(first)
    if band is None:
        raise ConfigError(
            f"no uncertainty band is fitted for '{first}'; give one: cascade:{first},{second},LOW,HIGH "
            "(claims whose P(Entailment) from the first checker lies in [LOW, HIGH] go to the second)"
        )
    built = [CHECKERS.build(spec, options=options, llm=llm) for spec in (first, second)]
    return CascadeChecker(built[0], built[1], band)


def _checker_defaults(scorer: Any, options: CheckerOptions) -> CheckerOptions:
    """``options`` with the layout and threshold a factscope checker's manifest names (its ``inference``) where
    the caller left them unset: the settings the checker was calibrated with. The manifest's narrowest window
    applies only with its own window width (a caller who sets ``window_sentences`` gets that one width unless they
    set ``min_window_sentences`` too). References read whole (``max_tokens=0``) keep that layout: windows need a
    token budget."""
    inference = getattr(scorer, "manifest", {}).get("inference", {})
    settings = ("threshold",) if options.max_tokens == 0 else ("window_sentences", "threshold")
    chosen = {
        setting: inference[setting]
        for setting in settings
        if getattr(options, setting) is None and setting in inference
    }
    if (
        "window_sentences" in settings
        and options.window_sentences is None
        and options.min_window_sentences is None
        and "min_window_sentences" in inference
    ):
        chosen["min_window_sentences"] = inference["min_window_sentences"]
    return replace(options, **chosen)


def _nli(argument: str, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.hf.nli import HFNLIScorer

    scorer = HFNLIScorer(argument, batch_size=options.batch_size or MODEL_BATCH, label_order=options.label_order)
    return _segmented(scorer, options)


def checker_from_folder(
    folder: str | Path, options: CheckerOptions | None = None, *, name: str | None = None
) -> Checker:
    """The checker in ``folder``: a factscope checker (its manifest's layout and threshold unless ``options`` set
    them; placed on the options' ``device``) or a Hugging Face NLI model folder, named ``name`` in its verdicts.
    This is what ``path:DIR`` builds and what a checker package (``factscope package-checker``) calls."""
    from factscope.checkers.options import CheckerOptions

    chosen = options or CheckerOptions()
    scorer = _scorer_from_folder(Path(folder), chosen)
    return _segmented(scorer, _checker_defaults(scorer, chosen), name=name)


def _path(argument: str, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    return checker_from_folder(argument, options)


def _judge(scorer: Any, chunk_tokens: int, options: CheckerOptions) -> Checker:
    """A segmented checker over a published judge: its authors' chunk size (``chunk_tokens``; 0: each reference
    whole) and threshold (0.5) unless ``threshold`` is given."""
    from factscope.checkers.decision import TWO_WAY_THRESHOLD

    if options.window_sentences or options.min_window_sentences:
        raise ConfigError(
            "the published judges chunk references as their authors do; `window_sentences` and "
            "`min_window_sentences` apply to the embedded, nli: and path: checkers"
        )
    chosen = TWO_WAY_THRESHOLD if options.threshold is None else options.threshold
    return _segmented(scorer, replace(options, max_tokens=chunk_tokens, threshold=chosen))


def _minicheck(argument: str, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.hf.device import resolve_device
    from factscope.hf.minicheck import MiniCheckScorer

    batch_size = options.batch_size or JUDGE_BATCH
    scorer = MiniCheckScorer(argument, batch_size=batch_size, device=resolve_device(options.device))
    return _judge(scorer, scorer.chunk_tokens, options)


def _hhem(argument: str, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.hf.device import resolve_device
    from factscope.hf.hhem import HHEMScorer

    batch_size = options.batch_size or JUDGE_BATCH
    return _judge(HHEMScorer(argument, batch_size=batch_size, device=resolve_device(options.device)), 0, options)


def _alignscore(argument: str, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.hf.alignscore import AlignScoreScorer
    from factscope.hf.device import resolve_device

    batch_size = options.batch_size or JUDGE_BATCH
    scorer = AlignScoreScorer(argument, batch_size=batch_size, device=resolve_device(options.device))
    return _judge(scorer, 0, options)


def _similarity(argument: str | None, options: CheckerOptions, llm: LLMClient | None) -> Checker:
    from factscope.checkers.similarity import SimilarityChecker
    from factscope.hf.encoders import BiEncoder

    return SimilarityChecker(BiEncoder(argument), threshold=options.similarity_threshold)


def _llm(argument: str | None, options: CheckerOptions, llm: LLMClient) -> Checker:
    if argument == "minicheck":
        from factscope.checkers.minicheck_llm import MiniCheckLLMChecker

        return MiniCheckLLMChecker(llm)
    if argument is not None:
        raise ConfigError(f"unknown prompt '{argument}' of the llm checker; use llm (RefChecker's) or llm:minicheck")
    from factscope.checkers.llm import LLMChecker

    return LLMChecker(llm, options)


CHECKERS: Registry[Checker] = Registry(
    "checker",
    "factscope.checkers",
    [
        Entry("embedded", "default: the offline checker shipped with factscope", _embedded),
        Entry(
            "mpnet",
            "the larger offline checker (all-mpnet-base-v2 with a shipped LoRA delta); better on claims against "
            "scientific and health evidence, not on LLM outputs against their sources",
            _mpnet,
        ),
        Entry("accurate", "the former name of mpnet (warns)", _accurate),
        Entry(
            "cascade",
            "the first checker decides; claims it is unsure of (P(Entailment) inside a band) go to the second",
            _cascade,
            Argument(
                "FIRST,SECOND[,LOW,HIGH]",
                "two checker specs, e.g. embedded,mpnet; the band is the one fitted for FIRST unless given",
            ),
        ),
        Entry(
            "similarity",
            "bi-encoder cosine threshold, never Contradiction",
            _similarity,
            Argument(
                "MODEL",
                "a sentence-transformers model, hub name or folder, or packaged-mpnet (the mpnet extra); "
                "default the packaged MiniLM",
                False,
            ),
        ),
        Entry(
            "nli",
            "any Hugging Face NLI classifier or CrossEncoder",
            _nli,
            Argument("MODEL", "hub name or folder"),
        ),
        Entry(
            "path",
            "a checker trained with `factscope train-checker`, or a local NLI model folder",
            _path,
            Argument("DIR", "the folder"),
        ),
        Entry(
            "minicheck",
            "MiniCheck's RoBERTa-large / DeBERTa-v3-large classifiers or Flan-T5-large, chunked as its authors do",
            _minicheck,
            Argument("MODEL", "hub name (lytang/MiniCheck-Flan-T5-Large, ...) or folder"),
        ),
        Entry(
            "hhem",
            "Vectara's HHEM-2.1-open (T5), implemented natively: no remote code",
            _hhem,
            Argument("MODEL", "hub name (vectara/hallucination_evaluation_model) or folder"),
        ),
        Entry(
            "alignscore",
            "AlignScore base or large from its released checkpoint (nli_sp: chunked context, claim sentences)",
            _alignscore,
            Argument("CKPT", "the AlignScore-base.ckpt / AlignScore-large.ckpt file"),
        ),
        Entry(
            "llm",
            "an OpenAI-compatible chat model; see --llm-* options",
            _llm,
            Argument(
                "PROMPT",
                "minicheck: MiniCheck's Yes/No prompt (e.g. Bespoke-MiniCheck-7B on vLLM); default RefChecker's",
                False,
            ),
            needs_llm=True,
        ),
    ],
)


def __getattr__(name: str) -> str:
    """``CHECKER_SPECS``: the registry's help text, plugins included."""
    if name == "CHECKER_SPECS":
        return CHECKERS.help_text()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_checker(
    spec: str = DEFAULT_CHECKER,
    options: CheckerOptions | Mapping[str, Any] | None = None,
    *,
    llm: LLMClient | None = None,
    **settings: Any,
) -> Checker:
    """A Checker for ``spec``, built with ``options`` (a CheckerOptions, or a mapping of its fields; None: the
    defaults) and the ``settings`` given by name on top (``make_checker("embedded", device="cpu")``); an unknown
    setting, or one that this checker does not use, is refused (ConfigError). ``llm`` is the client of the
    checkers that call an LLM.

    The model checkers cut long references into segments (``max_tokens``) and decide their verdicts by
    ``relevance``, the A.3 merge, the value check (``mismatch``) and ``min_confidence`` (see
    ``factscope.checkers.segmented``); ``mode`` 'fast' is deprecated (it warns and builds
    exact mode), and ``device`` places their model (see ``CheckerOptions``).
    """
    from factscope.checkers.options import checker_options
    from factscope.core.options.validation import parameter_values, validate_options

    chosen = checker_options(options, **settings)
    validate_options(chosen, {**parameter_values(chosen), "checker": spec})
    return CHECKERS.build(spec, options=chosen, llm=llm)


def _scorer_from_folder(folder: Path, options: CheckerOptions) -> Any:
    """A trained factscope checker folder (it has a manifest.json) or a plain Hugging Face NLI model folder."""
    if not folder.is_dir():
        raise ConfigError(f"checker folder '{folder}' does not exist")
    from factscope.checkers.embedded import MANIFEST, load_embedded_scorer, read_manifest

    manifest = folder / MANIFEST
    if manifest.exists() and "method" in read_manifest(manifest):
        from factscope.hf.device import resolve_device

        return load_embedded_scorer(folder, device=resolve_device(options.device), precision=options.precision)
    if (folder / "config.json").exists():
        from factscope.hf.nli import HFNLIScorer

        if options.precision != "fp32":
            raise ConfigError(
                f"'{folder}': precision {options.precision} runs checkers trained by `factscope train-checker`, "
                "not a Hugging Face model folder; use precision fp32"
            )

        return HFNLIScorer(str(folder), batch_size=options.batch_size or MODEL_BATCH, label_order=options.label_order)
    raise ConfigError(f"'{folder}' is neither a factscope checker (manifest.json) nor a Hugging Face model (config.json)")
