"""Speed of the embedded LM run by llama.cpp (SmolLM2-135M-Instruct, Q4_1 GGUF, the ``llamacpp`` extra) and of its
local server; ``in_process_llm.py`` measures the transformers path.

Measured, each after a warm-up call:

- ``load_seconds``: loading the GGUF in-process (``LlamaCppLM()``);
- ``score_25_tokens_ms``: log-probabilities of a 25-token continuation after a short context (median of
  ``--repeats``), and ``scoring_tokens_per_second`` over the pairs CONNER scores for the shipped knowledge
  examples (each pair scored afresh: no cache, no shared prefix);
- ``knowledge_lm_seconds``: sentence coherence, informativeness and helpfulness of the six shipped knowledge
  records (``examples/knowledge/records.jsonl``) with the embedded LM and no other part;
- ``generation``: greedy chat replies of at most ``--max-tokens`` tokens in-process: completion tokens per
  second, prompt tokens per second and seconds per reply;
- ``server``: ``python -m llama_cpp.server`` with the same file: seconds from start until it answers, and the
  seconds of one chat reply and one echoed-prompt completion (as `--lm endpoint` sends) over HTTP on 127.0.0.1.

Threads: ``--threads`` (default: half the usable cores, as ``LlamaCppLM`` and llama.cpp choose). The figures go to ``benchmarks/results/local_lm_speed.json``.

    python benchmarks/local_lm_speed.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from knowledge_lm_workload import PROMPTS, conner_pairs, knowledge_records
from results_file import add_out_option, write_results
from serve_process import free_port


def _scoring(lm, repeats: int) -> dict[str, float]:
    context = "Question: who wrote the song the glory of love\nKnowledge:"
    continuation = (" The Glory of Love is a song written by Billy Hill in 1936, and recorded by Benny Goodman,"
                    " whose version reached number one.")
    ids, first = lm._encode(context, continuation)
    lm._score(ids, first)
    times = []
    for _ in range(repeats):
        lm.model.n_tokens = 0  # score afresh: no state kept from the previous call
        started = time.perf_counter()
        lm._score(ids, first)
        times.append(time.perf_counter() - started)
    return {"continuation_tokens": len(ids) - first, "context_tokens": first,
            "score_ms_median": 1000 * statistics.median(times)}


def _knowledge(lm) -> dict[str, float]:
    from factscope.conner.evaluator import KnowledgeEvaluator

    records = knowledge_records()
    evaluator = KnowledgeEvaluator(lm=lm)
    pairs = conner_pairs(lm, records)
    lm._cache = type(lm._cache)(lm._cache.size)
    lm.model.n_tokens = 0
    started = time.perf_counter()
    evaluator.score(records)
    seconds = time.perf_counter() - started
    lm._cache = type(lm._cache)(lm._cache.size)
    tokens = 0
    started = time.perf_counter()
    for pair in pairs:
        ids, first = lm._encode(*pair)
        lm.model.n_tokens = 0
        lm._score(ids, first)
        tokens += len(ids)
    fresh = time.perf_counter() - started
    return {"records": len(records), "pairs": len(pairs), "knowledge_lm_seconds": seconds,
            "scoring_tokens": tokens, "scoring_seconds_without_prefix_reuse": fresh,
            "scoring_tokens_per_second": tokens / fresh}


def _generation(model, max_tokens: int) -> dict[str, float]:
    model.create_chat_completion([{"role": "user", "content": "Hello"}], max_tokens=4, temperature=0.0)
    prompt_tokens = completion_tokens = 0
    seconds = 0.0
    for prompt in PROMPTS:
        started = time.perf_counter()
        reply = model.create_chat_completion([{"role": "user", "content": prompt}], max_tokens=max_tokens,
                                             temperature=0.0)
        seconds += time.perf_counter() - started
        prompt_tokens += reply["usage"]["prompt_tokens"]
        completion_tokens += reply["usage"]["completion_tokens"]
    return {"replies": len(PROMPTS), "max_tokens": max_tokens, "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens, "seconds_per_reply": seconds / len(PROMPTS),
            "completion_tokens_per_second": completion_tokens / seconds}


def _server(model_path: Path, threads: int, max_tokens: int) -> dict[str, float]:
    port = free_port()
    log = Path(tempfile.mkdtemp()) / "server.log"
    started = time.perf_counter()
    with log.open("wb") as written:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path), "--model_alias", "smollm2",
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", str(threads),
             "--n_threads_batch", str(threads)],
            stdout=written, stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        with httpx.Client(timeout=60) as client:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the server stopped: {log.read_text()[-2000:]}")
                try:
                    if client.get(f"{base}/models").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.perf_counter() - started > 120:
                    raise RuntimeError("the server did not answer within 120 s")
                time.sleep(0.1)
            ready = time.perf_counter() - started
            chat = []
            for prompt in PROMPTS:
                begun = time.perf_counter()
                reply = client.post(f"{base}/chat/completions", json={
                    "model": "smollm2", "messages": [{"role": "user", "content": prompt}],
                    "max_tokens": max_tokens, "temperature": 0})
                reply.raise_for_status()
                chat.append(time.perf_counter() - begun)
            begun = time.perf_counter()
            echoed = client.post(f"{base}/completions", json={
                "model": "smollm2", "prompt": "Paris is the capital and most populous city of France.",
                "max_tokens": 1, "echo": True, "logprobs": 0, "temperature": 0})
            echoed.raise_for_status()
            echo_seconds = time.perf_counter() - begun
    finally:
        process.terminate()
        process.wait(30)
    return {"ready_seconds": ready, "chat_seconds_median": statistics.median(chat),
            "echo_logprobs_seconds": echo_seconds,
            "echo_tokens": len(echoed.json()["choices"][0]["logprobs"]["tokens"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: half the usable cores)")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=64, help="reply length limit of the generation figures")
    parser.add_argument("--no-server", action="store_true", help="skip the server figures")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.hf.embedded_lm import embedded_model_path
    from factscope.hf.llama_cpp_lm import LlamaCppLM, cpu_threads

    threads = args.threads or cpu_threads()
    started = time.perf_counter()
    lm = LlamaCppLM(threads=threads)
    load = time.perf_counter() - started
    figures: dict[str, object] = {"model": lm.name, "model_file_bytes": embedded_model_path().stat().st_size,
                                  "threads": threads, "load_seconds": load}
    figures["scoring"] = _scoring(lm, args.repeats)
    figures["knowledge"] = _knowledge(lm)
    figures["generation"] = _generation(lm.model, args.max_tokens)
    if not args.no_server:
        figures["server"] = _server(embedded_model_path(), threads, args.max_tokens)
    print(json.dumps(figures, indent=2))
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
