"""EmbeddingsFilter selects and orders documents as LangChain's does, ties and thresholds included.

Regression: ragkit sorted with a stable descending sort (of equal scores, the earlier document
first), kept scores equal to the threshold, and sorted also without ``k``. LangChain takes
``argsort(similarity)[::-1][:k]`` (of equal scores, the later document first), keeps only
scores strictly above the threshold, and would leave the input order alone without ``k``.

Deliberate difference: LangChain's ``EmbeddingsFilter(k=None, ...)`` silently becomes ``k=20``
(its validator fills a ``None`` with the default), so it always sorts and never keeps more than
20. ragkit honours ``k=None``: every document above the threshold, in the order they came.
"""

from __future__ import annotations

import warnings

import pytest

from ragkit.documents import Document
from ragkit.embeddings import Embeddings
from ragkit.retrievers import EmbeddingsFilter

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.retrievers.document_compressors import (
        EmbeddingsFilter as LCEmbeddingsFilter,
    )
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import Embeddings as LCEmbeddings

# Exact small vectors: several texts share a vector (equal scores), one is orthogonal to the
# query (a score of exactly 0.0), one points away (-1.0).
VECTORS = {
    "query": [1.0, 0.0],
    "same-a": [1.0, 0.0],
    "same-b": [2.0, 0.0],
    "near-a": [3.0, 4.0],
    "near-b": [3.0, 4.0],
    "near-c": [6.0, 8.0],
    "orthogonal": [0.0, 1.0],
    "opposite": [-1.0, 0.0],
}


class Fixed(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [VECTORS[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return VECTORS[text]


class LCFixed(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [VECTORS[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return VECTORS[text]


ORDERS = [
    ["same-a", "near-a", "orthogonal", "same-b", "near-b", "opposite", "near-c"],
    ["opposite", "near-c", "near-b", "near-a", "same-b", "same-a", "orthogonal"],
    ["orthogonal", "near-a", "near-b", "near-c"],
]
SETTINGS = [
    {"k": 20},
    {"k": 3},
    {"k": 1},
    {"k": 4, "similarity_threshold": 0.5},
    {"k": 20, "similarity_threshold": 0.0},  # 0.0 is not above 0.0: dropped
    {"k": 20, "similarity_threshold": -1.0},
    {"k": 2, "similarity_threshold": 0.6},  # 0.6 is the near-* score, in float
]


@pytest.mark.parametrize("texts", ORDERS, ids=["mixed", "reversed", "small"])
@pytest.mark.parametrize("settings", SETTINGS, ids=[str(s) for s in SETTINGS])
def test_same_documents_in_the_same_order(texts: list[str], settings: dict) -> None:
    docs = [Document(t, metadata={"i": i}) for i, t in enumerate(texts)]
    lc_docs = [LCDocument(page_content=t, metadata={"i": i}) for i, t in enumerate(texts)]
    ours = EmbeddingsFilter(embeddings=Fixed(), **settings).compress_documents(docs, "query")
    theirs = LCEmbeddingsFilter(embeddings=LCFixed(), **settings).compress_documents(
        lc_docs, "query"
    )
    assert [d.metadata["i"] for d in ours] == [d.metadata["i"] for d in theirs]
    for ours_doc, theirs_doc in zip(ours, theirs):
        assert ours_doc.metadata["query_similarity_score"] == pytest.approx(
            theirs_doc.state["query_similarity_score"], abs=1e-6
        )


def test_ties_put_the_later_document_first() -> None:
    docs = [Document("same-a", metadata={"i": 0}), Document("same-b", metadata={"i": 1})]
    kept = EmbeddingsFilter(embeddings=Fixed(), k=2).compress_documents(docs, "query")
    assert [d.metadata["i"] for d in kept] == [1, 0]


@pytest.mark.parametrize("texts", ORDERS, ids=["mixed", "reversed", "small"])
@pytest.mark.parametrize("threshold", [0.0, 0.5, -1.0])
def test_without_k_the_same_documents_stay_in_input_order(texts: list[str], threshold: float):
    docs = [Document(t, metadata={"i": i}) for i, t in enumerate(texts)]
    lc_docs = [LCDocument(page_content=t, metadata={"i": i}) for i, t in enumerate(texts)]
    ours = EmbeddingsFilter(embeddings=Fixed(), k=None, similarity_threshold=threshold)
    theirs = LCEmbeddingsFilter(embeddings=LCFixed(), k=None, similarity_threshold=threshold)
    assert theirs.k == 20  # LangChain's validator replaced the None
    kept = [d.metadata["i"] for d in ours.compress_documents(docs, "query")]
    assert kept == sorted(kept)
    assert set(kept) == {d.metadata["i"] for d in theirs.compress_documents(lc_docs, "query")}
