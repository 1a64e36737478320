"""Agreement with human labels (RefChecker section 5 and appendix C).

Human annotations come in RefChecker's layout: a JSON list of ``{id, response, <model>_response_kg:
[{triplet: [s, p, o], human_label}]}``, joined by ``id`` with a check-input file that supplies the question and
references. Two modes: ``checker`` checks the annotated triplets themselves (claim-level agreement of the
checker alone); ``pipeline`` extracts claims anew and compares response-level hallucination rates.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from factscope.checkers.base import Checker, CheckTask
from factscope.claims.base import Extractor
from factscope.core.errors import InputError
from factscope.core.fields import Identifier
from factscope.core.io import parse_located, read_json_records
from factscope.core.schema import LABELS, Claim, Label, Record
from factscope.metrics import agreement
from factscope.metrics.hallucination import summarize_response
from factscope.refchecker.task import check


class HumanTriplet(BaseModel):
    """One annotated claim-triplet."""

    triplet: tuple[str, str, str]
    label: Label


class HumanResponse(BaseModel):
    """One annotated response of one model."""

    id: str
    model: str
    response: str
    triplets: list[HumanTriplet] = Field(default_factory=list)
    excluded: int = 0

    @property
    def hallucination_rate(self) -> float | None:
        """Share of Neutral + Contradiction among the labelled triplets (None with no triplets)."""
        if not self.triplets:
            return None
        return sum(t.label != Label.ENTAILMENT for t in self.triplets) / len(self.triplets)


RESPONSE_KG = "<model>_response_kg"
"""How errors name the annotated-triplets field, whose key carries the model's name (``gpt4_response_kg``)."""


class HumanAnnotationInput(BaseModel):
    """One record of a RefChecker human-annotation file as written; the triplets sit under
    ``<model>_response_kg`` (or ``triplets``), each ``{triplet: [s, p, o], human_label}``."""

    model_config = ConfigDict(strict=True)

    id: Identifier
    response: str | None = None
    response_kg: list[Any] | None = Field(validation_alias=RESPONSE_KG)

    @model_validator(mode="before")
    @classmethod
    def _find_response_kg(cls, data: Any) -> Any:
        """Read the first ``*_response_kg`` (or ``triplets``) field as the annotated triplets."""
        if type(data) is not dict:
            return data
        key = next((key for key in data if key.endswith("_response_kg") or key == "triplets"), None)
        return data if key is None else {**data, RESPONSE_KG: data[key]}


def load_human_annotations(path: str | Path, model: str | None = None) -> tuple[list[HumanResponse], list[InputError]]:
    """Read a RefChecker human-annotation file; labels other than E / N / C (e.g. bad triplets) are excluded."""
    path = Path(path)
    model = model or path.stem
    responses: list[HumanResponse] = []
    problems: list[InputError] = []
    for line, item in read_json_records(path):
        try:
            if isinstance(item, InputError):
                raise item
            given = parse_located(HumanAnnotationInput, item, path=path, line=line)
        except InputError as error:
            problems.append(error)
            continue
        triplets, excluded = [], 0
        for entry in given.response_kg or []:
            try:
                s, p, o = (str(part) for part in entry["triplet"])
                triplets.append(HumanTriplet(triplet=(s, p, o), label=Label.parse(str(entry["human_label"]))))
            except (KeyError, TypeError, ValueError):
                excluded += 1
        responses.append(
            HumanResponse(id=given.id, model=model, response=given.response or "", triplets=triplets, excluded=excluded)
        )
    return responses, problems


class AgreementReport(BaseModel):
    """Claim-level and response-level agreement figures."""

    mode: str
    claims: int
    accuracy: float | None = None
    macro_f1: float | None = None
    per_class_f1: dict[Label, float] = Field(default_factory=dict)
    responses: int
    pearson: tuple[float, float] | None = None
    spearman: tuple[float, float] | None = None
    model_rates: dict[str, tuple[float, float]] = Field(default_factory=dict)
    model_ranking_spearman: float | None = None
    unmatched_ids: list[str] = Field(default_factory=list)


def agree(
    human: Sequence[HumanResponse],
    records: Sequence[Record],
    *,
    checker: Checker,
    extractor: Extractor | None = None,
    mode: str = "checker",
) -> AgreementReport:
    """Compare factscope with human labels; ``mode`` is 'checker' (given triplets) or 'pipeline'."""
    by_id = {record.id: record for record in records}
    matched = [h for h in human if h.id in by_id]
    unmatched = sorted({h.id for h in human if h.id not in by_id})
    if not matched:
        raise InputError("no annotated id matches a record id of the input file; check that both files use the same ids")
    if mode == "checker":
        ours = _check_given_triplets(matched, by_id, checker)
    elif mode == "pipeline":
        if extractor is None:
            raise ValueError("pipeline mode needs an extractor")
        ours = _run_pipeline(matched, by_id, checker, extractor)
    else:
        raise ValueError(f"unknown mode {mode!r}; use 'checker' or 'pipeline'")
    return _report(mode, matched, ours, unmatched)


def _check_given_triplets(
    human: Sequence[HumanResponse], by_id: dict[str, Record], checker: Checker
) -> list[list[Label | None]]:
    tasks = []
    for response in human:
        record = by_id[response.id]
        for triplet in response.triplets:
            claim = Claim(text=" ".join(triplet.triplet), kind="triplet", triplet=triplet.triplet)
            tasks.append(
                CheckTask(
                    claim=claim.render(),
                    references=tuple(record.references),
                    question=record.question,
                    triplet=claim.triplet,
                )
            )
    verdicts = iter(checker.check(tasks))
    return [[next(verdicts).label for _ in response.triplets] for response in human]


def _run_pipeline(
    human: Sequence[HumanResponse], by_id: dict[str, Record], checker: Checker, extractor: Extractor
) -> list[list[Label | None]]:
    records = [by_id[h.id].model_copy(update={"id": f"{h.model}/{h.id}", "response": h.response or by_id[h.id].response}) for h in human]
    run = check(records, extractor=extractor, checker=checker)
    return [[claim.verdict.label for claim in result.claims] for result in run.results]


def _report(
    mode: str, human: Sequence[HumanResponse], ours: list[list[Label | None]], unmatched: list[str]
) -> AgreementReport:
    report = AgreementReport(mode=mode, claims=0, responses=len(human), unmatched_ids=unmatched)
    if mode == "checker":
        gold = [t.label for h in human for t in h.triplets]
        predicted = [label for labels in ours for label in labels]
        pairs = [(g, p) for g, p in zip(gold, predicted) if p is not None]
        report.claims = len(pairs)
        if pairs:
            g, p = zip(*pairs)
            report.accuracy = agreement.accuracy(g, p)
            report.per_class_f1 = agreement.per_class_f1(g, p, LABELS)
            report.macro_f1 = agreement.macro_f1(g, p, LABELS)
    human_rates, our_rates, models = [], [], []
    for response, labels in zip(human, ours):
        ours_rate = summarize_response(labels).hallucination_rate
        if response.hallucination_rate is not None and ours_rate is not None:
            human_rates.append(response.hallucination_rate)
            our_rates.append(ours_rate)
            models.append(response.model)
    report.pearson = _maybe(agreement.pearson, human_rates, our_rates)
    report.spearman = _maybe(agreement.spearman, human_rates, our_rates)
    for model in sorted(set(models)):
        idx = [i for i, m in enumerate(models) if m == model]
        report.model_rates[model] = (
            sum(human_rates[i] for i in idx) / len(idx),
            sum(our_rates[i] for i in idx) / len(idx),
        )
    if len(report.model_rates) >= 3:
        values = list(report.model_rates.values())
        result = _maybe(agreement.spearman, [v[0] for v in values], [v[1] for v in values])
        report.model_ranking_spearman = result[0] if result else None
    return report


def _maybe(statistic: Any, x: list[float], y: list[float]) -> tuple[float, float] | None:
    """A correlation, or None where it is undefined (fewer than 3 pairs, or a constant side)."""
    if len(x) < 3:
        return None
    try:
        return statistic(x, y)
    except ValueError:
        return None
