"""Embeddings: the base class, the local default model, Google's, and a caching wrapper."""

from ragkit.embeddings.base import Embeddings
from ragkit.embeddings.hash import HashEmbeddings

__all__ = ["Embeddings", "HashEmbeddings"]
