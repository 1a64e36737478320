"""The inspect_ai scorers in a real inspect evaluation: a tiny task, inspect's mock model answering, the embedded
checker scoring, and the scores read back from the eval log on disk."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("inspect_ai", reason="the inspect_ai scorers need the extra 'inspect'")

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from doc_examples import python_blocks, run_block
from factscope.integrations.inspect_ai import claims_supported, grounded_in_context

CONTEXT = "Paris is the capital and largest city of France, with 2.1 million residents."
ANSWERS = {
    "What is the capital of France?": "Paris is the capital of France.",
    "How many people live in Paris?": "Paris is the capital of France. It has 90 million people.",
}


def _answer(messages, tools, tool_choice, config) -> ModelOutput:
    """The mock model's reply to a question; with its token usage given, so that inspect counts no tokens (its
    tokenizer would be downloaded)."""
    output = ModelOutput.from_content("mockllm/model", ANSWERS[messages[-1].text])
    output.usage = ModelUsage(input_tokens=8, output_tokens=12, total_tokens=20)
    return output


def test_the_scores_of_an_inspect_eval_reach_its_log(tmp_path):
    task = Task(
        dataset=[
            Sample(id=1, input="What is the capital of France?", target=CONTEXT, metadata={"context": CONTEXT}),
            Sample(id=2, input="How many people live in Paris?", target=CONTEXT, metadata={"context": [CONTEXT]}),
        ],
        solver=generate(),
        scorer=[
            claims_supported(extractor="sentences"),
            grounded_in_context(extractor="sentences", presence="nli:embedded"),
        ],
    )
    logs = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=_answer), log_dir=str(tmp_path),
                        display="none")
    assert logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)
    samples = {sample.id: sample.scores for sample in log.samples}
    assert samples[1]["claims_supported"].value == {"supported": 1.0, "contradicted": 0.0}
    assert samples[2]["claims_supported"].value == {"supported": 0.5, "contradicted": 0.5}
    assert "Contradiction: It has 90 million people." in samples[2]["claims_supported"].explanation
    assert [c["verdict"]["label"] for c in samples[2]["claims_supported"].metadata["claims"]] == [
        "Entailment", "Contradiction"]
    hallucinated = samples[2]["claims_supported"].metadata["hallucinated"]
    assert hallucinated["hallucinated"] and [s["text"] for s in hallucinated["labels"]] == ["It has 90 million people."]
    spans = samples[2]["claims_supported"].metadata["spans"]
    assert "".join(s["text"] for s in spans) == ANSWERS["How many people live in Paris?"]
    assert samples[1]["grounded_in_context"].value == 1.0 and samples[2]["grounded_in_context"].value == 0.5
    assert "not found: It has 90 million people." in samples[2]["grounded_in_context"].explanation
    metrics = {(s.name, name): metric.value for s in log.results.scores for name, metric in s.metrics.items()}
    assert metrics[("supported", "mean")] == pytest.approx(0.75)
    assert metrics[("contradicted", "mean")] == pytest.approx(0.25)
    assert metrics[("grounded_in_context", "mean")] == pytest.approx(0.75)


def test_the_task_of_the_guide_scores_a_grounded_answer(tmp_path):
    guide = run_block(python_blocks("guides/inspect-ai.md")[0], tmp_path)
    output = ModelOutput.from_content("mockllm/model", "Marie Curie was born in Warsaw.")
    output.usage = ModelUsage(input_tokens=30, output_tokens=6, total_tokens=36)
    logs = inspect_eval(guide["rag_answers"](), model=get_model("mockllm/model", custom_outputs=[output]),
                        log_dir=str(tmp_path / "logs"), display="none")
    assert logs[0].status == "success", logs[0].error
    (sample,) = read_eval_log(logs[0].location).samples
    assert sample.scores["claims_supported"].value == {"supported": 1.0, "contradicted": 0.0}
    assert sample.scores["grounded_in_context"].value == 1.0


def test_without_inspect_ai_the_error_names_the_extra():
    code = ("import sys; sys.modules['inspect_ai.scorer'] = None\n"
            "try:\n    import factscope.integrations.inspect_ai\n"
            "except Exception as error:\n    print(type(error).__name__, error)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.startswith("ConfigError") and "pip install 'factscope[inspect]'" in done.stdout
