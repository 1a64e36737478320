"""`factscope knowledge score`, as CONNER's system declares it (``KNOWLEDGE_COMMAND``): its help, its reader's
options (``KnowledgeReading`` and the records' task) and the groups of options of its spec."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from factscope.conner.generation_run import KnowledgeGenerationSettings
from factscope.conner.spec import KNOWLEDGE_BATCH_SIZE, KnowledgeSpec
from factscope.core.options.metadata import about
from factscope.core.options.panels import EVIDENCE, SCORING
from factscope.core.options.validation import ValidatedOptions
from factscope.engines.command_form import CommandForm, OptionGroup
from factscope.retrieve.web_settings import WebSettings

HELP = """Score knowledge records on CONNER's six dimensions (equations 1-9 of the paper).

Input: JSON / JSONL / Parquet / CSV records with `query`, `knowledge`, optional `id`, `answer`, `gold_answer`, `topic` and
`task` (qa: span answers; dialogue: open-ended); or CONNER's own files: a query table (tab-separated topic,
query, knowledge, response; .tsv, or any file whose first line has tabs), or the knowledge a model generated,
one text per line, with --queries. Each metric runs when its part is configured (each option of the Scoring
panel names the metrics it serves), else it is reported as not computed (never as 0).

Examples:

  factscope knowledge score examples/knowledge/records.jsonl --corpus examples/knowledge/corpus.jsonl

  factscope knowledge score knowledge.jsonl --corpus wiki/ --retriever hybrid --lm gpt2 \\
      --relevance-model cross-encoder/ms-marco-MiniLM-L-6-v2 --checker nli:roberta-large-mnli -o scored.jsonl
"""


@dataclass(frozen=True)
class KnowledgeReading(ValidatedOptions):
    """The file of queries joined to a file of knowledge texts as it is read."""

    queries: Path | None = field(default=None, metadata=about(
        "the queries of an INPUT written one knowledge per line: a CONNER query table or JSON / JSONL records, "
        "line i of INPUT answering query i",
    ))


KNOWLEDGE_COMMAND = CommandForm(
    name="score",
    help=HELP,
    input_help="knowledge: JSON / JSONL / Parquet / CSV records, a CONNER query table (TSV), or one knowledge per "
               "line with --queries",
    suffix=".knowledge",
    batch_size=KNOWLEDGE_BATCH_SIZE,
    reading=(OptionGroup(KnowledgeReading), OptionGroup(KnowledgeGenerationSettings, names=frozenset({"task"}))),
    options=(OptionGroup(KnowledgeSpec, panel=SCORING), OptionGroup(WebSettings, into="web", panel=EVIDENCE)),
)
"""The `knowledge score` command."""
