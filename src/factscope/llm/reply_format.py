"""What a role expects an LLM's reply to be: one of fixed labels, text matching a regular expression, or JSON of
a schema.

A role names the format with its call (``client.chat_many(conversations, reply_format=...)``). An in-process model
(``factscope.hf.in_process_llm``) constrains its decoding to it, so that even a small model's reply parses; an
HTTP endpoint is sent the same request as without it (servers differ in what structured output they accept), and
every reply is still read by the role's own strict parser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

FormatKind = Literal["choice", "regex", "json_schema"]


@dataclass(frozen=True)
class ReplyFormat:
    """A reply's expected form: ``kind`` "choice" (``value``: the labels, JSON-encoded), "regex" (``value``: the
    pattern, whole reply) or "json_schema" (``value``: the schema, JSON-encoded). Make one with ``one_of``,
    ``matching`` or ``json_schema``."""

    kind: FormatKind
    value: str

    @classmethod
    def one_of(cls, labels: Sequence[str]) -> ReplyFormat:
        """Exactly one of ``labels`` (at least one, none empty)."""
        if not labels or any(not label for label in labels):
            raise ValueError(f"a choice of replies needs one or more non-empty labels, got {list(labels)!r}")
        return cls("choice", json.dumps(list(labels), ensure_ascii=False))

    @classmethod
    def matching(cls, pattern: str) -> ReplyFormat:
        """The whole reply matches the regular expression ``pattern``."""
        try:
            re.compile(pattern)
        except re.error as error:
            raise ValueError(f"the reply pattern {pattern!r} is not a regular expression: {error}") from None
        return cls("regex", pattern)

    @classmethod
    def json_schema(cls, schema: dict[str, Any]) -> ReplyFormat:
        """A JSON value valid under ``schema`` (a JSON Schema object)."""
        if not isinstance(schema, dict):
            raise TypeError(f"a JSON schema must be an object, got {type(schema).__name__}")
        # key order kept: a model writes an object's properties in the order its schema lists them
        return cls("json_schema", json.dumps(schema, ensure_ascii=False))

    def labels(self) -> list[str]:
        """The labels of a "choice" format."""
        if self.kind != "choice":
            raise ValueError(f"a {self.kind} reply format has no labels")
        return list(json.loads(self.value))

    def regex(self) -> str:
        """The format as one regular expression over the whole reply ("choice" and "regex" formats)."""
        if self.kind == "choice":
            return "(" + "|".join(re.escape(label) for label in self.labels()) + ")"
        if self.kind == "regex":
            return self.value
        raise ValueError("a JSON schema reply format is not a regular expression")

    def spec(self) -> dict[str, str]:
        """The format as a JSON object (what an in-process model's request carries, and so its cache key)."""
        return {"kind": self.kind, "value": self.value}

    @classmethod
    def from_spec(cls, spec: object) -> ReplyFormat:
        """The format a ``spec()`` object describes; TypeError or ValueError for anything else."""
        if not isinstance(spec, dict) or not isinstance(spec.get("value"), str):
            raise TypeError(f"not a reply format: {spec!r}")
        if spec.get("kind") not in ("choice", "regex", "json_schema"):
            raise ValueError(f"not a reply format: {spec!r}")
        return cls(spec["kind"], spec["value"])
