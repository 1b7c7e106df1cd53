"""Class-level constructors of PGVectorStore (LangChain's ``from_*`` family).

Example:
    >>> # store = PGVectorStore.from_documents(docs, LocalEmbeddings(), connection=DSN)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings


class PGConstructMixin:
    """``from_existing_index`` (``from_texts``, ``from_embeddings`` and ``from_vectors`` are
    VectorAddsMixin's, ``from_documents`` VectorStore's)."""

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
