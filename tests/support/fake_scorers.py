"""Transparent pair scorers and checkers for tests: their verdicts can be read off the text."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from factscope.checkers.base import CheckTask
from factscope.checkers.options import CheckerOptions
from factscope.core.schema import LABELS, Label, Verdict

WORD = re.compile(r"\w+")


class KeywordScorer:
    """A transparent test model: 'not X' in the premise contradicts X; X contained entails; else neutral."""

    name = "keyword"

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, premises, hypotheses):
        self.calls.append(list(zip(premises, hypotheses)))
        rows = []
        for premise, hypothesis in zip(premises, hypotheses):
            key = hypothesis.lower().rstrip(".")
            if f"not {key}" in premise.lower():
                rows.append([0.1, 0.1, 0.8])
            elif key in premise.lower():
                rows.append([0.9, 0.05, 0.05])
            else:
                rows.append([0.1, 0.8, 0.1])
        return np.array(rows)


def plain_options(**settings: Any) -> CheckerOptions:
    """CheckerOptions of ``settings`` with the value check off: a stand-in scorer's labels as it gives them."""
    return CheckerOptions(mismatch="off", **settings)


class ValueInSentence:
    """A test checker: the sentence entails 'relation: value' when it contains the value."""

    name = "value-in-sentence"

    def __init__(self, fail_on: str | None = None):
        self.fail_on = fail_on
        self.calls = 0

    def check(self, tasks):
        self.calls += 1
        out = []
        for task in tasks:
            value = task.claim.split(": ", 1)[1].lower()
            if self.fail_on and self.fail_on in value:
                out.append(Verdict(label=None, failed=True, error="scripted"))
            else:
                entailed = value in task.references[0].lower()
                out.append(Verdict(label=Label.ENTAILMENT if entailed else Label.NEUTRAL))
        return out


class WordChecker:
    """A transparent rule checker for composing tests: every claim word in the premise -> (0.9, 0.1, 0);
    a claim that shares a year-like number with none of the premise's numbers -> (0.1, 0.2, 0.7);
    otherwise (0.2, 0.7, 0.1). Records every task it sees."""

    name = "word-rule"

    def __init__(self) -> None:
        self.tasks: list[CheckTask] = []

    def check(self, tasks):
        self.tasks.extend(tasks)
        verdicts = []
        for task in tasks:
            claim = set(WORD.findall(task.claim.lower()))
            premise = set(WORD.findall(task.references[0].lower()))
            numbers_claim = {w for w in claim if w.isdigit()}
            numbers_premise = {w for w in premise if w.isdigit()}
            if claim <= premise:
                probs = (0.9, 0.1, 0.0)
            elif numbers_claim and numbers_premise and not numbers_claim & numbers_premise:
                probs = (0.1, 0.2, 0.7)
            else:
                probs = (0.2, 0.7, 0.1)
            verdicts.append(Verdict(label=LABELS[int(np.argmax(probs))], probs=probs))
        return verdicts


class Entails:
    """A checker that finds every claim supported."""

    name = "entails"

    def check(self, tasks):
        return [Verdict(label=Label.ENTAILMENT) for _ in tasks]
