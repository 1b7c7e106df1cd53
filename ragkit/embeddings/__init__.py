"""Embeddings: the base class, the local default model, Google's, and a caching wrapper."""

from typing import Any

from ragkit.embeddings.base import Embeddings
from ragkit.embeddings.hash import HashEmbeddings

__all__ = ["Embeddings", "GoogleGenerativeAIEmbeddings", "HashEmbeddings"]


def __getattr__(name: str) -> Any:
    if name == "GoogleGenerativeAIEmbeddings":
        from ragkit.embeddings.google import GoogleGenerativeAIEmbeddings

        return GoogleGenerativeAIEmbeddings
    raise AttributeError(f"module 'ragkit.embeddings' has no attribute {name!r}")
