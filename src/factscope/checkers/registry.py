"""The checker registry: checkers by the short spec names the CLI and the tasks use, plus plugins.

Plugins register in the entry-point group ``factscope.checkers`` (see factscope.core.registry); a factory is
called as ``factory(argument, llm=..., max_tokens=..., batch_size=..., similarity_threshold=..., label_order=...,
llm_mode=..., **options)``; the options include ``llm_passages`` (the LLM checker's passage layout) and the
segmented checker's ``relevance``, ``min_relevance``, ``min_confidence`` and ``mismatch``.
``CHECKER_SPECS`` is the registry's help text, made on first access so that plugins are listed and imported only
when someone asks.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from factscope.checkers.base import Checker, PairScorer
from factscope.checkers.defaults import (
    DEFAULT_CHECKER,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MISMATCH,
    DEFAULT_RELEVANCE,
)
from factscope.core.errors import ConfigError
from factscope.core.registry import Argument, Entry, Registry

if TYPE_CHECKING:
    from factscope.checkers.claim_decision import ClaimDecision
    from factscope.checkers.mismatch import MismatchKind

MismatchSetting = Literal["values", "all", "off"]
"""Which values of a claim the value check compares with its evidence: ``values`` (numbers, dates, quantities),
``all`` (also named entities) or ``off``."""

MISMATCH_KINDS: dict[str, tuple[MismatchKind, ...]] = {
    "values": ("number", "date", "quantity"),
    "all": ("number", "date", "quantity", "entity"),
    "off": (),
}
"""The kinds each setting checks. ``all`` is the default: with the shipped checker it raises balanced accuracy on
SummEdits' validation groups by 0.02 and on the hand-written hard pairs by 0.005, costs Factcheck-GPT 0.007, and
catches every changed number, date and name of the project's counterfactual pairs
(benchmarks/results/checker_variants.json)."""


def _segmented(
    scorer: PairScorer,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    name: str | None = None,
    relevance: Literal["lexical", "off"] = DEFAULT_RELEVANCE,
    min_relevance: float | None = None,
    min_confidence: float = 0.0,
    mismatch: MismatchSetting = DEFAULT_MISMATCH,
    mode: Literal["exact", "fast"] = "exact",
    threshold: float | None = None,
    window_sentences: int | None = None,
    min_window_sentences: int | None = None,
    exact_scoring: Literal["decisive", "every"] = "decisive",
    decision: str | None = None,
    **_: Any,
) -> Checker:
    """A SegmentedChecker over ``scorer`` with the decision settings; ``mismatch`` picks the value check,
    ``threshold`` the label rule (None: argmax; else P(Entailment) >= threshold, see ``checkers.decision``) and
    ``window_sentences`` the layout (None or 0: ``max_tokens`` segments; k: windows of k sentences, and with
    ``min_window_sentences`` j, of every width from j to k) and ``decision`` the claim decision (see
    ``_claim_decision``)."""
    from factscope.checkers.decision import LabelDecision
    from factscope.checkers.relevance import DEFAULT_MIN_RELEVANCE
    from factscope.checkers.segmented import SegmentedChecker

    if mismatch not in MISMATCH_KINDS:
        raise ValueError(f"mismatch must be one of {', '.join(MISMATCH_KINDS)}, not {mismatch!r}")
    if min_window_sentences is not None and not window_sentences:
        raise ConfigError("`min_window_sentences` needs sentence windows: give `window_sentences` too")
    check = None
    if MISMATCH_KINDS[mismatch]:
        from factscope.checkers.mismatch import find_mismatch

        check = partial(find_mismatch, kinds=MISMATCH_KINDS[mismatch])
    return SegmentedChecker(
        scorer,
        max_tokens=max_tokens,
        window_sentences=window_sentences or 0,
        min_window_sentences=min_window_sentences,
        name=name,
        relevance=relevance,
        min_relevance=DEFAULT_MIN_RELEVANCE if min_relevance is None else min_relevance,
        min_confidence=min_confidence,
        mismatch=check,
        mode=mode,
        decision=LabelDecision(threshold),
        exact_scoring=exact_scoring,
        claim_decision=_claim_decision(decision, threshold),
    )


def _claim_decision(decision: str | None, threshold: float | None) -> ClaimDecision | None:
    """The claim decision saved at ``decision`` (``factscope eval-checker --fit-decision``), none for None or
    'off'; a ``threshold`` as well is refused (the claim decision replaces it)."""
    from factscope.checkers.claim_decision import ClaimDecision

    if decision in (None, "off"):
        return None
    if threshold is not None:
        raise ConfigError("give either a `threshold` or a claim `decision`, not both: the claim decision replaces it")
    return ClaimDecision.load(decision)


def _embedded(argument: None, *, device: str = "cpu", **options: Any) -> Checker:
    from factscope.checkers.embedded import load_embedded_scorer
    from factscope.hf.device import resolve_device

    scorer = load_embedded_scorer(device=resolve_device(device))
    return _segmented(scorer, **_checker_defaults(scorer, options), name="embedded")


def _mpnet(argument: None, *, device: str = "cpu", **options: Any) -> Checker:
    from factscope.checkers.embedded import load_embedded_scorer, mpnet_checker_dir
    from factscope.hf.device import resolve_device

    scorer = load_embedded_scorer(mpnet_checker_dir(), device=resolve_device(device))
    return _segmented(scorer, **_checker_defaults(scorer, options), name="mpnet")


ACCURATE_RENAMED = (
    "the checker 'accurate' is now called 'mpnet': it is not more accurate than the default on LLM outputs "
    "checked against their sources (see 'Choosing a checker' in the docs); use the checker 'mpnet'"
)
"""The warning of the checker's former name."""


def _accurate(argument: None, **options: Any) -> Checker:
    import warnings

    from factscope.core.errors import FactscopeWarning

    warnings.warn(ACCURATE_RENAMED, FactscopeWarning, stacklevel=2)
    return _mpnet(argument, **options)


def _cascade(argument: str, **options: Any) -> Checker:
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
    return CascadeChecker(CHECKERS.build(first, **options), CHECKERS.build(second, **options), band)


def _checker_defaults(scorer: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with the layout and threshold a factscope checker's manifest names (its ``inference``) where
    the caller left them unset: the settings the checker was calibrated with. The manifest's narrowest window
    applies only with its own window width (a caller who sets ``window_sentences`` gets that one width unless they
    set ``min_window_sentences`` too). References read whole (``max_tokens=0``) keep that layout: windows need a
    token budget."""
    inference = getattr(scorer, "manifest", {}).get("inference", {})
    chosen = dict(options)
    settings = ("threshold",) if chosen.get("max_tokens") == 0 else ("window_sentences", "threshold")
    for setting in settings:
        if chosen.get(setting) is None and setting in inference:
            chosen[setting] = inference[setting]
    if (
        "window_sentences" in settings
        and options.get("window_sentences") is None
        and chosen.get("min_window_sentences") is None
        and "min_window_sentences" in inference
    ):
        chosen["min_window_sentences"] = inference["min_window_sentences"]
    return chosen


def _nli(argument: str, *, batch_size: int = 32, label_order: list[str] | None = None, **options: Any) -> Checker:
    from factscope.hf.nli import HFNLIScorer

    return _segmented(HFNLIScorer(argument, batch_size=batch_size, label_order=label_order), **options)


def checker_from_folder(
    folder: str | Path,
    *,
    batch_size: int = 32,
    label_order: list[str] | None = None,
    device: str = "cpu",
    **options: Any,
) -> Checker:
    """The checker in ``folder``: a factscope checker (its manifest's layout and threshold unless ``options`` set
    them; placed on ``device``) or a Hugging Face NLI model folder. The ``options`` are ``make_checker``'s; this
    is what ``path:DIR`` builds and what a checker package (``factscope package-checker``) calls."""
    scorer = _scorer_from_folder(Path(folder), batch_size, label_order, device)
    return _segmented(scorer, **_checker_defaults(scorer, options))


def _path(argument: str, **options: Any) -> Checker:
    return checker_from_folder(argument, **options)


def _judge(scorer: Any, chunk_tokens: int, threshold: float | None, options: dict[str, Any]) -> Checker:
    """A segmented checker over a published judge: its authors' chunk size (``chunk_tokens``; 0: each reference
    whole) and threshold (0.5) unless ``threshold`` is given."""
    from factscope.checkers.decision import TWO_WAY_THRESHOLD

    if options.get("window_sentences") or options.get("min_window_sentences"):
        raise ConfigError(
            "the published judges chunk references as their authors do; `window_sentences` and "
            "`min_window_sentences` apply to the embedded, nli: and path: checkers"
        )
    chosen = TWO_WAY_THRESHOLD if threshold is None else threshold
    return _segmented(scorer, **{**options, "max_tokens": chunk_tokens, "threshold": chosen})


def _minicheck(
    argument: str, *, batch_size: int = 16, device: str = "cpu", threshold: float | None = None, **options: Any
) -> Checker:
    from factscope.hf.device import resolve_device
    from factscope.hf.minicheck import MiniCheckScorer

    scorer = MiniCheckScorer(argument, batch_size=batch_size, device=resolve_device(device))
    return _judge(scorer, scorer.chunk_tokens, threshold, options)


def _hhem(
    argument: str, *, batch_size: int = 16, device: str = "cpu", threshold: float | None = None, **options: Any
) -> Checker:
    from factscope.hf.device import resolve_device
    from factscope.hf.hhem import HHEMScorer

    return _judge(HHEMScorer(argument, batch_size=batch_size, device=resolve_device(device)), 0, threshold, options)


def _alignscore(
    argument: str, *, batch_size: int = 16, device: str = "cpu", threshold: float | None = None, **options: Any
) -> Checker:
    from factscope.hf.alignscore import AlignScoreScorer
    from factscope.hf.device import resolve_device

    scorer = AlignScoreScorer(argument, batch_size=batch_size, device=resolve_device(device))
    return _judge(scorer, 0, threshold, options)


def _similarity(argument: str | None, *, similarity_threshold: float = 0.7, **_: Any) -> Checker:
    from factscope.checkers.similarity import SimilarityChecker
    from factscope.hf.encoders import BiEncoder

    return SimilarityChecker(BiEncoder(argument), threshold=similarity_threshold)


def _llm(
    argument: str | None,
    *,
    llm: Any,
    llm_mode: Literal["single", "joint"] = "joint",
    llm_passages: Literal["each", "together", "refchecker"] = "each",
    **_: Any,
) -> Checker:
    if argument == "minicheck":
        from factscope.checkers.minicheck_llm import MiniCheckLLMChecker

        return MiniCheckLLMChecker(llm)
    if argument is not None:
        raise ConfigError(f"unknown prompt '{argument}' of the llm checker; use llm (RefChecker's) or llm:minicheck")
    from factscope.checkers.llm import LLMChecker

    return LLMChecker(llm, mode=llm_mode, passages=llm_passages)


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
    *,
    llm: Any = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    batch_size: int = 32,
    similarity_threshold: float = 0.7,
    label_order: list[str] | None = None,
    llm_mode: str = "joint",
    relevance: str = DEFAULT_RELEVANCE,
    min_relevance: float | None = None,
    min_confidence: float = 0.0,
    mismatch: MismatchSetting = DEFAULT_MISMATCH,
    **options: Any,
) -> Checker:
    """A Checker for ``spec``; model checkers are wrapped to segment long references (``max_tokens``).

    The model checkers' verdicts are decided by ``relevance`` ('lexical': a segment counts only when it shares at
    least ``min_relevance`` of the claim's content words; None: the calibrated default; 'off'), the A.3 merge,
    the value check (``mismatch``) and ``min_confidence`` (see ``factscope.checkers.segmented``); ``mode``
    'fast' scores each claim only against its most relevant segments (``factscope.checkers.pruning``), and
    ``device`` ('auto', 'cpu' or 'cuda') places the embedded checker; other checkers ignore these settings.
    """
    return CHECKERS.build(
        spec,
        llm=llm,
        max_tokens=max_tokens,
        batch_size=batch_size,
        similarity_threshold=similarity_threshold,
        label_order=label_order,
        llm_mode=llm_mode,
        relevance=relevance,
        min_relevance=min_relevance,
        min_confidence=min_confidence,
        mismatch=mismatch,
        **options,
    )


def _scorer_from_folder(folder: Path, batch_size: int, label_order: list[str] | None, device: str) -> Any:
    """A trained factscope checker folder (it has a manifest.json) or a plain Hugging Face NLI model folder."""
    if not folder.is_dir():
        raise ConfigError(f"checker folder '{folder}' does not exist")
    from factscope.checkers.embedded import MANIFEST, load_embedded_scorer, read_manifest

    manifest = folder / MANIFEST
    if manifest.exists() and "method" in read_manifest(manifest):
        from factscope.hf.device import resolve_device

        return load_embedded_scorer(folder, device=resolve_device(device))
    if (folder / "config.json").exists():
        from factscope.hf.nli import HFNLIScorer

        return HFNLIScorer(str(folder), batch_size=batch_size, label_order=label_order)
    raise ConfigError(f"'{folder}' is neither a factscope checker (manifest.json) nor a Hugging Face model (config.json)")
