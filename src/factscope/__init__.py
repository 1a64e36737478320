"""factscope: check what language models write against knowledge.

The one-call Python API of the check task is ``factscope.check``; the other tasks live in
``factscope.grounding.task``, ``factscope.kalma.task`` and ``factscope.conner.task``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from factscope.refchecker.task import CheckRun

__version__ = "0.1.0"


def check(
    records: str | Path | Iterable[Any],
    *,
    extractor: Any = "rules",
    checker: Any = "embedded",
    llm: Any = None,
    output: str | Path | None = None,
    **options: Any,
) -> CheckRun:
    """Extract claims from responses and check them against references (RefChecker).

    ``records`` is a JSON / JSONL path, or an iterable of ``Record`` objects or dicts in the input format
    (``response``, ``references`` or ``reference``, optional ``id``, ``question``, ``setting``). ``extractor`` and
    ``checker`` are spec strings ('rules', 'embedded', 'nli:MODEL', 'llm', ...) or ready objects; ``llm`` is an
    ``LLMClient`` for the LLM ones. Bad records in a file are skipped; bad dicts raise InputError. Remaining
    ``options`` go to ``factscope.refchecker.task.check`` (retriever, retrieve_k, batch_size).
    """
    from factscope.checkers.registry import make_checker
    from factscope.claims.registry import make_extractor
    from factscope.core.schema import Record
    from factscope.refchecker.data import load_check_records, parse_record
    from factscope.refchecker.task import check as run_check

    if isinstance(records, (str, Path)):
        loaded, _ = load_check_records(records)
    else:
        loaded = [
            item if isinstance(item, Record) else parse_record(item, path="<records>", line=index)
            for index, item in enumerate(records, start=1)
        ]
    return run_check(
        loaded,
        extractor=make_extractor(extractor, llm=llm) if isinstance(extractor, str) else extractor,
        checker=make_checker(checker, llm=llm) if isinstance(checker, str) else checker,
        output=output,
        **options,
    )
