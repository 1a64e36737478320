"""Responses for grounding evaluation: one LLM reply per example from its contexts and question."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, Field

from factscope.core.input_notes import InputNotes
from factscope.core.option_metadata import about
from factscope.core.option_validation import ValidatedOptions
from factscope.core.prompts import load_prompt
from factscope.core.run import ProgressCallback, run_batches, run_manifest
from factscope.core.run_result import RunResult
from factscope.grounding.data import GroundExample, load_dataset
from factscope.grounding.distractors import DistractorSettings, add_corpus_distractors

if TYPE_CHECKING:
    from factscope.llm.client import ChatReply, LLMClient


@dataclass(frozen=True)
class ResponseGenerationSettings(ValidatedOptions):
    """How ``generate`` calls the LLM: ``max_tokens`` per response, ``batch_size`` questions at a time."""

    max_tokens: int = field(default=512, metadata=about("response length limit", min=1))
    batch_size: int = field(default=32, metadata=about(
        "questions sent (in parallel) before results are written", min=1
    ))


GOLD_ONLY = "none (gold only)"
"""The distractors of a generation run without a corpus, in words."""


class GeneratedResponse(BaseModel):
    """One generated response as written to the responses file (read back by ``--responses``)."""

    id: str
    question: str
    response: str
    contexts: list[str] = Field(default_factory=list)
    model: str


class GenerationFailure(BaseModel):
    """An example whose call failed: not written, so that a rerun retries it."""

    id: str
    error: str | None


class GenerationRun(RunResult[GeneratedResponse]):
    """Every response in the responses file (read lazily; left out of ``model_dump``), the counts, and the calls
    of this run that failed (``failed`` of them, each in ``failed_calls``; not written, so a rerun retries them);
    ``skipped`` and ``distractors``: the entries of the dataset file that did not load and the distractors added,
    in words, when ``generate_for_dataset`` read one."""

    what_failed: ClassVar[str] = "generation calls"
    failures_kept: ClassVar[bool] = False
    failed_calls: list[GenerationFailure]
    skipped: int = 0
    distractors: str = GOLD_ONLY

    def summary_rows(self) -> list[tuple[str, object]]:
        """The run's figures as a summary table's rows."""
        return [
            ("responses written (new)", self.new_records),
            ("skipped input records", self.skipped),
            ("already there (resumed)", self.resumed_records),
            ("failed calls (rerun to retry)", self.failed),
            ("distractors", self.distractors),
            ("responses", str(self.results.path or "not written")),
        ]


def generation_prompt(example: GroundExample, template: str) -> str:
    """The generation prompt of one example: its contexts (blank-line separated) and question."""
    return template.replace("{contexts}", "\n\n".join(c.strip() for c in example.contexts)).replace(
        "{question}", example.question
    )


def generate_responses(
    examples: Sequence[GroundExample],
    client: LLMClient,
    *,
    prompt: str = "ground_generate",
    max_tokens: int | None = ResponseGenerationSettings.max_tokens,
    on_done: Callable[[], None] | None = None,
) -> list[ChatReply]:
    """One LLM reply per example with the ``ground_generate`` template (temperature from the client config)."""
    template = load_prompt(prompt)
    conversations = [[{"role": "user", "content": generation_prompt(e, template)}] for e in examples]
    params: dict[str, Any] = {"max_tokens": max_tokens} if max_tokens else {}
    return client.chat_many(conversations, on_done=on_done, **params)


def generate(
    examples: Sequence[GroundExample],
    client: LLMClient,
    *,
    output: str | Path | None = None,
    max_tokens: int | None = ResponseGenerationSettings.max_tokens,
    batch_size: int = ResponseGenerationSettings.batch_size,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> GenerationRun:
    """Generate and write a response per example; examples already in ``output`` are skipped (resume).

    A failed call is reported in ``failed_calls`` and not written, so any rerun tries it again: ``retry_failed``
    is accepted for the shape every entry point shares and has nothing more to retry."""
    failures: list[GenerationFailure] = []

    def batch_responses(batch: Sequence[GroundExample]) -> list[GeneratedResponse]:
        rows = []
        for example, reply in zip(batch, generate_responses(batch, client, max_tokens=max_tokens)):
            if reply.failed:
                failures.append(GenerationFailure(id=example.id, error=reply.error))
                continue
            rows.append(
                GeneratedResponse(
                    id=example.id,
                    question=example.question,
                    response=reply.text or "",
                    contexts=list(example.contexts),
                    model=client.name,
                )
            )
        return rows

    produced = run_batches(
        examples,
        batch_responses,
        key=lambda example: example.id,
        row_type=GeneratedResponse,
        output=output,
        batch_size=batch_size,
        progress=progress,
        stage_name="generating",
        manifest=run_manifest("ground generate", examples, {"llm": client}, {"max_tokens": max_tokens}),
        overwrite=overwrite,
        retry_failed=retry_failed,
    )
    return GenerationRun(
        results=produced.results,
        failed=len(failures),
        failed_calls=failures,
        **produced.counts(),
    )


def generate_for_dataset(
    dataset: str | Path,
    llm: LLMClient,
    settings: ResponseGenerationSettings | None = None,
    *,
    metadata: str | Path | None = None,
    corpus: str | Path | None = None,
    distractors: DistractorSettings | None = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
    notes: InputNotes | None = None,
) -> GenerationRun:
    """A response per example of the file ``dataset`` (``load_dataset``, with its ``metadata`` file) with ``llm``,
    written to ``output`` as ``generate`` does; with ``corpus``, the distractor passages that ``distractors``
    find there are added to each example's contexts (the paper's Dist setting). ``notes`` is told of the entries
    that did not load, the dataset's warnings and each call that failed."""
    settings = settings or ResponseGenerationSettings()
    loaded = load_dataset(dataset, metadata)
    loaded.report(notes)
    examples = loaded.examples
    described = GOLD_ONLY
    if corpus is not None:
        distractors = distractors or DistractorSettings()
        examples = add_corpus_distractors(examples, corpus, distractors)
        described = distractors.describe()
    run = generate(examples, llm, output=output, max_tokens=settings.max_tokens, batch_size=settings.batch_size,
                   progress=progress, overwrite=overwrite, retry_failed=retry_failed)
    if notes is not None:
        for failure in run.failed_calls:
            notes.warning(f"call failed for {failure.id}: {failure.error}")
    return run.model_copy(update={"skipped": len(loaded.errors), "distractors": described})
