"""Building a checker from a short spec string, as the CLI and the tasks name them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factscope.checkers.base import Checker
from factscope.core.errors import ConfigError

CHECKER_SPECS = (
    "embedded (default: the offline checker shipped with factscope), "
    "similarity[:MODEL] (bi-encoder cosine threshold, never Contradiction), "
    "nli:MODEL (any Hugging Face NLI classifier or CrossEncoder, hub name or folder), "
    "path:DIR (a checker trained with `factscope train-checker`, or a local NLI model folder), "
    "llm (an OpenAI-compatible chat model; see --llm-* options)"
)


def make_checker(
    spec: str = "embedded",
    *,
    llm: Any = None,
    max_tokens: int = 200,
    batch_size: int = 32,
    similarity_threshold: float = 0.7,
    label_order: list[str] | None = None,
    llm_mode: str = "joint",
) -> Checker:
    """A Checker for ``spec``; model checkers are wrapped to segment long references (``max_tokens``)."""
    from factscope.checkers.segmented import SegmentedChecker

    kind, _, argument = spec.partition(":")
    if kind == "embedded" and not argument:
        from factscope.checkers.embedded import load_embedded_scorer

        return SegmentedChecker(load_embedded_scorer(), max_tokens=max_tokens, name="embedded")
    if kind == "nli" and argument:
        from factscope.hf.nli import HFNLIScorer

        return SegmentedChecker(
            HFNLIScorer(argument, batch_size=batch_size, label_order=label_order), max_tokens=max_tokens
        )
    if kind == "path" and argument:
        return SegmentedChecker(_scorer_from_folder(Path(argument), batch_size, label_order), max_tokens=max_tokens)
    if kind == "similarity":
        from factscope.checkers.similarity import SimilarityChecker
        from factscope.hf.encoders import BiEncoder

        return SimilarityChecker(BiEncoder(argument or None), threshold=similarity_threshold)
    if kind == "llm" and not argument:
        if llm is None:
            raise ConfigError(
                "the llm checker needs a chat model: pass --llm-base-url and --llm-model "
                "(or set FACTSCOPE_LLM_BASE_URL and FACTSCOPE_LLM_MODEL)"
            )
        from factscope.checkers.llm import LLMChecker

        return LLMChecker(llm, mode=llm_mode)
    raise ConfigError(f"unknown checker '{spec}'; use one of: {CHECKER_SPECS}")


def _scorer_from_folder(folder: Path, batch_size: int, label_order: list[str] | None) -> Any:
    """A trained factscope checker folder (it has a manifest.json) or a plain Hugging Face NLI model folder."""
    if not folder.is_dir():
        raise ConfigError(f"checker folder '{folder}' does not exist")
    manifest = folder / "manifest.json"
    if manifest.exists() and "method" in json.loads(manifest.read_text(encoding="utf-8")):
        from factscope.checkers.embedded import load_embedded_scorer

        return load_embedded_scorer(folder)
    if (folder / "config.json").exists():
        from factscope.hf.nli import HFNLIScorer

        return HFNLIScorer(str(folder), batch_size=batch_size, label_order=label_order)
    raise ConfigError(f"'{folder}' is neither a factscope checker (manifest.json) nor a Hugging Face model (config.json)")
