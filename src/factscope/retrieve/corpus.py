"""A user's text corpus and three retrievers over it: BM25, dense (bi-encoder) and hybrid (rank fusion)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_text
from factscope.core.files.tables import read_records
from factscope.core.registry import Entry, Registry

if TYPE_CHECKING:
    from factscope.hf.encoders import TextEncoder

_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Document:
    """One passage of a corpus."""

    doc_id: str
    text: str
    title: str = ""


@dataclass(frozen=True)
class Hit:
    """A retrieved passage with its retriever score (higher is better)."""

    doc_id: str
    text: str
    score: float
    title: str = ""


class Corpus:
    """An in-memory list of documents with unique ids."""

    def __init__(self, documents: Sequence[Document]) -> None:
        if not documents:
            raise InputError("the corpus has no documents")
        self.documents = list(documents)
        self.by_id = {doc.doc_id: doc for doc in self.documents}
        if len(self.by_id) != len(self.documents):
            raise InputError("the corpus has duplicate document ids")

    @classmethod
    def from_path(cls, path: str | Path) -> Corpus:
        """Load a JSONL / JSON / Parquet / CSV file of {id, title?, text} records, or a folder of .txt files (id = file
        name)."""
        path = Path(path)
        if not path.exists():
            raise InputError("corpus not found; give `corpus` a JSONL file or a folder of .txt files", path=path)
        if path.is_dir():
            files = sorted(path.rglob("*.txt"))
            if not files:
                raise InputError("the corpus folder has no .txt files", path=path)
            return cls([Document(str(f.relative_to(path)), read_text(f), f.stem) for f in files])
        documents = []
        for line, item in read_records(path):
            if isinstance(item, InputError):
                raise item
            text = item.get("text") or item.get("contents")
            if not isinstance(text, str) or not text.strip():
                raise InputError("missing or empty text", path=path, line=line, field="text")
            doc_id = str(item.get("id", item.get("doc_id", f"{path.name}:{line}")))
            documents.append(Document(doc_id, text, str(item.get("title", ""))))
        return cls(documents)

    def __len__(self) -> int:
        return len(self.documents)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens, as BM25 indexes them."""
    return [token.lower() for token in _TOKEN.findall(text)]


class BM25Retriever:
    """Okapi BM25 (k1 = 1.5, b = 0.75) over title and text."""

    name = "bm25"

    def __init__(self, corpus: Corpus, *, k1: float = 1.5, b: float = 0.75) -> None:
        from rank_bm25 import BM25Okapi

        self.corpus = corpus
        self.index = BM25Okapi([tokenize(f"{doc.title} {doc.text}") or [""] for doc in corpus.documents], k1=k1, b=b)

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The ``k`` best documents for ``query``."""
        return _top_hits(self.corpus, self.index.get_scores(tokenize(query)), k)

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """``search`` for each query."""
        return [self.search(query, k) for query in queries]


class DenseRetriever:
    """Cosine similarity of bi-encoder embeddings (the packaged all-MiniLM-L6-v2 by default)."""

    name = "dense"

    def __init__(self, corpus: Corpus, encoder: TextEncoder | None = None) -> None:
        from factscope.hf.encoders import BiEncoder

        self.corpus = corpus
        self.encoder = encoder or BiEncoder()
        self.matrix = self.encoder.encode([f"{doc.title} {doc.text}".strip() for doc in corpus.documents])

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The ``k`` best documents for ``query``."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """Batched search: all queries are encoded together."""
        if not queries:
            return []
        scores = self.encoder.encode(list(queries)) @ self.matrix.T
        return [_top_hits(self.corpus, row, k) for row in scores]


class HybridRetriever:
    """Reciprocal rank fusion of BM25 and dense rankings: score = sum over rankers of 1 / (c + rank)."""

    name = "hybrid"

    def __init__(
        self, corpus: Corpus, encoder: TextEncoder | None = None, *, c: int = 60, depth: int = 50
    ) -> None:
        self.corpus = corpus
        self.rankers: list[Retriever] = [BM25Retriever(corpus), DenseRetriever(corpus, encoder)]
        self.c = c
        self.depth = depth

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The ``k`` best documents for ``query``."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """Batched search."""
        depth = max(k, self.depth)
        rankings = [ranker.search_many(queries, depth) for ranker in self.rankers]
        results = []
        for per_query in zip(*rankings):
            fused: dict[str, float] = {}
            for hits in per_query:
                for rank, hit in enumerate(hits, start=1):
                    fused[hit.doc_id] = fused.get(hit.doc_id, 0.0) + 1.0 / (self.c + rank)
            best = sorted(fused.items(), key=lambda item: -item[1])[:k]
            results.append([_hit(self.corpus.by_id[doc_id], score) for doc_id, score in best])
        return results


class Retriever(Protocol):
    """A corpus retriever: the ``k`` best passages for one query or for a batch of queries."""

    name: str

    def search(self, query: str, k: int = 5) -> list[Hit]: ...

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]: ...


def _bm25(argument: None, *, corpus: Corpus, **_: Any) -> Retriever:
    return BM25Retriever(corpus)


def _dense(argument: None, *, corpus: Corpus, encoder: TextEncoder | None = None, **_: Any) -> Retriever:
    return DenseRetriever(corpus, encoder)


def _hybrid(argument: None, *, corpus: Corpus, encoder: TextEncoder | None = None, **_: Any) -> Retriever:
    return HybridRetriever(corpus, encoder)


RetrieverName = Literal["bm25", "dense", "hybrid"]
"""The retrievers factscope builds in (a plugin may add others to ``RETRIEVERS``)."""

RETRIEVERS: Registry[Retriever] = Registry(
    "retriever",
    "factscope.retrievers",
    [
        Entry("bm25", "BM25 over the corpus words", _bm25),
        Entry("dense", "cosine of bi-encoder embeddings, the packaged all-MiniLM-L6-v2 by default", _dense),
        Entry("hybrid", "reciprocal rank fusion of bm25 and dense", _hybrid),
    ],
)


def make_retriever(kind: str, corpus: Corpus, encoder: TextEncoder | None = None) -> Retriever:
    """A retriever of ``RETRIEVERS`` by name ('bm25', 'dense', 'hybrid' or a plugin's name) over ``corpus``.

    A plugin of the group ``factscope.retrievers`` is called as ``factory(argument, corpus=..., encoder=...)``.
    """
    return RETRIEVERS.build(kind, corpus=corpus, encoder=encoder)


def _hit(doc: Document, score: float) -> Hit:
    return Hit(doc.doc_id, doc.text, float(score), doc.title)


def _top_hits(corpus: Corpus, scores: np.ndarray, k: int) -> list[Hit]:
    order = np.argsort(-np.asarray(scores), kind="stable")[:k]
    return [_hit(corpus.documents[i], scores[i]) for i in order]
