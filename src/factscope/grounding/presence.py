"""The presence model M of Truly Ground: "is the knowledge of this atomic fact in that text?".

Every model gives a score per (fact, sources) pair and a threshold turns it into present / absent
(score >= threshold). A fact against long sources is scored against sentence windows of each source and the
best window counts. By default the windows are every run of 3 consecutive sentences (stride 1, so every pair of
adjacent sentences shares a window; a shorter text is one window). ``min_window`` adds narrower windows (every
width from ``min_window`` to ``window``): a one-sentence fact then meets its sentence alone, undiluted, but
same-subject sentences also score higher against facts they do not state (see the README, grounding section, for figures).
All (fact, window) pairs of a batch are deduplicated and sorted by length before the model sees them.

Implementations: the paper's best, an MS MARCO MiniLM cross-encoder with threshold 6 (``CrossEncoderPresence``);
bi-encoder cosine with threshold 0.4 (``BiEncoderPresence``, on the packaged all-MiniLM-L6-v2); NLI entailment
probability from any checker of the check task (``NLIPresence``), on every window or on the windows closest to
the fact by cosine (``ShortlistNLIPresence``: the default, ``DEFAULT_PRESENCE``); an LLM judge
(``LLMJudgePresence``). Every model has an exact mode (every window scored) and a fast one (each fact against its
most relevant windows, stopping at the first that reaches the threshold; ``factscope.grounding.presence_rounds``).
A judgement that fails (an unparsable LLM reply) scores NaN: the fact is "unjudged",
never silently absent.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, Unpack

import numpy as np

from factscope.checkers.defaults import DEFAULT_MODE
from factscope.core.registry import Argument, Entry, Registry
from factscope.core.text import split_sentences
from factscope.grounding.presence_rounds import PresenceMode, PresenceRounds, best_in_rounds, rank_windows
from factscope.llm.reply_format import ReplyFormat

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.hf.encoders import TextEncoder
    from factscope.llm.client import LLMClient

SHORTLIST_THRESHOLD = 0.437
"""The default threshold of ``bi-nli``: the one that maximised balanced accuracy (faithful vs counterfactual facts)
on the validation groups of that evaluation."""
CROSS_ENCODER_MODEL = "cross-encoder/ms-marco-MiniLM-L-12-v2"
"""The paper's presence model (Appendix B), loaded by hub name or local path by users who have it."""


class PresenceModel(Protocol):
    """Scores (fact, sources) pairs; a fact is present when its score reaches ``threshold``."""

    name: str
    threshold: float

    def score(self, facts: Sequence[str], sources: Sequence[Sequence[str]]) -> np.ndarray: ...


def sentence_windows(
    text: str, size: int | None = 3, stride: int = 1, min_size: int | None = None
) -> list[str]:
    """Windows of ``min_size`` to ``size`` consecutive sentences, starting every ``stride`` sentences.

    ``min_size`` defaults to ``size`` (one window width). A width that covers the whole text gives the text
    itself; ``size=None`` keeps the text whole. The last window of each width always reaches the last sentence.
    Windows are returned once each, narrowest first.
    """
    if size is not None and (size < 1 or stride < 1 or (min_size is not None and not 1 <= min_size <= size)):
        raise ValueError("window sizes and stride must be at least 1, and min_size at most size")
    whole = text.strip()
    if not whole:
        return []
    if size is None:
        return [whole]
    sentences = split_sentences(text)
    windows: list[str] = []
    for width in range(size if min_size is None else min_size, size + 1):
        if width >= len(sentences):
            windows.append(whole)
            break
        starts = list(range(0, len(sentences) - width + 1, stride))
        if starts[-1] != len(sentences) - width:
            starts.append(len(sentences) - width)
        windows.extend(" ".join(sentences[start : start + width]) for start in starts)
    return list(dict.fromkeys(windows))


def decide(scores: np.ndarray, threshold: float) -> list[bool | None]:
    """present (score >= threshold), absent, or None for an unjudged (NaN) score."""
    return [None if math.isnan(value) else bool(value >= threshold) for value in scores.tolist()]


class Windowing(TypedDict, total=False):
    """How a presence model windows its sources: the keyword arguments of ``WindowedPresence`` (their defaults are
    there) that its subclasses pass on."""

    window: int | None
    stride: int
    min_window: int | None
    mode: PresenceMode


class WindowedPresence(ABC):
    """Base of the presence models: windows the sources, scores unique pairs, keeps each fact's best window.

    ``window``: sentences per window (None: each source whole), moved ``stride`` sentences at a time; ``min_window``:
    the narrowest window also scored (None: only ``window``-wide ones); ``mode`` 'fast' scores each fact against its
    most relevant windows in ``rounds``, stopping at the first that reaches the threshold."""

    name = "windowed"
    threshold = 0.0

    def __init__(
        self,
        window: int | None = 3,
        stride: int = 1,
        min_window: int | None = None,
        mode: PresenceMode = DEFAULT_MODE,
        rounds: PresenceRounds | None = None,
    ) -> None:
        if mode not in ("exact", "fast"):
            raise ValueError(f"mode must be 'exact' or 'fast', not {mode!r}")
        self.window = window
        self.stride = stride
        self.min_window = (
            min(min_window, window) if window is not None and min_window is not None else min_window
        )
        self.mode = mode
        self.rounds = (rounds or PresenceRounds()) if mode == "fast" else None

    @abstractmethod
    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Scores of unique (fact, window) pairs, in order; NaN for a failed judgement."""

    def windows(self, sources: Sequence[Sequence[str]]) -> list[list[str]]:
        """The windows of each list of sources, each window once, in source order."""
        windows_of: dict[str, list[str]] = {}
        found = []
        for texts in sources:
            for text in texts:
                if text not in windows_of:
                    windows_of[text] = sentence_windows(text, self.window, self.stride, self.min_window)
            found.append(list(dict.fromkeys(window for text in texts for window in windows_of[text])))
        return found

    def score(self, facts: Sequence[str], sources: Sequence[Sequence[str]]) -> np.ndarray:
        """Best score of each fact over the windows of its sources (in fast mode, over the windows scored; see
        ``factscope.grounding.presence_rounds``).

        NaN when windows exist but none could be judged (unjudged); -inf when the sources have no text at all
        (an empty response), so the fact is absent.
        """
        if len(facts) != len(sources):
            raise ValueError(f"got {len(facts)} facts but {len(sources)} source lists")
        windows = self.windows(sources)
        if self.rounds is not None:
            ranked = [kept or every for kept, every in zip(rank_windows(facts, windows, self.rounds.top_k), windows)]
            return best_in_rounds(self.score_pairs, facts, ranked, self.threshold, self.rounds)
        return self.best_scores(facts, windows)

    def best_scores(self, facts: Sequence[str], windows: Sequence[Sequence[str]]) -> np.ndarray:
        """Best score of each fact over all of its windows, every unique pair scored once, sorted by length."""
        pair_index: dict[tuple[str, str], int] = {}
        per_fact = [[pair_index.setdefault((fact, w), len(pair_index)) for w in texts] for fact, texts in zip(facts, windows)]
        unique = list(pair_index)
        order = sorted(range(len(unique)), key=lambda i: len(unique[i][0]) + len(unique[i][1]))
        pair_scores = np.full(len(unique), np.nan)
        if unique:
            pair_scores[order] = self.score_pairs([unique[i] for i in order])
        best = np.full(len(facts), np.nan)
        for row, indices in enumerate(per_fact):
            values = pair_scores[indices] if indices else np.array([])
            values = values[~np.isnan(values)]
            if len(values):
                best[row] = values.max()
            elif not indices:
                best[row] = -np.inf
        return best

    def present(self, facts: Sequence[str], sources: Sequence[Sequence[str]]) -> list[bool | None]:
        """Presence decisions at this model's threshold."""
        return decide(self.score(facts, sources), self.threshold)


class BiEncoderPresence(WindowedPresence):
    """Cosine of bi-encoder embeddings of fact and window; the paper's threshold 0.4 (scale -1..1)."""

    def __init__(
        self,
        model: str | None = None,
        threshold: float = 0.4,
        *,
        encoder: TextEncoder | None = None,
        **windowing: Unpack[Windowing],
    ) -> None:
        super().__init__(**windowing)
        from factscope.hf.encoders import BiEncoder

        self.encoder = encoder if encoder is not None else BiEncoder(model)
        self.name = f"bi-encoder:{self.encoder.name}"
        self.threshold = threshold

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        facts = self.encoder.encode([fact for fact, _ in pairs])
        windows = self.encoder.encode([window for _, window in pairs])
        return np.einsum("ij,ij->i", facts, windows).astype(np.float64)


class CrossEncoderPresence(WindowedPresence):
    """Raw relevance score of an MS MARCO cross-encoder for (fact as query, window as passage); threshold 6."""

    def __init__(
        self,
        model: str = CROSS_ENCODER_MODEL,
        threshold: float = 6.0,
        *,
        batch_size: int = 32,
        **windowing: Unpack[Windowing],
    ) -> None:
        super().__init__(**windowing)
        from factscope.hf.encoders import CrossEncoderScorer

        self.scorer = CrossEncoderScorer(model, batch_size=batch_size)
        self.name = f"cross-encoder:{model}"
        self.threshold = threshold

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return self.scorer.score(list(pairs))


class NLIPresence(WindowedPresence):
    """Entailment probability of the fact (hypothesis) given the window (premise), from a check-task checker.

    A checker that gives no probabilities (an LLM checker) scores 1.0 for Entailment and 0.0 otherwise; a failed
    verdict scores NaN. Default threshold 0.5.
    """

    def __init__(
        self,
        checker: Checker,
        threshold: float = 0.5,
        **windowing: Unpack[Windowing],
    ) -> None:
        super().__init__(**windowing)
        self.checker = checker
        self.name = f"nli:{getattr(checker, 'name', type(checker).__name__)}"
        self.threshold = threshold

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        from factscope.checkers.base import CheckTask
        from factscope.core.schema import Label

        verdicts = self.checker.check([CheckTask(claim=fact, references=(window,)) for fact, window in pairs])
        scores = []
        for verdict in verdicts:
            if verdict.failed or verdict.label is None and verdict.probs is None:
                scores.append(math.nan)
            elif (entailment := verdict.prob(Label.ENTAILMENT)) is not None:
                scores.append(float(entailment))
            else:
                scores.append(1.0 if verdict.label == Label.ENTAILMENT else 0.0)
        return np.array(scores, dtype=np.float64)


class ShortlistNLIPresence(WindowedPresence):
    """P(Entailment) of a check-task checker over the ``shortlist`` windows closest to the fact by bi-encoder
    cosine; the best of them counts.

    The bi-encoder finds where in a long source the fact would be stated; the checker decides whether it is
    stated there, so a fact that shares its words with the source but changes a name, a number or a polarity
    scores low. The checker reads ``shortlist`` windows per fact instead of every window.
    """

    def __init__(
        self,
        checker: Checker,
        threshold: float = SHORTLIST_THRESHOLD,
        *,
        shortlist: int = 3,
        encoder: TextEncoder | None = None,
        **windowing: Unpack[Windowing],
    ) -> None:
        super().__init__(**windowing)
        if shortlist < 1:
            raise ValueError("the shortlist holds at least one window")
        self.ranker = BiEncoderPresence(
            window=self.window, stride=self.stride, min_window=self.min_window, encoder=encoder
        )
        self.judge = NLIPresence(checker, window=None)
        self.shortlist = shortlist
        self.name = f"bi-top{shortlist}+{self.judge.name}"
        self.threshold = threshold

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return self.judge.score_pairs(pairs)

    def score(self, facts: Sequence[str], sources: Sequence[Sequence[str]]) -> np.ndarray:
        """Best entailment probability of each fact over its shortlisted windows (-inf with no source text).

        In fast mode the shortlist is the same, read closest window first, one window per round, a fact stopping
        at the first window that reaches the threshold: its decision is always exact mode's."""
        if len(facts) != len(sources):
            raise ValueError(f"got {len(facts)} facts but {len(sources)} source lists")
        encoder = self.ranker.encoder
        shortlisted: list[list[str]] = []
        for fact, windows in zip(facts, self.windows(sources)):
            if len(windows) <= self.shortlist:
                shortlisted.append(windows)
                continue
            cosine = encoder.encode(windows) @ encoder.encode([fact])[0]
            best = np.argsort(-cosine, kind="stable")[: self.shortlist]
            shortlisted.append([windows[i] for i in best])
        if self.rounds is not None:
            one_by_one = PresenceRounds(top_k=self.shortlist, first_round=1, round_size=1)
            return best_in_rounds(self.judge.score_pairs, facts, shortlisted, self.threshold, one_by_one)
        return self.judge.score(facts, shortlisted)


_VERDICT = re.compile(r"^\W*(true|false)\b", re.IGNORECASE)
JUDGEMENT_FORMAT = ReplyFormat.one_of(["True", "False"])
"""The presence judge's reply: True or False."""


def parse_judgement(reply: str) -> bool | None:
    """Read the judge's 'True' / 'False' (first word, any case, punctuation around it ignored); None otherwise."""
    match = _VERDICT.match(reply.strip())
    if match is None:
        return None
    return match.group(1).lower() == "true"


class LLMJudgePresence(WindowedPresence):
    """An LLM asked whether the fact is supported by the text (prompt ``ground_presence``): True 1.0, False 0.0.

    By default the judge sees each source whole (``window=None``); unparsable replies score NaN (unjudged) and
    are kept in ``failures`` with the raw reply.
    """

    def __init__(
        self,
        client: LLMClient,
        threshold: float = 0.5,
        *,
        window: int | None = None,
        stride: int = 1,
        min_window: int | None = None,
        mode: PresenceMode = DEFAULT_MODE,
        prompt: str = "ground_presence",
    ) -> None:
        super().__init__(window, stride, min_window, mode)
        from factscope.core.prompts import load_prompt

        self.client = client
        self.template = load_prompt(prompt)
        self.name = f"llm-judge:{client.config.model}"
        self.threshold = threshold
        self.failures: list[dict[str, str | None]] = []

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        messages = [
            [{"role": "user", "content": self.template.format(text=window, fact=fact)}]
            for fact, window in pairs
        ]
        replies = self.client.chat_many(messages, reply_format=JUDGEMENT_FORMAT)
        scores = []
        for (fact, _), reply in zip(pairs, replies):
            verdict = None if reply.failed else parse_judgement(reply.text or "")
            if verdict is None:
                self.failures.append(
                    {"fact": fact, "raw": reply.text, "error": reply.error or "not True / False"}
                )
                scores.append(math.nan)
            else:
                scores.append(1.0 if verdict else 0.0)
        return np.array(scores, dtype=np.float64)


def _bi(argument: str | None, *, llm: object = None, **options: Any) -> PresenceModel:
    return BiEncoderPresence(argument, **options)


def _cross(argument: str | None, *, llm: object = None, **options: Any) -> PresenceModel:
    return CrossEncoderPresence(argument or CROSS_ENCODER_MODEL, **options)


def _nli(argument: str | None, *, llm: LLMClient | None = None, **options: Any) -> PresenceModel:
    from factscope.checkers.registry import make_checker

    return NLIPresence(make_checker(argument or "embedded", llm=llm), **options)


def _nli_needs_llm(argument: str | None) -> bool:
    from factscope.checkers.registry import CHECKERS

    return CHECKERS.needs_llm(argument or "embedded")


def _bi_nli(argument: str | None, *, llm: LLMClient | None = None, **options: Any) -> PresenceModel:
    from factscope.checkers.registry import make_checker

    return ShortlistNLIPresence(make_checker(argument or "embedded", llm=llm), **options)


def _llm_judge(argument: None, *, llm: LLMClient, **options: Any) -> PresenceModel:
    return LLMJudgePresence(llm, **options)


PRESENCE_MODELS: Registry[PresenceModel] = Registry(
    "presence model",
    "factscope.presence",
    [
        Entry(
            "bi",
            "bi-encoder cosine, threshold 0.4",
            _bi,
            Argument("MODEL", "a sentence-transformers model; default the packaged all-MiniLM-L6-v2", False),
        ),
        Entry(
            "cross",
            "cross-encoder relevance score, threshold 6; the Truly Ground paper's best",
            _cross,
            Argument("MODEL", f"a cross-encoder, hub name or folder; default {CROSS_ENCODER_MODEL}", False),
        ),
        Entry(
            "nli",
            "entailment probability of a check-task checker, threshold 0.5",
            _nli,
            Argument("CHECKER", "a checker spec such as embedded (the default) or nli:MODEL", False),
            needs_llm=_nli_needs_llm,
        ),
        Entry(
            "bi-nli",
            f"entailment probability of a check-task checker on the 3 windows closest by MiniLM cosine, "
            f"threshold {SHORTLIST_THRESHOLD:g}; the default",
            _bi_nli,
            Argument("CHECKER", "a checker spec such as embedded (the default) or nli:MODEL", False),
            needs_llm=_nli_needs_llm,
        ),
        Entry("llm", "an LLM judge, threshold 0.5", _llm_judge, needs_llm=True),
    ],
)


def __getattr__(name: str) -> str:
    """``PRESENCE_SPECS``: the registry's help text, plugins included."""
    if name == "PRESENCE_SPECS":
        return PRESENCE_MODELS.help_text()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_presence(
    spec: str,
    *,
    threshold: float | None = None,
    window: int | None = None,
    stride: int = 1,
    min_window: int | None = None,
    mode: PresenceMode = DEFAULT_MODE,
    llm: LLMClient | None = None,
) -> PresenceModel:
    """Build a presence model from a spec of ``PRESENCE_MODELS`` (plugins in the group ``factscope.presence``).

    ``bi`` / ``bi:MODEL`` (offline default: packaged all-MiniLM-L6-v2, threshold 0.4), ``cross`` /
    ``cross:MODEL`` (default ``cross-encoder/ms-marco-MiniLM-L-12-v2``, threshold 6), ``nli:CHECKER`` (a
    check-task checker spec such as ``nli:embedded`` or ``nli:nli:MODEL``, threshold 0.5), ``llm`` (an LLM
    judge, threshold 0.5). ``window``: sentences per window, 0 for whole sources, None for the model's default
    (3 for the encoders and NLI, whole sources for the LLM judge); ``min_window``: the narrowest window (default: only ``window``-wide windows).
    ``mode`` 'fast' scores each fact against its most relevant windows only, stopping at the first that reaches
    the threshold (``factscope.grounding.presence_rounds``).
    A factory is called as ``factory(argument, llm=llm, stride=..., [threshold=..., window=..., min_window=...,
    mode=...])``, the bracketed options only when given (``window`` None then means whole sources; ``mode`` only
    when not 'exact').
    """
    options: dict[str, Any] = {"stride": stride}
    if mode != "exact":
        options["mode"] = mode
    if min_window is not None:
        options["min_window"] = min_window
    if window is not None:
        options["window"] = window or None
    if threshold is not None:
        options["threshold"] = threshold
    return PRESENCE_MODELS.build(spec, llm=llm, **options)
