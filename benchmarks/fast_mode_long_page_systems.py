"""Exact against fast mode in ground, knowledge and attribute, on the long-page records of ``fast_mode_long_pages``.

- **ground** (``ground score --mode fast``): for each of the first ``--ground-records`` records, the response is
  the record's claims, the contexts its pages (about ``--page-tokens`` tokens each) and the gold facts its first
  ``--gold-facts`` claims; presence models ``bi-nli`` (the default) and ``nli:embedded``; the labels compared are
  every response and gold fact's present / absent decision;
- **knowledge** (``knowledge score --mode fast``): each of the first ``--knowledge-claims`` claims of the first
  ``--knowledge-records`` records is a knowledge text, the corpus every page of those records (``evidence_k`` 5); labels: each sentence's and each
  record's factuality label;
- **attribute** (``attribute score --mode fast``): the packaged example answers, ``--answers`` copies.

Each system runs through its definition with its components built before the timing (model loading excluded and
stated as such; ``fast_mode_long_pages`` gives the check command's figures with loading), exact then fast
(``fast_mode_systems.compare``); the results file is written after each system. The CPU is shared with other work: the load average is recorded, and the
speed-ups are ratios of runs made one after the other under that load.

    HF_HUB_OFFLINE=1 python benchmarks/fast_mode_long_page_systems.py
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from fast_mode_systems import compare_attribute, compare_ground, compare_knowledge, show
from long_page_records import add_record_options, records_from_options
from results_file import add_out_option, load_average, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def ground_examples(records: list[dict[str, Any]], gold_facts: int) -> list[Any]:
    """A grounding example per record: its claims as the response, its pages as the contexts."""
    from factscope.grounding.data import GroundExample

    return [
        GroundExample(
            id=record["id"],
            question="What do the pages say?",
            contexts=list(record["pages"]),
            gold_facts=list(record["claims"][:gold_facts]),
            response=" ".join(record["claims"]),
        )
        for record in records
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_record_options(parser, sets=("contractnli=1", "factcheckgpt=1", "control=1", "summedits=1"))
    parser.add_argument("--ground-records", type=int, default=1)
    parser.add_argument("--gold-facts", type=int, default=3)
    parser.add_argument("--presence", nargs="+", default=["bi-nli", "nli:embedded"])
    parser.add_argument("--knowledge-records", type=int, default=1)
    parser.add_argument("--knowledge-claims", type=int, default=6, help="claims of each knowledge record used")
    parser.add_argument("--answers", type=int, default=25)
    parser.add_argument("--systems", nargs="+", default=["ground", "knowledge", "attribute"])
    add_out_option(parser)
    args = parser.parse_args()
    from factscope.conner.data import KnowledgeRecord

    records = records_from_options(args, claims=6)
    figures: dict[str, Any] = {"load_average_start": load_average()}
    if "ground" in args.systems:
        examples = ground_examples(records[: args.ground_records], args.gold_facts)
        for presence in args.presence:
            figures[f"ground {presence}"] = compare_ground(examples, presence, 1)
            show(f"ground {presence}", figures[f"ground {presence}"])
        write_results(__file__, args, figures)
    if "knowledge" in args.systems:
        chosen = records[: args.knowledge_records]
        items = [
            KnowledgeRecord(id=f"{record['id']}-{number}", query="What do the pages say?", knowledge=claim)
            for record in chosen
            for number, claim in enumerate(record["claims"][: args.knowledge_claims])
        ]
        pages = [page for record in chosen for page in record["pages"]]
        figures["knowledge"] = compare_knowledge(items, {f"p{i}": page for i, page in enumerate(pages)}, 1)
        show("knowledge", figures["knowledge"])
        write_results(__file__, args, figures)
    if "attribute" in args.systems:
        figures["attribute"] = compare_attribute(args.answers, 1)
        show("attribute", figures["attribute"])
    figures["load_average_end"] = load_average()
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
