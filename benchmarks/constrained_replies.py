"""The share of unparseable replies per LLM role from the embedded SmolLM2-135M-Instruct in-process, with decoding
free (``constrained=False``) and held to each role's reply format (the default), on the shipped examples.

Each role runs through its own code (prompts, calls, strict parser) on an in-process client; every reply it gets
is recorded and read by the role's parser, so a share is of calls, not of records:

- ``claim_extraction``: the triplet extractor (``extract_triplets`` prompt, JSON) on the 6 responses of
  ``examples/check.jsonl``, replies capped at ``--extract-tokens``; a reply fails when ``parse_claims`` refuses it;
- ``fact_decomposition``: the fact extractor (``facts_decompose``, "Fact N:" lines) on their sentences;
- ``llm_checker``: the LLM checker (one label per claim) on their sentences as claims, against their references;
- ``minicheck_llm``: MiniCheck's Yes / No prompt on the same claims;
- ``presence_judge``: the grounding judge (True / False) on the gold facts and contexts of
  ``examples/ground/records.jsonl``;
- ``geval``: G-Eval's 1-5 score of the 4 answers of ``examples/attribute/answers.jsonl``, 4 aspects each.

Besides the share: replies cut at the limit, completion tokens, seconds, and the three commonest replies (a
parseable reply can still be empty: "None" is a valid decomposition). Calls that name no reply limit get
``--max-tokens``. The figures go to ``benchmarks/results/constrained_replies.json``.

    python benchmarks/constrained_replies.py
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from results_file import add_out_option, write_results

REPO = Path(__file__).resolve().parent.parent


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class Recorder:
    """Keeps every reply the client's ``chat_many`` returns."""

    def __init__(self, client: Any) -> None:
        self.replies: list[Any] = []
        self._chat_many = client.chat_many
        client.chat_many = self

    def __call__(self, *args: Any, **kwargs: Any) -> list[Any]:
        replies = self._chat_many(*args, **kwargs)
        self.replies.extend(replies)
        return replies


def _parses(parser: Callable[[str], Any]) -> Callable[[Any], bool]:
    def parsed(reply: Any) -> bool:
        if reply.failed or reply.text is None:
            return False
        try:
            return parser(reply.text) is not None
        except ValueError:
            return False

    return parsed


def _roles(extract_tokens: int) -> dict[str, tuple[Callable[[Any], None], Callable[[Any], bool]]]:
    """Each role: (what runs it on a client, whether one of its replies parses)."""
    from factscope.checkers.base import CheckTask
    from factscope.checkers.llm import LLMChecker, parse_label
    from factscope.checkers.minicheck_llm import MiniCheckLLMChecker, parse_yes_no
    from factscope.checkers.options import CheckerOptions
    from factscope.claims.llm_facts import LLMFactExtractor, parse_facts
    from factscope.claims.llm_triplets import TripletExtractor, parse_claims
    from factscope.core.text import split_sentences
    from factscope.grounding.presence import LLMJudgePresence, parse_judgement
    from factscope.kalma.answers import load_answers
    from factscope.kalma.text_quality import judge_text_quality
    from factscope.metrics.geval import parse_score

    records = _read(REPO / "examples/check.jsonl")
    texts = [record["response"] for record in records]
    questions = [record.get("question") for record in records]
    tasks = [
        CheckTask(sentence, tuple(record.get("references") or [record["reference"]]), record.get("question"))
        for record in records for sentence in split_sentences(record["response"])
    ]
    ground = _read(REPO / "examples/ground/records.jsonl")
    pairs = [(fact, context) for record in ground for fact in record["gold_facts"] for context in record["contexts"]]
    answers = load_answers(REPO / "examples/attribute/answers.jsonl").records
    single = CheckerOptions(llm_mode="single")  # one claim a call: the reply a label

    def extraction_parses(reply: Any) -> bool:
        if reply.failed or reply.text is None:
            return False
        try:
            parse_claims(reply.text, sentence_count=50)
        except ValueError:
            return False
        return True

    return {
        "claim_extraction": (
            lambda client: TripletExtractor(client, max_tokens=extract_tokens).extract(texts, questions),
            extraction_parses,
        ),
        "fact_decomposition": (
            lambda client: LLMFactExtractor(client, max_tokens=extract_tokens).extract(texts[:3]),
            _parses(parse_facts),
        ),
        "llm_checker": (lambda client: LLMChecker(client, single).check(tasks), _parses(parse_label)),
        "minicheck_llm": (lambda client: MiniCheckLLMChecker(client).check(tasks), _parses(parse_yes_no)),
        "presence_judge": (lambda client: LLMJudgePresence(client).score_pairs(pairs), _parses(parse_judgement)),
        "geval": (lambda client: judge_text_quality(answers, client), _parses(parse_score)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-tokens", type=int, default=48, help="reply limit of calls that name none")
    parser.add_argument("--extract-tokens", type=int, default=160, help="reply limit of the two extractors")
    parser.add_argument("--roles", nargs="*", default=None, help="only these roles")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.hf.chat_model import shared_chat_model
    from factscope.hf.in_process_llm import IN_PROCESS_URL, InProcessLLMClient
    from factscope.llm.config import LLMConfig

    model = shared_chat_model("embedded")
    config = LLMConfig(base_url=IN_PROCESS_URL, model="embedded", max_tokens=args.max_tokens)
    figures: dict[str, Any] = {"model": "local:embedded", "roles": {}}
    for role, (run, parses) in _roles(args.extract_tokens).items():
        if args.roles and role not in args.roles:
            continue
        row: dict[str, Any] = {}
        for mode, constrained in (("free", False), ("constrained", True)):
            client = InProcessLLMClient(model, config, constrained=constrained)
            recorder = Recorder(client)
            started = time.perf_counter()
            run(client)
            seconds = time.perf_counter() - started
            replies = recorder.replies
            failed = sum(not parses(reply) for reply in replies)
            row[mode] = {
                "calls": len(replies),
                "unparseable": failed,
                "unparseable_share": failed / len(replies) if replies else None,
                "truncated": sum(bool(reply.truncated) for reply in replies),
                "completion_tokens": client.usage.completion_tokens,
                "seconds": seconds,
                "commonest_replies": Counter(
                    (reply.text or "")[:80] for reply in replies if not reply.failed
                ).most_common(3),
            }
            print(role, mode, row[mode], flush=True)
        figures["roles"][role] = row
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
