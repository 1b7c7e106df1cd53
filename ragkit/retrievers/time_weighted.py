"""TimeWeightedVectorStoreRetriever: relevance plus recency, for agent memories (LangChain's retriever).

Each document added gets ``created_at``, ``last_accessed_at`` (now, unless set) and
``buffer_idx`` (its place in ``memory_stream``). A query scores the documents the
store finds (``search_kwargs``, 100 by default) and the ``k`` most recently added
ones::

    score = (1 - decay_rate) ** hours_since_last_access + relevance + sum(other_score_keys)

where ``relevance`` is the store's relevance score in [0, 1] (``default_salience`` for
the recent documents the search did not find; ``None`` adds nothing). The ``k``
best are returned, and their ``last_accessed_at`` is set to now, as in LangChain: the
documents returned are the ones in ``memory_stream``, so the update is kept.

The store keeps a copy of each document whose dates are POSIX timestamps (any
store can hold those); ``memory_stream`` keeps the ``datetime`` objects.

Example:
    >>> import datetime
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.stores import FaissStore
    >>> retriever = TimeWeightedVectorStoreRetriever(
    ...     vectorstore=FaissStore(HashEmbeddings(64)), decay_rate=0.5, k=1)
    >>> old = datetime.datetime.now() - datetime.timedelta(hours=24)
    >>> _ = retriever.add_documents([Document("fed the cat", metadata={"last_accessed_at": old})])
    >>> _ = retriever.add_documents([Document("fed the dog")])
    >>> retriever.invoke("fed")[0].page_content
    'fed the dog'
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from copy import deepcopy
from typing import Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InvalidInputError
from ragkit.retrievers._util import check_k
from ragkit.retrievers.base import BaseRetriever

DATE_KEYS = ("created_at", "last_accessed_at")


def _hours_between(later: datetime.datetime, earlier: datetime.datetime) -> float:
    return (later - earlier).total_seconds() / 3600


class TimeWeightedVectorStoreRetriever(BaseRetriever):
    """Rank memories by recency of access, store relevance and extra metadata scores.

    Args:
        vectorstore: Holds the documents' vectors (``similarity_search_with_relevance_scores``).
        search_kwargs: For the store search (default ``{"k": 100}``).
        memory_stream: The documents, in the order added (normally filled by ``add_documents``).
        decay_rate: Recency weight ``(1 - decay_rate) ** hours``; 0 never decays, 1 forgets at once.
        k: How many documents a query returns.
        other_score_keys: Metadata keys whose numbers add to the score (e.g. ``"importance"``).
        default_salience: Relevance given to recent documents the search did not return.
    """

    def __init__(
        self,
        vectorstore: Any,
        search_kwargs: dict[str, Any] | None = None,
        memory_stream: list[Document] | None = None,
        decay_rate: float = 0.01,
        k: int = 4,
        other_score_keys: Sequence[str] = (),
        default_salience: float | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(tags=tags, metadata=metadata)
        if isinstance(decay_rate, bool) or not isinstance(decay_rate, (int, float)):
            raise ConfigurationError(f"decay_rate must be a number in [0, 1], got {decay_rate!r}")
        if not 0.0 <= decay_rate <= 1.0:
            raise ConfigurationError(f"decay_rate must be in [0, 1], got {decay_rate}")
        self.vectorstore = vectorstore
        self.search_kwargs = dict(search_kwargs) if search_kwargs is not None else {"k": 100}
        self.memory_stream = memory_stream if memory_stream is not None else []
        self.decay_rate = float(decay_rate)
        self.k = check_k(k)
        self.other_score_keys = list(other_score_keys)
        self.default_salience = default_salience

    # -- adding ----------------------------------------------------------------------------
    def _stamp(
        self, documents: Sequence[Document], current_time: Any
    ) -> tuple[list[Document], list[Document]]:
        now = current_time if current_time is not None else datetime.datetime.now()
        kept, stored = [], []
        for i, doc in enumerate(documents):
            if not isinstance(doc, Document):
                raise InvalidInputError(
                    f"add_documents: item {i} is a {type(doc).__name__}, not a Document"
                )
            copy = deepcopy(doc)
            for key in DATE_KEYS:
                copy.metadata.setdefault(key, now)
            copy.metadata["buffer_idx"] = len(self.memory_stream) + i
            kept.append(copy)
            for_store = {
                key: value.timestamp() if isinstance(value, datetime.datetime) else value
                for key, value in copy.metadata.items()
            }
            stored.append(copy.model_copy(update={"metadata": for_store}))
        return kept, stored

    def add_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[str]:
        """Add to ``memory_stream`` and the store (``current_time=`` sets the dates)."""
        kept, stored = self._stamp(documents, kwargs.pop("current_time", None))
        ids = self.vectorstore.add_documents(stored, **kwargs)
        self.memory_stream.extend(kept)
        return list(ids)

    async def aadd_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[str]:
        """Async :meth:`add_documents`."""
        kept, stored = self._stamp(documents, kwargs.pop("current_time", None))
        ids = await self.vectorstore.aadd_documents(stored, **kwargs)
        self.memory_stream.extend(kept)
        return list(ids)

    # -- scoring ---------------------------------------------------------------------------
    @staticmethod
    def _last_access(document: Document, now: datetime.datetime) -> datetime.datetime:
        value = document.metadata.get("last_accessed_at")
        if value is None:
            return now
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.datetime.fromtimestamp(value)
        if isinstance(value, str):
            return datetime.datetime.fromisoformat(value)
        if isinstance(value, datetime.datetime):
            return value
        raise InvalidInputError(
            f"last_accessed_at must be a datetime, a timestamp or an ISO string; got {value!r}"
        )

    def _combined_score(
        self, document: Document, relevance: float | None, now: datetime.datetime
    ) -> float:
        hours = _hours_between(now, self._last_access(document, now))
        score = (1.0 - self.decay_rate) ** hours
        for key in self.other_score_keys:
            if key in document.metadata:
                score += document.metadata[key]
        if relevance is not None:
            score += relevance
        return float(score)

    def _salient(
        self, pairs: Sequence[tuple[Document, float]]
    ) -> dict[int, tuple[Document, float | None]]:
        found: dict[int, tuple[Document, float | None]] = {}
        for doc, relevance in pairs:
            index = doc.metadata.get("buffer_idx")
            if isinstance(index, int) and 0 <= index < len(self.memory_stream):
                found[index] = (self.memory_stream[index], relevance)
        return found

    def get_salient_docs(self, query: str) -> dict[int, tuple[Document, float | None]]:
        """The documents the store finds for ``query``, by ``buffer_idx``, with their relevance."""
        return self._salient(
            self.vectorstore.similarity_search_with_relevance_scores(query, **self.search_kwargs)
        )

    async def aget_salient_docs(self, query: str) -> dict[int, tuple[Document, float | None]]:
        """Async :meth:`get_salient_docs`."""
        return self._salient(
            await self.vectorstore.asimilarity_search_with_relevance_scores(
                query, **self.search_kwargs
            )
        )

    def _recent(self) -> dict[int, tuple[Document, float | None]]:
        if not self.k:
            return {}
        return {
            doc.metadata["buffer_idx"]: (doc, self.default_salience)
            for doc in self.memory_stream[-self.k :]
        }

    def _rescore(self, candidates: dict[int, tuple[Document, float | None]]) -> list[Document]:
        now = datetime.datetime.now()
        scored = [
            (doc, self._combined_score(doc, relevance, now))
            for doc, relevance in candidates.values()
        ]
        scored.sort(key=lambda pair: pair[1], reverse=True)
        out = []
        for doc, _ in scored[: self.k]:
            doc.metadata["last_accessed_at"] = now
            out.append(doc)
        return out

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        candidates = self._recent()
        candidates.update(self.get_salient_docs(query))
        return self._rescore(candidates)

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        candidates = self._recent()
        candidates.update(await self.aget_salient_docs(query))
        return self._rescore(candidates)
