"""Speed and memory of the embedded SmolLM2-135M-Instruct run by transformers in-process: as CONNER's causal LM
(``--lm embedded``) and as the LLM of every role (``--llm local:embedded``).

Measured (the machine, its load and torch's threads are in the results file):

- ``load``: in a fresh process each, the seconds to ``EmbeddedLM()`` ready with an empty cache folder (the GGUF
  file read, dequantised and written as safetensors) and again with that folder filled, the seconds to import
  torch and transformers before it, and each process's peak resident memory;
- ``scoring``: the (context, continuation) pairs CONNER scores for the six shipped knowledge records
  (``examples/knowledge/records.jsonl``), scored afresh in batches: tokens per second;
- ``generation``: greedy chat replies of at most ``--max-tokens`` tokens to four questions, one call at a time
  and as one batch: completion tokens per second; and one-label replies held to the LLM checker's format;
- ``peak_rss_mib``: this process's peak resident memory after all of it.

    python benchmarks/in_process_llm.py
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from knowledge_lm_workload import PROMPTS, conner_pairs, knowledge_records
from results_file import add_out_option, write_results

REPO = Path(__file__).resolve().parent.parent
LOAD = """
import json, resource, time
started = time.perf_counter()
import torch, transformers
imported = time.perf_counter()
from factscope.hf.embedded_lm import EmbeddedLM
EmbeddedLM()
ready = time.perf_counter()
print(json.dumps({"import_seconds": imported - started, "load_seconds": ready - imported,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _load() -> dict[str, Any]:
    """Load times in fresh processes: an empty cache folder, then the same folder filled."""
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache, "PYTHONPATH": str(REPO / "src")}
        for name in ("first", "cached"):
            done = subprocess.run([sys.executable, "-c", LOAD], env=env, capture_output=True, text=True, check=True)
            figures[name] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _scoring(lm: Any) -> dict[str, Any]:
    records = knowledge_records()
    pairs = conner_pairs(lm, records)
    lm._cache = type(lm._cache)(lm._cache.size)  # score afresh: no pair kept from the recording run
    unique = list(dict.fromkeys(pairs))
    tokens = sum(len(lm._encode(*pair)[0]) for pair in unique)
    started = time.perf_counter()
    lm.logprobs(unique)
    seconds = time.perf_counter() - started
    return {"records": len(records), "pairs": len(unique), "tokens": tokens, "seconds": seconds,
            "tokens_per_second": tokens / seconds, "batch_size": lm.batch_size}


def _generation(max_tokens: int) -> dict[str, Any]:
    from factscope.checkers.llm import LABEL_FORMAT
    from factscope.hf.chat_model import Decoding, shared_chat_model

    model = shared_chat_model("embedded")
    conversations = [[{"role": "user", "content": prompt}] for prompt in PROMPTS]
    model.generate(conversations[:1], Decoding(4))  # warm-up
    figures: dict[str, Any] = {"max_tokens": max_tokens}
    started = time.perf_counter()
    single = [model.generate([conversation], Decoding(max_tokens))[0] for conversation in conversations]
    seconds = time.perf_counter() - started
    tokens = sum(reply.completion_tokens for reply in single)
    figures["one_at_a_time"] = {"replies": len(single), "completion_tokens": tokens, "seconds": seconds,
                                "completion_tokens_per_second": tokens / seconds}
    started = time.perf_counter()
    batch = model.generate(conversations, Decoding(max_tokens))
    seconds = time.perf_counter() - started
    tokens = sum(reply.completion_tokens for reply in batch)
    figures["one_batch"] = {"replies": len(batch), "completion_tokens": tokens, "seconds": seconds,
                            "completion_tokens_per_second": tokens / seconds,
                            "same_replies_as_one_at_a_time": [r.text for r in batch] == [r.text for r in single]}
    claims = [[{"role": "user", "content": f"Reference: Paris is the capital of France.\nClaim: Paris is {place}.\n"
                                           "Answer Entailment, Neutral or Contradiction."}]
              for place in ("in France", "in Peru", "old", "large")]
    model.generate(claims[:1], Decoding(8), [LABEL_FORMAT])  # builds the grammar's token table once
    started = time.perf_counter()
    labels = model.generate(claims, Decoding(8), [LABEL_FORMAT] * len(claims))
    seconds = time.perf_counter() - started
    figures["labels_one_batch"] = {"replies": [reply.text for reply in labels], "seconds": seconds,
                                   "completion_tokens": sum(reply.completion_tokens for reply in labels)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-tokens", type=int, default=64, help="reply length limit of the generation figures")
    add_out_option(parser)
    args = parser.parse_args()

    import torch

    from factscope.hf.embedded_lm import EmbeddedLM, embedded_model_path

    figures: dict[str, Any] = {"model": "embedded:SmolLM2-135M-Instruct",
                               "gguf_bytes": embedded_model_path().stat().st_size,
                               "device": "cuda" if torch.cuda.is_available() else "cpu",
                               "torch_threads": torch.get_num_threads()}
    figures["load"] = _load()
    lm = EmbeddedLM()
    figures["dequantised_bytes"] = sum(path.stat().st_size for path in Path(lm.model.name_or_path).iterdir())
    figures["scoring"] = _scoring(lm)
    figures["generation"] = _generation(args.max_tokens)
    figures["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures, indent=2))
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
