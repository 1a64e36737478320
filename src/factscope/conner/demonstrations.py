"""The few-shot demonstrations of knowledge generation, per task: random training examples (the paper's
baseline), or the best by Q_know of a random sample (CONNER-guided demonstration selection, section 5)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from factscope.conner.data import KnowledgeRecord
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.conner.generation import DemonstrationChoice, sample_demonstrations, select_demonstrations


@dataclass
class Demonstrations:
    """The demonstrations of every task, and, per task chosen by Q_know, the choice made."""

    examples: list[KnowledgeRecord] = field(default_factory=list)
    choices: dict[str, DemonstrationChoice] = field(default_factory=dict)


def choose_demonstrations(
    tasks: Iterable[str],
    pool: Sequence[KnowledgeRecord],
    *,
    shots: int,
    seed: int = 0,
    select_from: int | None = None,
    evaluator: KnowledgeEvaluator | None = None,
) -> Demonstrations:
    """``shots`` demonstrations of each of ``tasks`` (in sorted order) from the examples of ``pool`` with that task:
    with ``select_from`` and an ``evaluator``, the best ``shots`` of ``select_from`` random ones by Q_know; else
    ``shots`` random ones."""
    chosen = Demonstrations()
    for task in sorted(set(tasks)):
        same_task = [example for example in pool if example.task == task]
        if select_from and evaluator is not None:
            examples, choice = select_demonstrations(same_task, evaluator, m=select_from, n=shots, seed=seed)
            chosen.choices[task] = choice
        else:
            examples = sample_demonstrations(same_task, shots, seed)
        chosen.examples.extend(examples)
    return chosen
