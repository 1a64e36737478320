"""CONNER's prompt templates (CONNER Appendix F-G, Tables 11-13) as data files, filled from a record."""

from __future__ import annotations

import re

from factscope.conner.data import KnowledgeRecord
from factscope.core.prompts import load_prompt

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(template: str, **fields: str | None) -> str:
    """Fill ``{name}`` placeholders; a line whose placeholders are all missing (e.g. no topic) is dropped."""
    lines = []
    for line in template.split("\n"):
        names = _PLACEHOLDER.findall(line)
        if names and all(not fields.get(name) for name in names):
            continue
        lines.append(_PLACEHOLDER.sub(lambda m: fields.get(m.group(1)) or "", line))
    return "\n".join(lines)


def template(kind: str, task: str) -> str:
    """The template ``knowledge_{kind}_{task}`` (kind: zero_shot, few_shot_example, answer; task: qa, dialogue)."""
    return load_prompt(f"knowledge_{kind}_{task}").rstrip("\n")


def record_fields(record: KnowledgeRecord, knowledge: str | None = None, answer: str | None = None) -> dict[str, str | None]:
    """The placeholder values of one record (a dialogue's query is the partner's last utterance)."""
    return {
        "topic": record.topic,
        "query": record.query,
        "knowledge": record.knowledge if knowledge is None else knowledge,
        "answer": record.answer if answer is None else answer,
    }


def zero_shot_prompt(record: KnowledgeRecord) -> str:
    """Table 11's best zero-shot knowledge-generation prompt for the record's task."""
    return fill(template("zero_shot", record.task), **record_fields(record))


def few_shot_prompt(record: KnowledgeRecord, demonstrations: list[KnowledgeRecord]) -> str:
    """Appendix F.2: example_1 \\n ... example_k \\n example_test, with Table 12's best example template;
    the test example stops where its knowledge would begin."""
    example = template("few_shot_example", record.task)
    shots = [fill(example, **record_fields(demo)) for demo in demonstrations]
    test = fill(example.split("{knowledge}")[0].rstrip(" "), **record_fields(record, knowledge=""))
    return "\n".join([*shots, test])


def context_and_continuation(text: str, field: str, fields: dict[str, str | None]) -> tuple[str, str]:
    """Split a template at ``{field}``: the filled text before it, and the field's value as its continuation
    (with the template's space before the placeholder), so a causal LM can score the value in context."""
    head = text.split("{" + field + "}")[0]
    context = head.rstrip(" ")
    spacer = head[len(context) :]
    return fill(context, **{**fields, field: None}), spacer + (fields.get(field) or "")


def answer_context(record: KnowledgeRecord, knowledge: str) -> str:
    """Table 13's best answer template up to the answer: the context whose continuation is the answer."""
    return context_and_continuation(template("answer", record.task), "answer", record_fields(record, knowledge))[0]


def answer_prompt(record: KnowledgeRecord, knowledge: str, demonstrations: list[KnowledgeRecord]) -> str:
    """Few-shot answer generation (Appendix G, Table 13): demonstrations with answers, then the test context."""
    full = template("answer", record.task)
    shots = [fill(full, **record_fields(demo)) for demo in demonstrations if demo.answer]
    return "\n".join([*shots, answer_context(record, knowledge)])


def answer_pair(record: KnowledgeRecord, knowledge: str, answer: str) -> tuple[str, str]:
    """(context, continuation) for L(q, k, a) of eq. 6: Table 13's answer template with ``knowledge``."""
    return context_and_continuation(
        template("answer", record.task), "answer", record_fields(record, knowledge=knowledge, answer=answer)
    )


def informativeness_pair(record: KnowledgeRecord) -> tuple[str, str]:
    """(context, continuation) for eq. 5: the query as context, the knowledge as continuation."""
    return context_and_continuation(template("informativeness", "context"), "knowledge", record_fields(record))
