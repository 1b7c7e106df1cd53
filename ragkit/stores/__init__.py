"""Stores: vector stores (FAISS, Google corpus) and key-value/document stores."""

from typing import Any

from ragkit.stores.base import VectorStore

__all__ = ["GoogleVectorStore", "VectorStore"]


def __getattr__(name: str) -> Any:
    if name == "GoogleVectorStore":
        from ragkit.stores.google_vectorstore import GoogleVectorStore

        return GoogleVectorStore
    raise AttributeError(f"module 'ragkit.stores' has no attribute {name!r}")
