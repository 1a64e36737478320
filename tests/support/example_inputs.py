"""What the example command lines stand on, made for a test that runs them as written (see
tests/cli/test_command_examples.py):

- every example runs in a fresh folder holding the shipped example files under ``examples/`` (what `factscope
  examples` writes);
- a file or folder an example names stands for a reader's own: it is made from the shipped example of the
  command's system (``answers.jsonl`` for `check` is ``examples/check.jsonl``; for `attribute`, the shipped
  attribute answers), from labelled pairs (tests/support/nli_pairs.py) for `train-checker` and `eval-checker`, or
  from a results file or checker folder that an earlier example makes, built once per session;
- a hub model name stands for a tiny model of the same kind built once per session (tests/support/tiny_models.py,
  tiny_judges.py), and a local endpoint's URL for the fake LLM server.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from nli_pairs import write_pairs
from repo_paths import DATA, EXAMPLES
from tiny_models import WORDS, build_nli_classifier

LOCAL_ENDPOINT = "http://localhost:8000/v1"
"""The endpoint the guides' examples name for a local server; the fake LLM server stands for it."""

NLI_MODELS = (
    "MODEL",
    "roberta-large-mnli",
    "sentence-transformers/nli-roberta-large",
    "MoritzLaurer/DeBERTa-v3-base-mnli",
    "MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli",
)
"""Hub NLI classifiers (and the MODEL placeholder): a tiny three-label classifier stands for each."""

MODELS: dict[str, str] = {
    **dict.fromkeys(NLI_MODELS, "nli"),
    "cross-encoder/ms-marco-MiniLM-L-6-v2": "ranker",
    "gpt2": "lm",
    "EleutherAI/gpt-neo-2.7B": "lm",
    "lytang/MiniCheck-Flan-T5-Large": "minicheck-t5",
    "lytang/MiniCheck-RoBERTa-Large": "minicheck-roberta",
    "vectara/hallucination_evaluation_model": "hhem",
}
"""Each hub model name an example uses, and the kind of tiny model that stands for it."""

PAIRS_FILES = (
    "mnli_dev_matched.jsonl",
    "pairs.jsonl",
    "my_pairs.jsonl",
    "summedits.jsonl",
    "begin.jsonl",
    "mnli.jsonl",
    "llm_aggrefact_test.jsonl",
    "llm_aggrefact_dev.jsonl",
    "my_test.jsonl",
    "my_dev.jsonl",
    "factcheckgpt.jsonl",
    "support_labels.jsonl",
    "my_claims.jsonl",
    "pairs.csv",
    "llm_aggrefact_test.parquet",
)
"""Labelled pair sets the checker examples read: 9 pairs, one per template (a CSV or Parquet table of
them for those names)."""

CHECK_INPUTS = (
    "answers.jsonl",
    "records.jsonl",
    "claims.jsonl",
    "responses.jsonl",
    "zero.jsonl",
    "zero_context.jsonl",
    "answers.csv",
)
"""Records to check: the shipped examples/check.jsonl (a CSV table of it for answers.csv)."""

CHECK_RESULTS = ("checked.jsonl", "gpt.checked.jsonl", "llama.checked.jsonl", "check.checked.jsonl")
"""A check's results file: the offline check of examples/check.jsonl."""

CHECKER_FOLDERS = (
    "my_checker",
    "my-checker",
    "my_checker_fp32",
    "support_checker",
    "mpnet_checker",
    "my-mpnet",
)
"""A trained checker's folder: `factscope train-checker` on labelled pairs."""

SHIPPED = {
    "ground": {
        "data.json": "ground/original.json",
        "data/original.json": "ground/original.json",
        "meta.json": "ground/metadata.json",
        "data/meta.json": "ground/metadata.json",
        "records.jsonl": "ground/records.jsonl",
        "labels.jsonl": "ground/labels.jsonl",
        "wiki.jsonl": "ground/corpus.jsonl",
        "original-dist.responses.jsonl": "ground/responses.jsonl",
    },
    "attribute": {
        "answers.jsonl": "attribute/answers.jsonl",
        "questions.jsonl": "attribute/questions.jsonl",
        "graph.jsonl": "attribute/graph.jsonl",
    },
    "knowledge": {
        "knowledge.jsonl": "knowledge/records.jsonl",
        "wiki.jsonl": "knowledge/corpus.jsonl",
        "queries.jsonl": "knowledge/records.jsonl",
        "train.jsonl": "knowledge/records.jsonl",
        "human.jsonl": "knowledge/human.jsonl",
    },
}
"""Per system, the names that stand for one of the shipped example files."""

TEST_DATA = {
    "nq_test_random_testset.txt": "knowledge/nq_random_testset.txt",
    "llama_nq_knowledge": "knowledge/nq_knowledge",
}
"""Names that stand for one of the tests' own data files (CONNER's released layouts)."""

Command = Callable[..., None]
"""Runs ``factscope ARGS`` in-process in a given folder and fails the test unless it exits 0."""


class Workspace:
    """The session's tiny models, results files and checker folders, each built on first use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._made: dict[str, Path] = {}

    def model(self, kind: str) -> Path:
        """The tiny model of ``kind`` (a value of MODELS)."""
        return self._once(f"model-{kind}", lambda folder: _build_model(kind, folder))

    def results(self, system: str, factscope: Command) -> Path:
        """A results file of ``system`` (check, ground, attribute, knowledge) made by its offline example."""

        def run(folder: Path) -> None:
            shutil.copytree(EXAMPLES, folder / "examples")
            factscope(folder, *_OFFLINE_RUNS[system](self), "-o", "results.jsonl")

        return self._once(f"results-{system}", run) / "results.jsonl"

    def checker(self, factscope: Command) -> Path:
        """A checker folder trained by `factscope train-checker` on labelled pairs."""

        def train(folder: Path) -> None:
            write_pairs(folder / "pairs.jsonl", n=9)
            factscope(folder, "train-checker", "--data", "pairs.jsonl", "--out", "checker")

        return self._once("checker", train) / "checker"

    def _once(self, name: str, make: Callable[[Path], object]) -> Path:
        if name not in self._made:
            folder = self.root / name
            folder.mkdir()
            make(folder)
            self._made[name] = folder
        return self._made[name]

    def make_input(self, system: str, name: str, folder: Path, factscope: Command) -> bool:
        """Make the input file or folder ``name`` of a ``system`` command in ``folder`` if a reader's own file by
        that name is known here; whether it was."""
        target = folder / name.rstrip("/")
        if target.exists():
            return True
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in SHIPPED.get(system, {}):
            shutil.copy(EXAMPLES / SHIPPED[system][name], target)
        elif name in TEST_DATA:
            source = DATA / TEST_DATA[name]
            (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
        elif name in PAIRS_FILES:
            _write_table(write_pairs(target.with_suffix(".jsonl"), n=9), target)
        elif system == "check" and name in CHECK_INPUTS:
            _write_table(shutil.copy(EXAMPLES / "check.jsonl", target.with_suffix(".jsonl")), target)
        elif name in CHECK_RESULTS:
            shutil.copy(self.results("check", factscope), target)
        elif name in CHECKER_FOLDERS:
            shutil.copytree(self.checker(factscope), target)
        elif name == "gold_spans.jsonl":
            records = (EXAMPLES / "check.jsonl").read_text(encoding="utf-8").splitlines()
            target.write_text(
                "".join(json.dumps({"id": json.loads(line)["id"], "labels": []}) + "\n" for line in records),
                encoding="utf-8",
            )
        elif name == "wiki/":
            target.mkdir()
            for line in (EXAMPLES / "knowledge" / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
                passage = json.loads(line)
                (target / f"{passage['id']}.txt").write_text(passage["text"], encoding="utf-8")
        elif name in ("original.ground.jsonl", "grounded.jsonl"):
            shutil.copy(self.results("ground", factscope), target)
        elif name == "scored.jsonl":
            shutil.copy(self.results("knowledge", factscope), target)
        elif name in ("scores_r0.jsonl", "scores_r1.jsonl"):
            shutil.copy(self.results("attribute", factscope), target)
        else:
            return False
        return True


_OFFLINE_RUNS: dict[str, Callable[[Workspace], list[str]]] = {
    "check": lambda space: ["check", "examples/check.jsonl"],
    "ground": lambda space: [
        "ground",
        "examples/ground/original.json",
        "--metadata",
        "examples/ground/metadata.json",
        "--responses",
        "examples/ground/responses.jsonl",
    ],
    "attribute": lambda space: ["attribute", "score", "examples/attribute/answers.jsonl"],
    "knowledge": lambda space: [
        "knowledge",
        "score",
        "examples/knowledge/records.jsonl",
        "--corpus",
        "examples/knowledge/corpus.jsonl",
    ],
}
"""The offline example of each system, whose results file stands for that system's results in other examples."""


def _write_table(jsonl: Path, target: Path) -> None:
    """``target`` as the records of ``jsonl`` in the format its suffix names (the JSONL file itself for .jsonl)."""
    if target.suffix == ".jsonl":
        return
    import pandas as pd

    table = pd.read_json(jsonl, lines=True)
    for column in table.columns:
        if table[column].map(lambda value: isinstance(value, list | dict)).any():
            table[column] = table[column].map(json.dumps)
    if target.suffix == ".csv":
        table.to_csv(target, index=False)
    else:
        table.to_parquet(target, index=False)
    jsonl.unlink()


def _build_model(kind: str, folder: Path) -> None:
    from tiny_judges import build_hhem, build_minicheck_roberta, build_minicheck_t5

    if kind == "nli":
        build_nli_classifier(folder, {0: "entailment", 1: "neutral", 2: "contradiction"})
    elif kind == "ranker":
        build_nli_classifier(folder, {0: "LABEL_0"}, bias=[0.0])
    elif kind == "lm":
        _build_causal_lm(folder)
    elif kind == "minicheck-t5":
        build_minicheck_t5(folder)
    elif kind == "minicheck-roberta":
        build_minicheck_roberta(folder)
    elif kind == "hhem":
        build_hhem(folder)
    else:
        raise KeyError(kind)


def _build_causal_lm(folder: Path) -> None:
    """A 2-layer GPT-2 over the small vocabulary, standing in for a causal LM from the hub."""
    import torch
    from transformers import BertTokenizer, GPT2Config, GPT2LMHeadModel

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, ".", ",", ":", "?"]
    BertTokenizer(vocab=dict(zip(vocab, range(len(vocab)))), bos_token="[CLS]").save_pretrained(folder)
    torch.manual_seed(0)
    GPT2LMHeadModel(
        GPT2Config(vocab_size=len(vocab), n_positions=256, n_embd=32, n_layer=2, n_head=2)
    ).save_pretrained(folder)


def model_path(space: Workspace, name: str) -> Path:
    """The tiny model that stands for the hub model ``name``."""
    made = space.model(MODELS[name])
    return made / "hhem" if MODELS[name] == "hhem" else made
