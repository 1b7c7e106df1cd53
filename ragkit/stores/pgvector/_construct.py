"""Class-level constructors of PGVectorStore (LangChain's ``from_*`` family).

Example:
    >>> # store = PGVectorStore.from_documents(docs, LocalEmbeddings(), connection=DSN)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings


class PGConstructMixin:
    """``from_texts``, ``from_embeddings``, ``from_vectors``, ``from_existing_index``
    (``from_documents`` is VectorStore's, through ``from_texts``)."""

    @classmethod
    def from_texts(
        cls: Any,
        texts: Sequence[str],
        embedding: Embeddings,
        metadatas: Sequence[dict[str, Any]] | None = None,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Embed ``texts`` into a (new or existing) collection; kwargs go to the constructor."""
        store = cls(embedding, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    @classmethod
    def from_embeddings(
        cls: Any,
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        embedding: Embeddings,
        metadatas: Sequence[dict[str, Any]] | None = None,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        store = cls(embedding, **kwargs)
        store.add_embeddings(text_embeddings, metadatas, ids=ids)
        return store

    @classmethod
    def from_vectors(
        cls: Any,
        texts: Sequence[str],
        vectors: Any,
        embedding: Embeddings | None = None,
        metadatas: Sequence[dict[str, Any]] | None = None,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        store = cls(embedding, **kwargs)
        store.add_vectors(texts, vectors, metadatas, ids=ids)
        return store

    @classmethod
    def from_existing_index(cls: Any, embedding: Embeddings | None = None, **kwargs: Any) -> Any:
        """Open an existing collection (LangChain's name); raises if it does not exist."""
        store = cls(embedding, **kwargs)
        if store._info is None:
            store.close()
            raise ConfigurationError(
                f"collection {store.collection_name!r} does not exist in "
                f"{store.client.dsn.display}; create it with from_texts/from_documents first"
            )
        return store
