"""MultiVectorRetriever: search small derived texts, return the documents they were made from.

Each stored document (the "parent", kept in a key-value ``docstore``) may have
several vectors in the ``vectorstore``: chunks, summaries, hypothetical
questions. Every vector's metadata names its parent under ``id_key``. A search
ranks the vectors and returns each parent once, in the rank of its best vector,
with that vector's score in ``metadata["score"]`` where the store gives one.

The docstore needs ``mget(keys)`` and ``mset(pairs)`` (``ragkit.stores.InMemoryStore``
or any LangChain-style ``BaseStore`` of Documents). ``byte_store=`` (a
``LocalFileStore``, an ``InMemoryByteStore``) instead keeps the documents as JSON in
that byte store, readable by LangChain's retriever too
(:func:`ragkit.stores.create_kv_docstore`). ``search_type`` takes a
:class:`SearchType` or its string value.

Example:
    >>> # retriever = MultiVectorRetriever(vectorstore=store, docstore=InMemoryStore())
    >>> # retriever.index_documents(papers, derived=[[summary] + questions for ...])
    >>> # retriever.invoke("which paper measured X?")
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import check_query, check_search, require_methods, with_score
from ragkit.retrievers.base import BaseRetriever

if TYPE_CHECKING:
    from ragkit.stores.base import VectorStore


class SearchType(str, Enum):
    """How the vector store is searched (LangChain's enum; equal to its string values)."""

    similarity = "similarity"
    similarity_score_threshold = "similarity_score_threshold"
    mmr = "mmr"


def resolve_docstore(owner: str, docstore: Any, byte_store: Any) -> Any:
    """The docstore, or a Document store over ``byte_store`` (exactly one of the two)."""
    if byte_store is not None:
        if docstore is not None:
            raise ConfigurationError(f"{owner}: pass docstore= or byte_store=, not both")
        from ragkit.stores.kv.docstore import create_kv_docstore

        require_methods(byte_store, f"{owner}: byte_store", "mget", "mset")
        return create_kv_docstore(byte_store)
    if docstore is None:
        raise ConfigurationError(
            f"{owner} needs docstore= (a store of Documents) or byte_store= (a byte store)"
        )
    return docstore


class MultiVectorRetriever(BaseRetriever):
    """Vectors of derived texts in ``vectorstore``; whole documents in ``docstore``.

    Args:
        vectorstore: Holds the derived texts; each has ``metadata[id_key]`` = its parent's key.
        docstore: Key-value store of parent Documents (``mget``/``mset``).
        id_key: Metadata key linking a derived text to its parent.
        search_type: A :class:`SearchType`: ``"similarity"``, ``"mmr"`` or
            ``"similarity_score_threshold"``.
        search_kwargs: For the vector search (``k`` counts derived texts, so fewer parents may come back).
        byte_store: Instead of ``docstore``: a byte store the parents are kept in as JSON.
    """

    def __init__(
        self,
        vectorstore: VectorStore,
        docstore: Any = None,
        id_key: str = "doc_id",
        search_type: SearchType | str = SearchType.similarity,
        search_kwargs: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        byte_store: Any = None,
    ) -> None:
        super().__init__(tags=tags, metadata=metadata)
        search_type = _as_search_type(search_type)
        self.search_kwargs = check_search(search_type, search_kwargs)
        docstore = resolve_docstore(type(self).__name__, docstore, byte_store)
        self.byte_store = byte_store
        require_methods(
            docstore,
            f"{type(self).__name__}: docstore",
            "mget",
            "mset",
            hint="; use ragkit.stores.InMemoryStore or another key-value store of Documents",
        )
        self.vectorstore = vectorstore
        self.docstore = docstore
        self.id_key = id_key
        self.search_type = search_type

    def index_documents(
        self,
        documents: Sequence[Document],
        derived: Sequence[Sequence[str | Document]],
        ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Store ``documents`` and index ``derived[i]`` (texts or Documents) as vectors of ``documents[i]``.

        Keys are ``ids``, else each document's ``id``, else new UUIDs. Returns the keys.
        """
        if len(derived) != len(documents):
            raise ConfigurationError(
                f"index_documents got {len(documents)} documents but {len(derived)} lists of derived texts"
            )
        keys = _keys(documents, ids)
        vectors: list[Document] = []
        for key, items in zip(keys, derived):
            for item in items:
                doc = item if isinstance(item, Document) else Document(item)
                vectors.append(
                    doc.model_copy(
                        update={"metadata": {**doc.metadata, self.id_key: key}, "id": None}
                    )
                )
        if vectors:
            self.vectorstore.add_documents(vectors)
        self.docstore.mset([(k, _keyed(d, k)) for k, d in zip(keys, documents)])
        return keys

    def _search(self, query: str, params: dict[str, Any]) -> list[tuple[Document, float | None]]:
        if self.search_type == "mmr":
            return [
                (d, None) for d in self.vectorstore.max_marginal_relevance_search(query, **params)
            ]
        if self.search_type == "similarity_score_threshold":
            return list(self.vectorstore.similarity_search_with_relevance_scores(query, **params))
        try:
            return list(self.vectorstore.similarity_search_with_score(query, **params))
        except NotImplementedError:
            return [(d, None) for d in self.vectorstore.similarity_search(query, **params)]

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        check_query(query, type(self).__name__)
        if not query.strip():
            return []
        hits = self._search(query, {**self.search_kwargs, **kwargs})
        order: list[str] = []
        best: dict[str, float | None] = {}
        for doc, score in hits:
            key = doc.metadata.get(self.id_key)
            if key is None:
                raise ConfigurationError(
                    f"{type(self).__name__}: a vector in the store has no metadata[{self.id_key!r}] "
                    f"({doc.page_content[:40]!r}); index derived texts with their parent's key"
                )
            if key not in best:
                order.append(key)
                best[key] = score
        parents = self.docstore.mget(order)
        out = []
        for key, parent in zip(order, parents):
            if parent is None:
                continue  # parent deleted from the docstore since indexing
            score = best[key]
            out.append(with_score(parent, score) if score is not None else parent)
        return out


def _as_search_type(value: Any) -> Any:
    """``value`` as a :class:`SearchType` when it names one (else as given, for check_search)."""
    try:
        return SearchType(value)
    except ValueError:
        return value


def _keys(documents: Sequence[Document], ids: Sequence[str] | None) -> list[str]:
    if ids is not None:
        keys = list(ids)
        if len(keys) != len(documents):
            raise ConfigurationError(f"got {len(documents)} documents but {len(keys)} ids")
    else:
        keys = [d.id or uuid.uuid4().hex for d in documents]
    if len(set(keys)) != len(keys):
        raise ConfigurationError("document ids must be unique (a key appears twice)")
    return keys


def _keyed(doc: Document, key: str) -> Document:
    return doc if doc.id == key else doc.model_copy(update={"id": key})
