"""The retrieval step of ``ragkit query`` and ``ragkit ask``: retriever, filter, dedupe, top k.

Example:
    >>> # docs, kind = retrieve("my-index", "reset", "hybrid", 4, dedupe=0.8)
"""

from __future__ import annotations

from typing import Any

from ragkit._cli.settings import matches
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.indexing.scores import SCORE_KINDS, ScoreKind, score_kind

RETRIEVERS = ("similarity", "mmr", "bm25", "hybrid", "multi-query", "parent")
#: How many more candidates are fetched when results are filtered or de-duplicated afterwards.
FILTER_DEPTH = 10
DEDUPE_DEPTH = 3


def retrieve(
    index_dir: str,
    query: str,
    kind: str,
    k: int,
    flt: dict[str, Any] | None = None,
    embedding: str | None = None,
    *,
    dedupe: float | None = None,
    llm: Any = None,
    rerank: str | None = None,
) -> tuple[list[Document], ScoreKind]:
    """The best ``k`` passages for ``query`` and the kind of their scores.

    ``rerank`` (an ONNX cross-encoder's directory or repository name) reorders the top 50
    candidates (see ``Index.retriever(rerank=...)``).
    """
    from ragkit.indexing.index_dir import Index

    if not query.strip():
        raise ConfigurationError("the question is empty; pass some text to search for")
    idx = Index.open(index_dir, embeddings=embedding)
    depth = k * (DEDUPE_DEPTH if dedupe is not None else 1)
    if rerank is not None and kind == "multi-query":
        raise ConfigurationError(
            "--rerank works with the similarity, mmr, bm25, hybrid and parent retrievers"
        )
    if kind == "similarity" and rerank is None:
        docs = idx.search(query, k=depth, filter=flt)
    else:
        if flt is not None:
            depth *= FILTER_DEPTH
        if kind == "multi-query":
            if llm is None:
                raise ConfigurationError(
                    "--retriever multi-query needs a chat model to write the rephrased questions: "
                    "set GOOGLE_API_KEY (a Gemini API key), and --model / --endpoint to choose "
                    "another model or server"
                )
            retriever = idx.retriever("multi-query", k=depth, llm=llm, fusion="rrf")
        else:
            retriever = idx.retriever(kind, k=depth, rerank=rerank)
        if kind == "mmr" and flt is not None:
            docs = retriever.invoke(query, filter=flt)
        else:
            docs = [d for d in retriever.invoke(query) if matches(d.metadata, flt)]
    if dedupe is not None:
        from ragkit.retrievers.near_duplicates import NearDuplicateFilter

        docs = NearDuplicateFilter(dedupe, k=k).transform_documents(docs)
    if rerank is not None:
        return docs[:k], SCORE_KINDS["rerank"]
    if kind in ("similarity", "parent"):
        return docs[:k], score_kind(kind, idx.vectorstore.distance_strategy)
    return docs[:k], score_kind(kind)
