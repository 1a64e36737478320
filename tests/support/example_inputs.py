"""What the example command lines stand on, made for a test that runs them as written (see
tests/cli/test_command_examples.py):

- every example runs in a fresh folder holding the shipped example files under ``examples/`` (what `factscope
  examples` writes);
- a file or folder an example names stands for a reader's own: it is made from the shipped example of the
  command's system (``answers.jsonl`` for `check` is ``examples/check.jsonl``; for `attribute`, the shipped
  attribute answers), from labelled pairs (tests/support/nli_pairs.py) for `train-checker` and `eval-checker`, or
  from a results file or checker folder that an earlier example makes, built once per session, or for `agree`
  from RefChecker's human-annotation layout in small (tests/support/refchecker_annotations.py);
- a hub model name stands for a tiny model of the same kind built once per session (tests/support/tiny_models.py,
  tiny_judges.py), and a local endpoint's URL for the fake LLM server;
- where an example names no model, a command whose default model takes long to run on a CPU runs a tiny one
  instead (TINY_DEFAULTS: `train-checker` trains a tiny encoder, `knowledge score` scores with a tiny causal LM);
  the packaged encoders that `train-checker --encoder` names stand for tiny ones too, and a component whose
  default model is a hub one (`--presence cross`) is written with that model (HUB_DEFAULTS), which stands for a
  tiny one as any hub name does. The defaults that only load
  (the embedded checker, the MiniLM bi-encoder) are run as they are, loaded once per session by the library.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from factscope.grounding.presence import CROSS_ENCODER_MODEL
from nli_pairs import write_pairs
from refchecker_annotations import write_annotations, write_benchmark, write_layout, write_references
from repo_paths import DATA, EXAMPLES
from tiny_models import WORDS, build_mpnet_encoder, build_nli_classifier

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
    CROSS_ENCODER_MODEL: "ranker",
    "gpt2": "lm",
    "EleutherAI/gpt-neo-2.7B": "lm",
    "lytang/MiniCheck-Flan-T5-Large": "minicheck-t5",
    "lytang/MiniCheck-RoBERTa-Large": "minicheck-roberta",
    "vectara/hallucination_evaluation_model": "hhem",
    "packaged-minilm": "encoder",
    "packaged-mpnet": "mpnet-encoder",
}
"""Each hub model name an example uses, and the kind of tiny model that stands for it."""

TINY_DEFAULTS: dict[tuple[str, ...], tuple[str, str]] = {
    ("train-checker",): ("--encoder", "encoder"),
    ("knowledge", "score"): ("--lm", "lm"),
}
"""Commands whose default model trains or runs for long on a CPU: the option an example that does not set it is
given, and the kind of tiny model it names."""

HUB_DEFAULTS: dict[tuple[str, str], str] = {("--presence", "cross"): f"cross:{CROSS_ENCODER_MODEL}"}
"""Option values whose default model is a hub model, written out with that model, which MODELS then stands a
tiny one for."""

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
    "cad_snli.jsonl",
    "breaking_nli.jsonl",
    "fever_dev.jsonl",
    "fever_symmetric.jsonl",
    "fm2.jsonl",
    "check_covid.jsonl",
    "contractnli.jsonl",
    "faithdial_audit.jsonl",
)
"""Labelled pair sets the checker examples read: 27 pairs, three per template, so that a validation part holds
both classes (a CSV or Parquet table of them for those names)."""

PAIRS = 27
"""How many pairs a pair set holds."""

CHECK_INPUTS = (
    "answers.jsonl",
    "records.jsonl",
    "claims.jsonl",
    "responses.jsonl",
    "zero.jsonl",
    "zero_context.jsonl",
    "answers.csv",
    "traffic.jsonl",
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
    "check": {"wiki_passages.jsonl": "knowledge/corpus.jsonl"},
    "ground": {
        "data.json": "ground/original.json",
        "data/original.json": "ground/original.json",
        "meta.json": "ground/metadata.json",
        "data/meta.json": "ground/metadata.json",
        "records.jsonl": "ground/records.jsonl",
        "labels.jsonl": "ground/labels.jsonl",
        "wiki.jsonl": "ground/corpus.jsonl",
        "original-dist.responses.jsonl": "ground/responses.jsonl",
        "dataset.parquet": "ground/records.jsonl",
        "responses.csv": "ground/responses.jsonl",
    },
    "attribute": {
        "answers.jsonl": "attribute/answers.jsonl",
        "questions.jsonl": "attribute/questions.jsonl",
        "graph.jsonl": "attribute/graph.jsonl",
        "answers_r0.jsonl": "attribute/answers.jsonl",
    },
    "knowledge": {
        "knowledge.jsonl": "knowledge/records.jsonl",
        "wiki.jsonl": "knowledge/corpus.jsonl",
        "queries.jsonl": "knowledge/records.jsonl",
        "train.jsonl": "knowledge/records.jsonl",
        "human.jsonl": "knowledge/human.jsonl",
        "knowledge.parquet": "knowledge/records.jsonl",
    },
}
"""Per system, the names that stand for one of the shipped example files (as a table for a .csv or .parquet
name)."""

TEST_DATA = {
    "nq_test_random_testset.txt": "knowledge/nq_random_testset.txt",
    "seen_random_testset.txt": "knowledge/nq_random_testset.txt",
    "complex_question_graph.json": "attribute/biokalma.json",
    "llama_nq_knowledge": "knowledge/nq_knowledge",
}
"""Names that stand for one of the tests' own data files (CONNER's released layouts: its Wizard of Wikipedia test
set is a query table as its NQ one is) or BioKaLMA's question graphs."""

ENCODER_LAYERS = 6
"""The tiny encoders' layers, as many as the layers a RepC example reads (``--layers 3,4,5,6``)."""

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
            factscope(
                folder,
                *with_tiny_defaults(["factscope", *_OFFLINE_RUNS[system]], self)[1:],
                "-o",
                "results.jsonl",
            )

        return self._once(f"results-{system}", run) / "results.jsonl"

    def checker(self, factscope: Command) -> Path:
        """A checker folder trained by `factscope train-checker` on labelled pairs (of the tiny encoder)."""

        def train(folder: Path) -> None:
            write_pairs(folder / "pairs.jsonl", n=9)
            factscope(
                folder,
                *with_tiny_defaults(["factscope", "train-checker", "--data", "pairs.jsonl"], self)[1:],
                "--out",
                "checker",
            )

        return self._once("checker", train) / "checker"

    def installed_checker(self, name: str, factscope: Command) -> Path:
        """A folder holding the wheel that `factscope package-checker` packs of the session's checker as ``name``,
        installed by pip (``--target``), for a run to put on sys.path as a reader's environment would have it."""

        def install(folder: Path) -> None:
            factscope(folder, "package-checker", str(self.checker(factscope)), "--name", name, "-o", "dist")
            wheel = next((folder / "dist").glob("*.whl"))
            subprocess.run(
                [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--target",
                 str(folder / "site"), str(wheel)],
                check=True,
            )

        return self._once(f"installed-{name}", install) / "site"

    def pairs(self) -> Path:
        """A JSONL file of PAIRS labelled pairs."""
        return (
            self._once("pairs", lambda folder: write_pairs(folder / "pairs.jsonl", n=PAIRS)) / "pairs.jsonl"
        )

    def decision(self, factscope: Command) -> Path:
        """A claim decision fitted by `factscope eval-checker --fit-decision` on labelled pairs."""

        def fit(folder: Path) -> None:
            shutil.copy(self.pairs(), folder / "pairs.jsonl")
            factscope(
                folder,
                "eval-checker",
                "pairs.jsonl",
                "--tune-on",
                "pairs.jsonl",
                "--tune-part",
                "validation",
                "--part",
                "test",
                "--fit-decision",
                "decision.json",
            )

        return self._once("decision", fit) / "decision.json"

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
        if system == "agree":
            return _agree_input(name, folder)
        if target.exists():
            return True
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in SHIPPED.get(system, {}):
            _write_table(EXAMPLES / SHIPPED[system][name], target)
        elif name in TEST_DATA:
            source = DATA / TEST_DATA[name]
            (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
        elif name in PAIRS_FILES:
            _write_table(self.pairs(), target)
        elif system == "check" and name in CHECK_INPUTS:
            _write_table(EXAMPLES / "check.jsonl", target)
        elif name in CHECK_RESULTS:
            shutil.copy(self.results("check", factscope), target)
        elif name == "my_decision.json":
            shutil.copy(self.decision(factscope), target)
        elif name in CHECKER_FOLDERS:
            shutil.copytree(self.checker(factscope), target)
        elif name == "gold_used_knowledge.json":
            _write_minimum(DATA / TEST_DATA["complex_question_graph.json"], target)
        elif name.endswith(".MODEL_CARD.md"):
            target.write_text(
                "# A checker\n\nTrained on support tickets; see its evaluation.\n", encoding="utf-8"
            )
        elif name == "article.txt":
            target.write_text(
                " ".join(
                    json.loads(line)["text"]
                    for line in (EXAMPLES / "knowledge" / "corpus.jsonl")
                    .read_text(encoding="utf-8")
                    .splitlines()
                ),
                encoding="utf-8",
            )
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


_OFFLINE_RUNS: dict[str, list[str]] = {
    "check": ["check", "examples/check.jsonl"],
    "ground": [
        "ground",
        "examples/ground/original.json",
        "--metadata",
        "examples/ground/metadata.json",
        "--responses",
        "examples/ground/responses.jsonl",
    ],
    "attribute": ["attribute", "score", "examples/attribute/answers.jsonl"],
    "knowledge": [
        "knowledge",
        "score",
        "examples/knowledge/records.jsonl",
        "--corpus",
        "examples/knowledge/corpus.jsonl",
    ],
}
"""The offline example of each system, whose results file stands for that system's results in other examples."""


def _write_minimum(graphs: Path, target: Path) -> None:
    """BioKaLMA's minimum knowledge (``gold_used_knowledge.json``) of a question-graph file: per question, every
    triple of its entities but their names."""
    minimum = [
        [
            question,
            [
                [entity["qid"], key, value]
                for entity in entities
                for key, value in entity.items()
                if key not in ("qid", "name")
            ],
        ]
        for question, entities in json.loads(graphs.read_text(encoding="utf-8"))
    ]
    target.write_text(json.dumps(minimum), encoding="utf-8")


def _agree_input(name: str, folder: Path) -> bool:
    """Make the input ``name`` of an agreement example in ``folder``, in RefChecker's layout: a glob's annotation
    folder, a benchmark file, one model's annotations (``MODEL_zero.json``, ``BENCHMARK_MODEL_answers.json``) or records with references; whether it
    was one of these."""
    benchmark = re.fullmatch(r"(?:data/)?(?:\w+_context/)?(nq|msmarco|dolly)\.json", name)
    annotations = re.fullmatch(r"(?:(?:nq|msmarco|dolly)_)?(\w+?)_(?:zero|answers)\.json", name)
    if "*" in name:
        root = folder / name.split("/")[0]
        if not root.exists():
            write_layout(root)
    elif benchmark:
        write_benchmark(folder / name)
    elif annotations:
        write_annotations(folder / name, annotations.group(1))
    elif name == "refs.jsonl":
        write_references(folder / name)
    else:
        return False
    return True


def _write_table(source: Path, target: Path) -> None:
    """``target``: the records of the JSONL file ``source`` as a table for a .csv or .parquet name, else a copy."""
    if target.suffix not in (".csv", ".parquet"):
        shutil.copy(source, target)
        return
    import pandas as pd

    table = pd.read_json(source, lines=True)
    for column in table.columns:
        if table[column].map(lambda value: isinstance(value, list | dict)).any():
            table[column] = table[column].map(json.dumps)
    if target.suffix == ".csv":
        table.to_csv(target, index=False)
    else:
        table.to_parquet(target, index=False)


def _build_model(kind: str, folder: Path) -> None:
    from tiny_judges import build_hhem, build_minicheck_roberta, build_minicheck_t5

    if kind == "nli":
        build_nli_classifier(folder, {0: "entailment", 1: "neutral", 2: "contradiction"})
    elif kind == "encoder":
        build_nli_classifier(
            folder, {0: "entailment", 1: "neutral", 2: "contradiction"}, layers=ENCODER_LAYERS
        )
    elif kind == "mpnet-encoder":
        build_mpnet_encoder(folder, layers=ENCODER_LAYERS)
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


def with_tiny_defaults(words: list[str], space: Workspace) -> list[str]:
    """A command's words (``factscope`` first) with the values of HUB_DEFAULTS written out, and the option of
    TINY_DEFAULTS added where its command has one and the words do not set it."""
    words = [
        HUB_DEFAULTS.get((words[index - 1], word), word) if index else word
        for index, word in enumerate(words)
    ]
    for command, (flag, kind) in TINY_DEFAULTS.items():
        if tuple(words[1 : 1 + len(command)]) == command and flag not in words:
            return [*words, flag, str(space.model(kind))]
    return words


def model_path(space: Workspace, name: str) -> Path:
    """The tiny model that stands for the hub model ``name``."""
    made = space.model(MODELS[name])
    return made / "hhem" if MODELS[name] == "hhem" else made
