"""Responses for grounding evaluation: one LLM reply per example from its contexts and question, written by the
``ResponseWriter`` (`factscope ground generate`, ``factscope.generate_responses``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, Field

from factscope.core.files.input_notes import InputNotes
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.prompts import load_prompt
from factscope.core.runs.result import RunResult
from factscope.engines.writer import Loaded, Produced, Writer, WriterSteps
from factscope.grounding.data import GroundExample, load_dataset
from factscope.grounding.distractors import DistractorSettings, add_corpus_distractors

if TYPE_CHECKING:
    from factscope.llm.client import ChatReply, LLMClient


@dataclass(frozen=True)
class ResponseGenerationSettings(ValidatedOptions):
    """How responses are written: ``max_tokens`` per response, ``batch_size`` questions at a time, and, with a
    ``corpus``, the ``distractors`` found there added to each question's contexts (the paper's Dist setting; the
    input's fingerprint records the contexts they make)."""

    max_tokens: int = field(default=512, metadata=about("response length limit", min=1))
    batch_size: int = field(default=32, metadata=about(
        "questions sent (in parallel) before results are written", min=1, changes_results=False
    ))
    corpus: Path | None = field(default=None, metadata=about(
        "JSONL {id, title, text} or folder of .txt to draw distractors from", recorded_by="records"
    ))
    distractors: DistractorSettings = field(default_factory=DistractorSettings)


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
    in words."""

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


def response_replies(
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


class ResponseWriter(Writer[ResponseGenerationSettings, GroundExample, GenerationRun]):
    """A response per example of a dataset file (``load_dataset``, with the ``metadata`` file this writer reads)
    or of the examples given, its distractors added first when the settings name a corpus. A failed call is
    reported and not written, so any rerun tries it again (``retry_failed`` has nothing more to retry)."""

    name = "ground generate"
    stage_name = "generating"

    def __init__(self, metadata: str | Path | None = None) -> None:
        self.metadata = metadata

    def load(
        self, settings: ResponseGenerationSettings, inputs: str | Path | Iterable[GroundExample],
        notes: InputNotes | None,
    ) -> Loaded[GroundExample]:
        """The examples of the dataset file (``notes`` told of the entries that did not load and its warnings)
        or the examples given, with their distractors."""
        skipped = 0
        if isinstance(inputs, (str, Path)):
            dataset = load_dataset(inputs, self.metadata)
            dataset.report(notes)
            examples, skipped = dataset.examples, len(dataset.errors)
        else:
            examples = list(inputs)
        if settings.corpus is not None:
            examples = add_corpus_distractors(examples, settings.corpus, settings.distractors)
        return Loaded(examples, len(examples), skipped)

    def steps(
        self, settings: ResponseGenerationSettings, llm: LLMClient, loaded: Loaded[GroundExample],
        notes: InputNotes | None,
    ) -> WriterSteps[GroundExample]:
        """A response row per example whose call succeeded."""
        failures: list[tuple[str, str | None]] = []

        def batch_responses(batch: Sequence[GroundExample]) -> list[GeneratedResponse]:
            rows = []
            for example, reply in zip(batch, response_replies(batch, llm, max_tokens=settings.max_tokens)):
                if reply.failed:
                    failures.append((example.id, reply.error))
                    continue
                rows.append(GeneratedResponse(id=example.id, question=example.question, response=reply.text or "",
                                              contexts=list(example.contexts), model=llm.name))
            return rows

        return WriterSteps(batch_responses, key=lambda example: example.id, row_type=GeneratedResponse,
                           components={"llm": llm}, failures=failures)

    def batch_of(self, settings: ResponseGenerationSettings) -> int:
        """The settings' ``batch_size``."""
        return settings.batch_size

    def result(
        self, settings: ResponseGenerationSettings, loaded: Loaded[GroundExample], produced: Produced
    ) -> GenerationRun:
        """The responses file's rows, this run's failed calls, and the distractors added, in words."""
        failures = [GenerationFailure(id=key, error=error) for key, error in produced.failures]
        described = settings.distractors.describe() if settings.corpus is not None else GOLD_ONLY
        return GenerationRun(results=produced.rows.results, failed=len(failures), failed_calls=failures,
                             skipped=loaded.skipped, distractors=described, **produced.rows.counts())
