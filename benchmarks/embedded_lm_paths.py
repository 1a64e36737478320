"""CONNER's LM scores from the embedded SmolLM2 through transformers (``--lm embedded``) against llama.cpp's
(``--lm llamacpp:embedded``), on the shipped knowledge examples.

Both paths read the same Q4_1 GGUF file. Transformers dequantises its weights exactly (Q4_1 is a scale and an
offset per block of 32) and computes in float32; llama.cpp multiplies the quantised weights by activations it
rounds to 8 bits (Q8_1), so the two differ slightly. Figures:

- ``recorded_llama_cpp``: ln P of " is the capital of France." after "Paris", from the transformers path, next to
  the values llama.cpp gave in-process (recorded to one decimal in docs/guides/local-llm.md when llama.cpp was the
  embedded path), and their largest difference;
- ``transformers``: sentence coherence, informativeness and helpfulness of the six records of
  ``examples/knowledge/records.jsonl`` (their evidence, no other part), and the seconds they took;
- ``llama_cpp``: the same from llama.cpp, and per metric the largest absolute difference, where the ``llamacpp``
  extra is installed (``pip install 'factscope[llamacpp]'``, which compiles llama.cpp); otherwise a note.

    python benchmarks/embedded_lm_paths.py
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from results_file import add_out_option, write_results

REPO = Path(__file__).resolve().parent.parent
METRICS = ("coherence_sentence", "informativeness", "helpfulness")
LLAMA_CPP_PARIS = [-3.8, -2.3, -3.0, -0.3, -2.6, -1.6]
"""llama.cpp's in-process ln P of " is", " the", " capital", " of", " France", "." after "Paris"."""


def _scores(lm: Any) -> dict[str, Any]:
    from factscope.conner.data import read_knowledge_records
    from factscope.conner.evaluator import KnowledgeEvaluator

    records = [record for _, record in read_knowledge_records(REPO / "examples/knowledge/records.jsonl")]
    started = time.perf_counter()
    results = KnowledgeEvaluator(lm=lm).score(records)
    seconds = time.perf_counter() - started
    rows = [{metric: getattr(result, metric) for metric in METRICS} for result in results]
    return {"model": lm.name, "seconds": seconds, "records": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.hf.embedded_lm import EmbeddedLM
    from factscope.hf.llama_cpp_lm import LlamaCppLM, llama_cpp_available

    lm = EmbeddedLM()
    (paris,) = lm.logprobs([("Paris", " is the capital of France.")])
    figures: dict[str, Any] = {
        "recorded_llama_cpp": {
            "transformers": [round(float(value), 4) for value in paris],
            "llama_cpp_recorded": LLAMA_CPP_PARIS,
            "max_abs_difference": max(abs(float(a) - b) for a, b in zip(paris, LLAMA_CPP_PARIS)),
        },
        "transformers": _scores(lm),
    }
    if llama_cpp_available():
        reference = _scores(LlamaCppLM())
        figures["llama_cpp"] = reference
        figures["max_abs_difference"] = {
            metric: max(
                abs(new[metric] - old[metric])
                for new, old in zip(figures["transformers"]["records"], reference["records"])
                if new[metric] is not None and old[metric] is not None
            )
            for metric in METRICS
        }
    else:
        figures["llama_cpp"] = "not installed here: pip install 'factscope[llamacpp]' and rerun for the comparison"
    print(figures)
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
