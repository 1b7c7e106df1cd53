"""Stores: vector stores (FAISS, Google corpus) and key-value/document stores."""

from ragkit.stores.base import VectorStore

__all__ = ["VectorStore"]
