"""The options the `factscope knowledge` commands share (the scoring parts, the input, the output), and
reading a knowledge file whole for the commands that need its records at once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from factscope.checkers.segmented import CheckMode
from factscope.cli.display import print_skipped
from factscope.cli.option_ranges import q_know_weights
from factscope.conner.data import KnowledgeTask
from factscope.core.seeds import SEED_MAX
from factscope.metrics.conner import Aggregation, EvidenceAggregation, SentenceRanking
from factscope.retrieve.corpus import RetrieverName
from factscope.retrieve.web_retrievers import EvidenceRetrieverName

SCORING = "Scoring (CONNER metrics)"
Corpus = Annotated[Path | None, typer.Option(help="evidence corpus: JSONL of {id, title?, text} or a folder of .txt", rich_help_panel=SCORING)]
Retriever = Annotated[RetrieverName, typer.Option(help="evidence retriever", rich_help_panel=SCORING)]
ScoringRetriever = Annotated[
    EvidenceRetrieverName,
    typer.Option(
        "--retriever",
        help="evidence retriever: bm25, dense or hybrid over --corpus; web:serper, web:brave or wikipedia search "
        "for each sentence",
        rich_help_panel=SCORING,
    ),
]
EvidenceK = Annotated[int, typer.Option("--evidence-k", min=1, help="l: evidence passages per sentence", rich_help_panel=SCORING)]
Aggregate = Annotated[Aggregation, typer.Option(help="how factuality aggregates the sentences (eq. 1: min)", rich_help_panel=SCORING)]
EvidenceAggregate = Annotated[EvidenceAggregation, typer.Option(help="how factuality aggregates a sentence's evidence passages (eq. 1: max, the best-entailing one)", rich_help_panel=SCORING)]
RankBy = Annotated[SentenceRanking, typer.Option(help="how --aggregate min / max rank sentences: entailment probability (eq. 1) or argmax label, contradiction < neutral < entailment (CONNER's released scripts)", rich_help_panel=SCORING)]
CheckingMode = Annotated[CheckMode, typer.Option("--mode", help="model checkers: exact (every segment of every evidence passage is scored) or fast (each sentence only against the most relevant segments of each passage, stopping at a confident entailment; a sentence whose label pruning could change is scored exactly)", rich_help_panel=SCORING)]
Hard = Annotated[bool, typer.Option("--hard-factuality", help="count each sentence by its argmax label", rich_help_panel=SCORING)]
CheckerSpec = Annotated[str, typer.Option("--checker", help="NLI checker: embedded, nli:MODEL, path:DIR, llm, similarity", rich_help_panel=SCORING)]
Relevance = Annotated[str, typer.Option(help="ranking cross-encoder (name or folder); 'bi-encoder' fallback; 'none'", rich_help_panel=SCORING)]
Coherence = Annotated[str, typer.Option(help="coherence classifier (name or folder); 'proxy' offline; 'none'", rich_help_panel=SCORING)]
LM = Annotated[str | None, typer.Option("--lm", help="causal LM: 'embedded' (SmolLM2-135M via llama.cpp, the default when factscope\\[lm] is installed), a hub name or folder, a .gguf file, 'endpoint' for the --llm-* completions endpoint, or 'none'", show_default=False, rich_help_panel=SCORING)]
Baselines = Annotated[int, typer.Option(min=1, help="u: random other knowledge texts for the helpfulness baseline", rich_help_panel=SCORING)]
Weights = Annotated[str, typer.Option(callback=q_know_weights, help="gamma of Q_know: four comma-separated numbers of 0 or more, factuality,relevance,coherence,informativeness", rich_help_panel=SCORING)]
Seed = Annotated[int, typer.Option(min=0, max=SEED_MAX, help="random seed (baselines, demonstrations, sampling)")]
BatchSize = Annotated[int, typer.Option(min=1, help="records per batch")]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="results JSONL (resumable)")]
Task = Annotated[KnowledgeTask | None, typer.Option(help="task of the records that name none (query tables have no task column): qa (span answers, the default) or dialogue (open-ended, as Wizard of Wikipedia)", show_default=False)]
Queries = Annotated[Path | None, typer.Option(help="the queries of an INPUT written one knowledge per line: a CONNER query table or JSON / JSONL records, line i of INPUT answering query i")]



def load_records(
    path: Path, need_knowledge: bool = True, queries: Path | None = None, task: KnowledgeTask | None = None
) -> tuple[list[Any], int]:
    """The usable records of a knowledge file and how many were skipped (each reported); a file whose every
    record fails for one reason is one error."""
    from factscope.conner.data import read_knowledge_records
    from factscope.core.whole_file import usable_records

    records, problems = usable_records(
        path, read_knowledge_records(path, need_knowledge=need_knowledge, queries=queries, task=task)
    )
    for problem in problems:
        print_skipped(problem)
    return records, len(problems)
