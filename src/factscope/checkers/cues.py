"""Explicit contradiction cues, stacked on a checker's probabilities.

For a (premise, hypothesis) pair the cues compare the hypothesis with its best-matching evidence sentence (the
premise sentence sharing the most content words with it):
- ``number_mismatch``: both mention numbers and the hypothesis has one the sentence lacks;
- ``date_mismatch``: both mention a year or month and the hypothesis has one the sentence lacks;
- ``negation_mismatch``: one of the two is negated (odd count of not / no / never / n't ...) and the other is not;
- ``name_mismatch``: the hypothesis has a capitalised name (not sentence-initial) found nowhere in the premise;
- ``overlap``: share of the hypothesis's content words found in the evidence sentence.
A multinomial logistic regression on [log p(E), log p(N), log p(C), cues] is fitted on the validation part.
Names are found by capitalisation, not by a NER model, so the cues stay cheap on 200-token segments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from factscope.core.text import split_sentences

FEATURE_NAMES = ("number_mismatch", "date_mismatch", "negation_mismatch", "name_mismatch", "overlap")

_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)
_NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "hundred": "100",
    "thousand": "1000", "million": "1000000", "billion": "1000000000",
}
_NEGATIONS = {"not", "no", "never", "nobody", "nothing", "none", "neither", "nor", "nowhere", "without", "cannot"}
_STOPWORDS = {
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by", "from", "as", "is",
    "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "he", "she", "they",
    "we", "i", "you", "his", "her", "their", "our", "my", "your", "has", "have", "had", "do", "does", "did", "will",
    "would", "can", "could", "should", "there", "which", "who", "what", "so", "if", "than", "then", "also",
}


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if w not in _STOPWORDS and w not in _NEGATIONS}


def _numbers(text: str) -> set[str]:
    found = {n.replace(",", "") for n in _NUMBER.findall(text)}
    found |= {_NUMBER_WORDS[w] for w in _words(text) if w in _NUMBER_WORDS}
    return found


def _dates(text: str) -> set[str]:
    return set(_YEAR.findall(text)) | {w for w in _words(text) if w in _MONTHS}


def _negated(text: str) -> bool:
    words = _words(text)
    count = sum(w in _NEGATIONS or w.endswith("n't") for w in words)
    return count % 2 == 1


def _names(text: str) -> set[str]:
    """Capitalised words that do not start a sentence (a cheap stand-in for named entities)."""
    names = set()
    for sentence in split_sentences(text) or [text]:
        tokens = _WORD.findall(sentence)
        names |= {t.lower() for t in tokens[1:] if t[0].isupper() and t.lower() not in _STOPWORDS}
    return names


def best_evidence_sentence(premise: str, hypothesis: str) -> str:
    """The premise sentence sharing the most content words with the hypothesis (the first on ties)."""
    sentences = split_sentences(premise) or [premise]
    target = _content(hypothesis)
    return max(sentences, key=lambda s: len(target & _content(s)))


def cue_features(premise: str, hypothesis: str) -> np.ndarray:
    """The five cue values of one pair, in FEATURE_NAMES order."""
    evidence = best_evidence_sentence(premise, hypothesis)
    h_numbers, e_numbers = _numbers(hypothesis), _numbers(evidence)
    h_dates, e_dates = _dates(hypothesis), _dates(evidence)
    h_content = _content(hypothesis)
    return np.array(
        [
            float(bool(h_numbers and e_numbers and h_numbers - e_numbers)),
            float(bool(h_dates and e_dates and h_dates - e_dates)),
            float(_negated(hypothesis) != _negated(evidence)),
            float(bool(_names(hypothesis) - {w.lower() for w in _WORD.findall(premise)})),
            len(h_content & _content(evidence)) / len(h_content) if h_content else 1.0,
        ]
    )


def stack_inputs(probs: np.ndarray, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
    """Rows of [log p(E), log p(N), log p(C), cues...] for the stacker."""
    cues = np.array([cue_features(p, h) for p, h in zip(premises, hypotheses)]).reshape(len(premises), -1)
    return np.hstack([np.log(np.clip(probs, 1e-6, 1.0)), cues])


@dataclass
class CueStacker:
    """Multinomial logistic regression over model log-probabilities and cue features."""

    coef: np.ndarray
    intercept: np.ndarray
    feature_names: tuple[str, ...] = FEATURE_NAMES

    @classmethod
    def fit(
        cls,
        probs: np.ndarray,
        premises: Sequence[str],
        hypotheses: Sequence[str],
        labels: np.ndarray,
        seed: int = 13,
    ) -> CueStacker:
        """Fit on a validation part (never on the part that is reported)."""
        from sklearn.linear_model import LogisticRegression

        x = stack_inputs(probs, premises, hypotheses)
        model = LogisticRegression(C=1.0, max_iter=2000, random_state=seed).fit(x, labels)
        if len(model.classes_) != probs.shape[1]:
            raise ValueError("the validation part must contain every class to fit the cue stacker")
        return cls(coef=model.coef_.astype(np.float64), intercept=model.intercept_.astype(np.float64))

    def apply(self, probs: np.ndarray, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Stacked probabilities (rows sum to 1), same class order as ``probs``."""
        logits = stack_inputs(probs, premises, hypotheses) @ self.coef.T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        """Write the stacker to an .npz file."""
        np.savez(path, coef=self.coef, intercept=self.intercept, feature_names=np.array(self.feature_names))

    @classmethod
    def load(cls, path: Path) -> CueStacker:
        """Read a stacker written by ``save``."""
        with np.load(path, allow_pickle=False) as data:
            return cls(
                coef=data["coef"],
                intercept=data["intercept"],
                feature_names=tuple(str(n) for n in data["feature_names"]),
            )
