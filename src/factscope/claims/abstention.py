"""Abstentions: sentences and responses that decline to answer rather than state something.

RefChecker counts a response with no checkable claims as an abstention (eq. 1): it enters the abstain rate
and is left out of the label and hallucination rates. An extractor, LLM or offline, may still turn "I don't
know who won" or "The references do not say when" into a claim, which a checker then finds Neutral: a
hallucination that is not one. :class:`AbstentionDetector` finds such sentences so that the check task can
drop them before (or after) extraction.

A sentence abstains when it

- says the speaker cannot answer: "I don't know.", "I do not have information about ...", "I'm not sure.",
  "I cannot answer that.", "I could not find ...", "As an AI language model, ...", "I'm sorry, but ...";
- says the sources are silent: "The references do not say who won.", "The context does not mention ...",
  "The passages contain no information about ...", "There is no information about ...", "There is not enough
  information to ...", "The answer cannot be determined from the documents.";
- is nothing but a non-answer: "No answer.", "Unknown.", "N/A", "Not mentioned.", "Insufficient information.".

An opening such as "Based on the references," or "Unfortunately," is read past. A sentence that says something
about the world is a claim even when it holds "not" or "unknown": "The cause of the fire is unknown." states
what is known about the fire, and references can support or contradict it, so it is checked; only "Unknown."
and "The answer is unknown." abstain. "There is no evidence that ..." and "There is no record of ..." are claims
for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factscope.claims.base import Extractor
from factscope.core.schema import Claim, Extraction
from factscope.core.text import sentence_spans

_SOURCE = (
    r"(?:(?:the|these|those|this|that|your|my)\s+)?(?:(?:provided|given|supplied|available|above|retrieved"
    r"|following|cited|reference)\s+)?(?:references?|context|contexts|passages?|documents?|sources?|texts?"
    r"|articles?|excerpts?|snippets?|search\s+results|materials?|training\s+data|knowledge(?:\s+base)?"
    r"|information(?:\s+(?:provided|given))?)"
)
"""Words for what the answer was to be drawn from: "the references", "the provided context", "these passages"."""

_SILENT = (
    r"(?:do|does|did)\s*(?:not|n't)\s+(?:\w+\s+)?(?:say|state|mention|contain|provide|specify|include|give"
    r"|indicate|answer|discuss|address|cover|tell|describe|offer|have|reveal|list|explain|identify|name"
    r"|clarify|show|detail)"
    r"|(?:fail|fails|failed)\s+to\s+\w+"
    r"|(?:say|says|said|contain|contains|provide|provides|include|includes|give|gives|offer|offers|mention"
    r"|mentions|have|has|hold|holds)\s+(?:no|nothing)\b"
    r"|(?:is|are)\s+(?:silent|unclear)\b"
    r"|(?:lack|lacks)\b"
)
"""What silent sources do: "do not say", "doesn't mention", "contain no", "say nothing", "are silent"."""

_KNOWLEDGE = r"(?:information|data|knowledge|details?|context|idea|access|answer|records?|way|means|clue)"

_DECLINED = (
    r"(?:answer|say|tell|determine|find|provide|confirm|verify|predict|know|help|access|give|locate|identify"
    r"|speak|comment|be\s+(?:sure|certain)|browse|assist|offer)"
)
"""What a speaker says they cannot do: "answer", "say", "find", "be sure", ..."""

_I_AM = r"i(?:\s+am|'m)"

_SPEAKER = (
    r"i\s+(?:do|did)\s*(?:not|n't)\s+(?:(?:really|actually)\s+)?(?:know|find|see|recall|remember)\b"
    r"|i\s+(?:do|did)\s*(?:not|n't)\s+(?:have|possess)\s+(?:\w+\s+){0,2}?" + _KNOWLEDGE + r"\b"
    r"|i\s+(?:cannot|can't|can\s+not|could\s*(?:not|n't)|was\s+(?:unable|not\s+able)\s+to|won't\s+be\s+able\s+to)"
    r"\s+(?:\w+\s+)?" + _DECLINED + r"\b"
    r"|" + _I_AM + r"\s+(?:unable|not\s+able)\s+to\s+(?:\w+\s+)?" + _DECLINED + r"\b"
    r"|" + _I_AM + r"\s+(?:not\s+(?:sure|certain|aware)|unsure|uncertain|unaware|afraid\s+(?:i|that|not|there)\b)"
    r"|i\s+have\s+no\s+" + _KNOWLEDGE + r"\b"
    r"|i\s+(?:apologi[sz]e|regret)\b"
    r"|as\s+an?\s+(?:ai|artificial\s+intelligence|language\s+model|large\s+language\s+model|assistant)\b"
)
"""The speaker declines: "I don't know", "I cannot answer", "I'm not sure", "I have no information"."""

_NO_INFORMATION = (
    r"(?:there\s+(?:is|are|was|were)|there's)\s+(?:no|not\s+enough|insufficient|(?:not|n't)\s+(?:any|enough))\s+"
    r"(?:(?:relevant|specific|available|further|sufficient|clear)\s+)?"
    r"(?:information|data|details?|mention|answer|way\s+to\s+(?:know|tell|say|determine|answer))\b"
    r"|(?:there\s+is|there's)\s+nothing\s+(?:in|about|on)\b"
    r"|(?:no|not\s+enough|insufficient)\s+(?:relevant\s+)?(?:information|data|details|answer)\s+(?:is\s+|was\s+)?"
    r"(?:available|provided|given|found|mentioned|to\s+\w+|about|on|regarding|in)\b"
    r"|(?:the\s+)?answer\s+(?:is\s+(?:unknown|not\s+(?:known|available|provided|given|stated|mentioned|clear))"
    r"|(?:cannot|can't|can\s+not)\s+be\s+\w+)"
    r"|(?:this|that|it|the\s+question)\s+(?:cannot|can't|can\s+not)\s+be\s+(?:answered|determined)\b"
    r"|it(?:\s+is|'s)\s+(?:not\s+(?:possible|clear)|impossible|unclear)\s+(?:to\s+(?:say|tell|know|determine|answer)\s+)?"
    r"(?:\w+\s+){0,8}?(?:from|based\s+on|given|in|according\s+to)\s+" + _SOURCE
)
"""No information to be had: "There is no information about ...", "No information is available"."""

_LEAD_IN = (
    r"^\W*(?:(?:(?:i(?:\s+am|'m)\s+)?sorry|unfortunately|regrettably|apologies|however|well|hmm|ok|okay)\W+(?:but\W+)?)?"
    r"(?:(?:based\s+on|according\s+to|from|given|in|with)\s+" + _SOURCE + r"[^,]{0,60},\s*)?"
    r"(?:(?:sorry|unfortunately|but)\W+)?"
)
"""What may open an abstaining sentence: an apology, "Unfortunately,", "Based on the provided context,"."""

ABSTAINING = re.compile(
    _LEAD_IN + r"(?:" + _SPEAKER + r"|" + _SOURCE + r"\s+(?:" + _SILENT + r")|" + _NO_INFORMATION + r")",
    re.IGNORECASE,
)
"""The opening of a sentence that declines to answer."""

NON_ANSWER = re.compile(
    r"^\W*(?:no\s+answer|unknown|unanswerable|n/?a|not\s+(?:known|mentioned|specified|stated|available"
    r"|provided|given|found)|(?:no|not\s+enough|insufficient)\s+(?:information|data|context)(?:\s+\w+)?"
    r"|(?:i\s+)?(?:don't|do\s+not)\s+know|no\s+idea|not\s+sure|cannot\s+(?:be\s+)?(?:determined|answered)"
    r"|(?:i'm\s+|i\s+am\s+)?sorry|apologies|thanks?(?:\s+you)?)\W*$",
    re.IGNORECASE,
)
"""A whole sentence that is only a non-answer or a courtesy: "No answer.", "Unknown.", "N/A", "Sorry."."""

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})


def is_abstaining(sentence: str) -> bool:
    """Whether ``sentence`` declines to answer ("I don't know.", "The references do not say who won.")."""
    text = " ".join(sentence.translate(_APOSTROPHES).split())
    return bool(text) and (ABSTAINING.match(text) is not None or NON_ANSWER.match(text) is not None)


@dataclass(frozen=True)
class Screening:
    """What the detector found in one response: the ids of its abstaining sentences (numbered as every
    extractor numbers them, by :func:`factscope.core.text.sentence_spans`) and whether every sentence abstains."""

    abstaining: tuple[int, ...]
    abstains: bool


class AbstentionDetector:
    """Finds the sentences of a response that decline to answer, and the claims drawn only from them.

    A response abstains when it has at least one sentence and every sentence abstains (see
    :func:`is_abstaining`); such a response needs no extraction at all. A claim is dropped when every sentence
    it was drawn from abstains, or when its own text abstains (an LLM extractor that turns "the references do
    not say who won" into a claim).

    Example::

        detector = AbstentionDetector()
        detector.screen("I don't know.").abstains                        # True
        detector.screen("Alice won. I don't know when.").abstaining      # (1,)
    """

    def screen(self, response: str) -> Screening:
        """The abstaining sentences of ``response`` and whether all of its sentences abstain."""
        sentences = [response[span.start : span.end] for span in sentence_spans(response)]
        abstaining = tuple(index for index, sentence in enumerate(sentences) if is_abstaining(sentence))
        return Screening(abstaining=abstaining, abstains=bool(sentences) and len(abstaining) == len(sentences))

    def answering_claims(self, claims: Sequence[Claim], screening: Screening) -> list[Claim]:
        """The claims that state something: those drawn from at least one answering sentence and whose own
        text does not abstain."""
        silent = set(screening.abstaining)
        return [
            claim
            for claim in claims
            if not (claim.sentence_ids and silent.issuperset(claim.sentence_ids)) and not is_abstaining(claim.render())
        ]


ANSWERING = Screening(abstaining=(), abstains=False)
"""The screening of a response when no detector is used: every sentence answers."""


def extract_answers(
    extractor: Extractor,
    texts: Sequence[str],
    questions: Sequence[str | None],
    detector: AbstentionDetector | None,
) -> list[tuple[Extraction, Screening]]:
    """Extract the claims of each text with ``extractor``, less what abstains, with the detector's screening.

    A text that abstains as a whole is not given to the extractor (no LLM call is spent on it) and gets an
    Extraction with no claims; from the other texts, the claims drawn only from abstaining sentences are
    dropped. Failed extractions are kept as they are. With no ``detector``, this is ``extractor.extract``.
    """
    screenings = [detector.screen(text) if detector else ANSWERING for text in texts]
    answering = [index for index, screening in enumerate(screenings) if not screening.abstains]
    extracted = (
        extractor.extract([texts[i] for i in answering], [questions[i] for i in answering]) if answering else []
    )
    extractions = [Extraction() for _ in texts]
    for index, extraction in zip(answering, extracted):
        if detector is not None and not extraction.failed:
            claims = detector.answering_claims(extraction.claims, screenings[index])
            extraction = extraction.model_copy(update={"claims": claims})
        extractions[index] = extraction
    return list(zip(extractions, screenings))
