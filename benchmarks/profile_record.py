"""Where the time of a realistic record goes in exact mode: a profile by stage.

A realistic record is six real claims against six pages of about 2,000 tokens (``long_page_records``). Each record
goes through ``factscope.check`` whole, as a user runs it: its response (the six claims, one sentence each) is split
into claims by the extractor (``--extractor``, ``sentences`` by default so that the claims are the record's six;
``rules`` parses them with spaCy), each claim is checked against the six pages by the checker (``--checker``, the
default ``embedded``, exact mode) and the verdicts are written to a results file. The checker and the extractor are
built and warmed up on one short record first (loading is timed apart and not counted).

The stages are timed by wrapping the methods that do them; a stage's time excludes the stages it calls:

- ``claim_extraction``: sentence splitting (and parsing, for ``rules``) of the response;
- ``segmenting``: cutting each page into sentence windows and counting their tokens (once per page, cached);
- ``lexical_relevance``: each (window, claim) pair's content-word overlap, for the relevance floor;
- ``bi_encoder``: the bi-encoder's embeddings (exact mode's default checker uses none);
- ``cross_encoder``: the checker's model on the (window, claim) pairs;
- ``merging``: the verdict of each claim from its windows (merge, value check, evidence sentence);
- ``writing``: the results file;
- ``other``: the rest of the run (records read and validated, the run loop, the summary).

    HF_HUB_OFFLINE=1 python benchmarks/profile_record.py --sets contractnli=1 factcheckgpt=1
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from long_page_records import add_record_options, records_from_options
from results_file import add_out_option, load_average, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SETS = ("contractnli=1", "factcheckgpt=1")
STAGES = (
    "claim_extraction",
    "segmenting",
    "lexical_relevance",
    "bi_encoder",
    "cross_encoder",
    "merging",
    "writing",
)


class StageClock:
    """Seconds spent in each stage; a stage's time excludes the time of the stages it calls."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(STAGES, 0.0)
        self.pairs = 0
        self._open: list[float] = []

    def wrap(self, owner: type, method: str, stage: str) -> None:
        """Time every call of ``owner.method`` as ``stage``."""
        original: Callable[..., Any] = getattr(owner, method)
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            clock._open.append(0.0)
            began = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent = time.perf_counter() - began
                inner = clock._open.pop()
                clock.seconds[stage] += spent - inner
                if clock._open:
                    clock._open[-1] += spent

        setattr(owner, method, timed)

    def reset(self) -> None:
        """Zero every stage."""
        self.seconds = dict.fromkeys(STAGES, 0.0)
        self.pairs = 0


def instrument(checker: Any, extractor: Any) -> StageClock:
    """A clock on the stages of ``checker`` (a segmented checker) and ``extractor``."""
    from factscope.checkers.segmented import SegmentedChecker
    from factscope.core.files.results_file import ResultWriter
    from factscope.hf.encoders import BiEncoder

    clock = StageClock()
    clock.wrap(type(extractor), "extract", "claim_extraction")
    clock.wrap(SegmentedChecker, "segments", "segmenting")
    clock.wrap(SegmentedChecker, "candidates", "lexical_relevance")
    clock.wrap(BiEncoder, "encode", "bi_encoder")
    clock.wrap(SegmentedChecker, "decide", "merging")
    clock.wrap(ResultWriter, "write", "writing")
    scorer_type = type(checker.scorer)
    clock.wrap(scorer_type, "score", "cross_encoder")
    counted = scorer_type.score

    def counting(scorer: Any, premises: Any, hypotheses: Any) -> Any:
        clock.pairs += len(premises)
        return counted(scorer, premises, hypotheses)

    scorer_type.score = counting
    return clock


def profile(args: argparse.Namespace, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Load the checker and the extractor, then check each record whole and time its stages."""
    import factscope
    from factscope.checkers.registry import make_checker
    from factscope.claims.registry import make_extractor

    started = time.perf_counter()
    checker = make_checker(args.checker, mode="exact")
    extractor = make_extractor(args.extractor)
    clock = instrument(checker, extractor)
    folder = Path(tempfile.mkdtemp(prefix="profile_record_"))
    warm_up = [{"id": "warm-up", "response": "The museum opened in 1990.", "references": ["It opened in 1990."]}]
    factscope.check(warm_up, extractor=extractor, checker=checker, output=folder / "warm_up.jsonl")
    load_seconds = time.perf_counter() - started
    profiled: dict[str, dict[str, Any]] = {}
    for record in records:
        clock.reset()
        row = {"id": record["id"], "response": " ".join(record["claims"]), "references": record["pages"]}
        began = time.perf_counter()
        run = factscope.check([row], extractor=extractor, checker=checker, output=folder / f"{record['id']}.jsonl")
        total = time.perf_counter() - began
        verdicts = [claim.verdict for result in run.results for claim in result.claims]
        stages = {stage: round(seconds, 4) for stage, seconds in clock.seconds.items()}
        stages["other"] = round(total - sum(clock.seconds.values()), 3)
        profiled[record["id"]] = {
            "seconds": round(total, 3),
            "stages": stages,
            "share": {stage: round(seconds / total, 3) for stage, seconds in stages.items()},
            "claims": len(verdicts),
            "pairs_scored": clock.pairs,
            "pairs_per_second": round(clock.pairs / stages["cross_encoder"], 1) if clock.pairs else None,
            "labels": [verdict.label.value if verdict.label else None for verdict in verdicts],
        }
        print(f"{record['id']}: {total:.2f} s, {stages}", flush=True)
    totals = {stage: sum(found["stages"][stage] for found in profiled.values()) for stage in (*STAGES, "other")}
    whole = sum(found["seconds"] for found in profiled.values())
    return {
        "load_seconds": round(load_seconds, 3),
        "records": profiled,
        "share_over_records": {stage: round(seconds / whole, 3) for stage, seconds in totals.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_record_options(parser, SETS)
    parser.add_argument("--checker", default="embedded", help="checker spec (exact mode)")
    parser.add_argument("--extractor", default="sentences", help="extractor spec")
    add_out_option(parser)
    args = parser.parse_args()
    records = records_from_options(args, claims=6)
    figures: dict[str, Any] = {"load_average_start": load_average(), **profile(args, records)}
    figures["load_average_end"] = load_average()
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
