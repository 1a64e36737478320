"""Realistic long-page records for the fast-mode benchmark: several real claims against several long documents.

Each record is a response of ``claims`` real claims from one public set, checked against ``claims`` pages of about
``page_tokens`` tokens, one page per claim, shuffled. The sets (the shared data's ``claims/`` files):

- **contractnli**: ContractNLI's whole non-disclosure agreements (1,100 to 1,900 words each) are the pages, as they
  are; each claim is one of the hypotheses annotated against its contract (labels mixed);
- **factcheckgpt**: Factcheck-GPT's claims; a page is every web snippet retrieved for the claim, with snippets
  retrieved for other claims placed around them until the page is long enough (a search-result page);
- **control**: ConTRoL's claims; a page is the claim's passage among other ConTRoL passages;
- **summedits**: the first sentence of a SummEdits summary (consistent or minimally edited); a page is its source
  document among other SummEdits documents.

The same seed gives the same records.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TOKENS_PER_WORD = 1.3
"""Word-piece tokens per whitespace word in English prose, to size pages before any tokenizer is loaded."""

SETS = ("contractnli", "factcheckgpt", "control", "summedits")
DEFAULT_DATA = Path("/work/shared/data/claims")


def _rows(folder: Path, name: str) -> list[dict[str, Any]]:
    path = folder / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _words(text: str) -> int:
    return len(text.split())


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def _padded(own: list[str], fillers: list[str], words: int, generator: random.Random) -> str:
    """``own`` passages with random ``fillers`` inserted among them until the page has ``words`` words."""
    parts = list(own)
    pool = [text for text in fillers if text not in own]
    while sum(_words(part) for part in parts) < words:
        parts.insert(generator.randint(0, len(parts)), generator.choice(pool))
    return "\n\n".join(parts)


def _contractnli(folder: Path, claims: int, words: int, generator: random.Random) -> Iterator[dict[str, Any]]:
    rows = _rows(folder, "contractnli")
    by_document: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_document.setdefault(row["premise"], []).append(row)
    documents = sorted(doc for doc in by_document if 0.7 * words <= _words(doc) <= 1.25 * words)
    generator.shuffle(documents)
    labels = ("entailment", "neutral", "contradiction")
    while len(documents) >= claims:
        chosen, documents = documents[:claims], documents[claims:]
        picked = []
        for number, document in enumerate(chosen):
            wanted = [row for row in by_document[document] if row["label"] == labels[number % 3]]
            picked.append(generator.choice(wanted or by_document[document]))
        yield {
            "claims": [row["hypothesis"] for row in picked],
            "gold": [row["label"] for row in picked],
            "pages": chosen,
        }


def _factcheckgpt(
    folder: Path, claims: int, words: int, generator: random.Random
) -> Iterator[dict[str, Any]]:
    rows = _rows(folder, "factcheckgpt")
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["group"], []).append(row)
    names = sorted(name for name, found in groups.items() if len({r["premise"] for r in found}) >= 3)
    generator.shuffle(names)
    snippets = sorted({row["premise"] for row in rows})
    while len(names) >= claims:
        chosen, names = names[:claims], names[claims:]
        pages, found, gold = [], [], []
        for name in chosen:
            own = sorted({row["premise"] for row in groups[name]})
            pages.append(_padded(own, snippets, words, generator))
            found.append(groups[name][0]["hypothesis"])
            labels = {row["label"] for row in groups[name]}
            gold.append(
                next((label for label in ("entailment", "contradiction") if label in labels), "neutral")
            )
        yield {"claims": found, "gold": gold, "pages": pages}


def _passages(
    name: str, folder: Path, claims: int, words: int, generator: random.Random, summary_sentence: bool
) -> Iterator[dict[str, Any]]:
    rows = _rows(folder, name)
    by_passage: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_passage.setdefault(row["premise"].strip(), []).append(row)
    passages = sorted(by_passage)
    order = list(passages)
    generator.shuffle(order)
    while len(order) >= claims:
        chosen, order = order[:claims], order[claims:]
        picked = [generator.choice(by_passage[passage]) for passage in chosen]
        found = [
            _first_sentence(row["hypothesis"]) if summary_sentence else row["hypothesis"] for row in picked
        ]
        pages = [_padded([passage], passages, words, generator) for passage in chosen]
        yield {"claims": found, "gold": [row["label"] for row in picked], "pages": pages}


def build_records(
    folder: Path, per_set: dict[str, int], claims: int = 6, page_tokens: int = 2000, seed: int = 53
) -> list[dict[str, Any]]:
    """``per_set[name]`` records of each set, interleaved (one of each set in turn); each record has ``claims``
    claims against ``claims`` shuffled pages of about ``page_tokens`` tokens."""
    words = round(page_tokens / TOKENS_PER_WORD)
    sources = {
        "contractnli": lambda g: _contractnli(folder, claims, words, g),
        "factcheckgpt": lambda g: _factcheckgpt(folder, claims, words, g),
        "control": lambda g: _passages("control", folder, claims, words, g, False),
        "summedits": lambda g: _passages("summedits", folder, claims, words, g, True),
    }
    built: dict[str, list[dict[str, Any]]] = {}
    for name, count in per_set.items():
        if name not in sources:
            raise ValueError(f"unknown set {name!r}: one of {', '.join(SETS)}")
        generator = random.Random(f"{seed}-{name}")
        found = []
        for number, record in zip(range(count), sources[name](generator)):
            generator.shuffle(record["pages"])
            found.append({"id": f"{name}-{number}", "set": name, **record})
        if len(found) < count:
            raise ValueError(f"{name} gives only {len(found)} records of {claims} claims, not {count}")
        built[name] = found
    records = []
    for turn in range(max(per_set.values(), default=0)):
        records.extend(found[turn] for found in built.values() if turn < len(found))
    return records


def add_record_options(parser: argparse.ArgumentParser, sets: tuple[str, ...]) -> None:
    """The options that choose the records: ``--data``, ``--sets`` (default ``sets``), ``--page-tokens``, ``--seed``."""
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data's claims/ folder")
    parser.add_argument("--sets", nargs="+", default=list(sets), help="NAME=RECORDS for each set")
    parser.add_argument("--page-tokens", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=53)


def records_from_options(args: argparse.Namespace, claims: int) -> list[dict[str, Any]]:
    """The records the options of :func:`add_record_options` choose, of ``claims`` claims each."""
    per_set = {name: int(count) for name, count in (item.split("=") for item in args.sets)}
    return build_records(args.data, per_set, claims, args.page_tokens, args.seed)
