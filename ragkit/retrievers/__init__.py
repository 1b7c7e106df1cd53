"""Retrievers: one module per strategy, all Runnables from a query to documents."""

from ragkit.retrievers.base import BaseRetriever
from ragkit.retrievers.vectorstore import VectorStoreRetriever

__all__ = ["BaseRetriever", "VectorStoreRetriever"]
