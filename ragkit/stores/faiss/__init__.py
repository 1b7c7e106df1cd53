"""FAISS: the vector store on a FAISS index, under ragkit's name and LangChain's.

- :mod:`~ragkit.stores.faiss.store`: :class:`FaissStore` (adds, deletes, the search
  primitives; every other search is :class:`~ragkit.stores.base.VectorStore`'s);
- :mod:`~ragkit.stores.faiss.langchain`: :class:`FAISS` (LangChain's constructor and default
  distance) and :class:`InMemoryDocstore`;
- :mod:`~ragkit.stores.faiss.persist`: ``save``/``load`` (FAISS's file plus JSON, never a
  pickle); ``_index``, ``_search``, ``_check`` and ``_async`` are their private helpers.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> store = FaissStore.from_texts(["tea", "coffee"], HashEmbeddings(32))
    >>> store.similarity_search("tea", k=1)[0].page_content
    'tea'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = ["FAISS", "FaissStore", "InMemoryDocstore"]

_LAZY = {
    "FAISS": "ragkit.stores.faiss.langchain",
    "FaissStore": "ragkit.stores.faiss.store",
    "InMemoryDocstore": "ragkit.stores.faiss.langchain",
}

if TYPE_CHECKING:
    from ragkit.stores.faiss.langchain import FAISS, InMemoryDocstore
    from ragkit.stores.faiss.store import FaissStore
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
