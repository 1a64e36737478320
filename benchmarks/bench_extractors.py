"""Speed of the offline extractors (rule triplets, clause facts, sentences) on a batch of responses.

Responses come from a JSONL file: its ``response`` field, or, for an NLI file such as MultiNLI, ``--join``
consecutive ``premise`` fields per response. Each extractor loads its default spaCy pipeline and gets one warm-up
call, then the whole batch ``--repeats`` times; the best run is reported. The figures go to
``benchmarks/results/bench_extractors.json`` (see ``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/bench_extractors.py --data mnli_dev_matched.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def load_responses(path: str, count: int, join: int) -> list[str]:
    """``count`` responses from a JSONL file (``response`` fields, or ``join`` premises per response)."""
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    if records and "response" in records[0]:
        responses = [record["response"] for record in records]
    else:
        premises = [record["premise"].strip().rstrip(".") + "." for record in records]
        responses = [" ".join(premises[i : i + join]) for i in range(0, len(premises) - join + 1, join)]
    if len(responses) < count:
        raise SystemExit(f"only {len(responses)} responses in {path}; ask for fewer with --count")
    return responses[:count]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        required=True,
        help="JSONL with 'response' or 'premise' fields (not shipped with factscope; e.g. MultiNLI dev matched)",
    )
    parser.add_argument("--count", type=int, default=200, help="responses in the batch (default 200)")
    parser.add_argument("--join", type=int, default=6, help="premises joined into one response (default 6)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per extractor (default 3)")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.claims.clause_facts import ClauseFactExtractor
    from factscope.claims.rule_triplets import RuleTripletExtractor
    from factscope.claims.sentences import SentenceExtractor
    from factscope.cli.display import print_table
    from factscope.core.display.figure_table import summary_table

    responses = load_responses(args.data, args.count, args.join)
    words = sum(len(r.split()) for r in responses)
    rows: list[tuple[str, object]] = [
        ("responses", len(responses)),
        ("words per response", round(words / len(responses), 1)),
    ]
    extractors: dict[str, dict[str, Any]] = {}
    for extractor in (SentenceExtractor(), RuleTripletExtractor(), ClauseFactExtractor()):
        extractor.extract(responses[:5])
        best = float("inf")
        for _ in range(args.repeats):
            started = time.perf_counter()
            extractions = extractor.extract(responses)
            best = min(best, time.perf_counter() - started)
        claims = sum(len(e.claims) for e in extractions)
        fallback = sum(
            c.triplet is None and c.text == text[c.spans[0].start : c.spans[0].end]
            for text, e in zip(responses, extractions)
            for c in e.claims
        )
        abstained = sum(not e.claims for e in extractions)
        extractors[extractor.name] = {
            "best_seconds": best,
            "responses_per_second": len(responses) / best,
            "words_per_second": words / best,
            "claims": claims,
            "claims_per_response": claims / len(responses),
            "sentence_fallbacks": None if extractor.name == "sentences" else fallback,
            "responses_with_no_claim": abstained,
        }
        rows += [
            (f"{extractor.name}: responses/s", round(len(responses) / best, 1)),
            (f"{extractor.name}: claims per response", round(claims / len(responses), 2)),
        ]
        if extractor.name != "sentences":
            rows.append((f"{extractor.name}: sentence fallbacks", f"{fallback} of {claims}"))
        rows.append((f"{extractor.name}: responses with no claim", abstained))
    print_table(summary_table("Offline extractors", rows))
    figures = {
        "responses": len(responses),
        "words_per_response": words / len(responses),
        "extractors": extractors,
    }
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
