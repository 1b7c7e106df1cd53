"""The retrieval step of ``ragkit query`` and ``ragkit ask``: open the index, run the query service.

The search itself is :class:`ragkit.querying.QueryService` (the one ``ragkit serve`` and
``Index.retriever`` use); this module opens the index and words the command's errors.

Example:
    >>> from ragkit.querying.service import Query
    >>> Query("reset", "hybrid", 4, dedupe=0.8).retriever
    'hybrid'
    >>> # docs, kind = retrieve("my-index", Query("reset", "hybrid", 4, dedupe=0.8))
"""

from __future__ import annotations

from typing import Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.querying.scores import ScoreKind
from ragkit.querying.service import Query


def retrieve(
    index_dir: str,
    query: Query,
    embedding: str | None = None,
    *,
    llm: Any = None,
    rerank: str | None = None,
) -> tuple[list[Document], ScoreKind]:
    """The best ``query.k`` passages for ``query`` and the kind of their scores.

    ``rerank`` (an ONNX cross-encoder's directory or repository name) reorders the top 50
    candidates (see ``Index.retriever(rerank=...)``).
    """
    from ragkit.indexing.index_dir import Index
    from ragkit.querying.filters import check_filter
    from ragkit.querying.service import QueryService

    kind, flt = query.retriever, query.filter
    if not query.text.strip():
        raise ConfigurationError("the question is empty; pass some text to search for")
    if flt is not None:
        check_filter(flt)  # a bad filter is reported before the index is opened
    if rerank is not None and kind == "multi-query":
        raise ConfigurationError(
            "--rerank works with the similarity, mmr, bm25, hybrid and parent retrievers"
        )
    if kind == "multi-query" and llm is None:
        raise ConfigurationError(
            "--retriever multi-query needs a chat model to write the rephrased questions: "
            "set GOOGLE_API_KEY (a Gemini API key), and --model / --endpoint to choose "
            "another model or server"
        )
    service = QueryService(Index.open(index_dir, embeddings=embedding), llm=llm, rerank=rerank)
    docs = service.search(query)
    return docs, service.score_kind(kind)
