"""The few-shot demonstrations of knowledge generation, per task: random training examples (the paper's
baseline), or the best by Q_know of a random sample (CONNER-guided demonstration selection, section 5)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from factscope.conner.data import KnowledgeRecord, KnowledgeTask, usable_knowledge_records
from factscope.conner.generation import (
    DemonstrationChoice,
    GenerationMode,
    sample_demonstrations,
    select_demonstrations,
)
from factscope.core.errors import ConfigError, InputError
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen
from factscope.core.options.validation import ValidatedOptions

if TYPE_CHECKING:
    from factscope.conner.evaluator import KnowledgeEvaluator


FEW_SHOT = CountsWhen(lambda values: values["mode"] == "few", "with `mode='few'`")
"""The rule of the few-shot options: they count only in a few-shot run (``GenerationSettings.mode``)."""


@dataclass(frozen=True)
class DemonstrationSettings(ValidatedOptions):
    """The few-shot examples of a generation run: ``shots`` records of ``train`` per task, random ones or, with
    ``select_from``, the best ``shots`` of ``select_from`` random ones by Q_know; ``answer``: also generate
    answers, whose few-shot template (Table 13) takes the same examples."""

    train: Path | None = field(default=None, metadata=about(
        "records with knowledge (and answers) for few-shot examples"
    ))
    shots: int = field(default=8, metadata=about(
        "n: few-shot examples in the prompt", min=1, counts_when=FEW_SHOT
    ))
    select_from: int | None = field(default=None, metadata=about(
        "m: score m random `train` examples, keep the best `shots`", min=1, counts_when=FEW_SHOT
    ))
    answer: bool = field(default=False, metadata=about(
        "also generate answers with the kept knowledge (Table 13 few-shot)", flag="--answer"
    ))


@dataclass
class Demonstrations:
    """The demonstrations of every task, and, per task chosen by Q_know, the choice made."""

    examples: list[KnowledgeRecord] = field(default_factory=list)
    choices: dict[str, DemonstrationChoice] = field(default_factory=dict)

    def choice_lines(self) -> list[str]:
        """A line per task whose demonstrations Q_know chose, naming them."""
        return [f"{task} demonstrations chosen by Q_know: {', '.join(choice.selected) or 'none'}"
                for task, choice in self.choices.items()]


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


def run_demonstrations(
    tasks: Iterable[str],
    train: Path | None,
    *,
    mode: GenerationMode,
    answer: bool,
    shots: int,
    seed: int = 0,
    select_from: int | None = None,
    evaluator: KnowledgeEvaluator | None = None,
    task: KnowledgeTask | None = None,
    skipped: Callable[[InputError], None] | None = None,
) -> Demonstrations:
    """The demonstrations of a generation run for ``tasks``: none for zero-shot knowledge without answers;
    else those ``choose_demonstrations`` picks from the records of the file ``train`` (``task`` for those that
    name none; each bad record passed to ``skipped``), which few-shot knowledge needs."""
    if mode != "few" and not answer:
        return Demonstrations()
    if train is None and mode == "few":
        raise ConfigError("`mode='few'` needs `train`: records with query and knowledge to use as examples")
    pool = usable_knowledge_records(train, task=task, skipped=skipped)[0] if train is not None else []
    return choose_demonstrations(
        tasks, pool, shots=shots, seed=seed, select_from=select_from, evaluator=evaluator
    )
