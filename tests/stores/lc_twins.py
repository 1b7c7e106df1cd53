"""Embeddings that give ragkit and LangChain the very same vectors, for differential store tests."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np

from ragkit.embeddings import Embeddings, HashEmbeddings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.embeddings import Embeddings as LCEmbeddings


def scaled_vector(text: str, size: int = 32) -> list[float]:
    """HashEmbeddings' vector plus a little seeded noise (so no two scores tie), scaled by
    1, 2 or 3 (by text length): deterministic, and not unit length."""
    seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
    noise = np.random.default_rng(seed).standard_normal(size) * 0.2
    scale = 1.0 + len(text) % 3
    vector = np.asarray(HashEmbeddings(size).embed_query(text)) + noise
    return (scale * vector).astype(np.float32).tolist()


class RagkitScaled(Embeddings):
    def __init__(self, size: int = 32) -> None:
        self.size = size

    @property
    def model_id(self) -> str:
        return f"scaled-hash-{self.size}"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [scaled_vector(t, self.size) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return scaled_vector(text, self.size)


class LangChainScaled(LCEmbeddings):
    def __init__(self, size: int = 32) -> None:
        self.size = size

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [scaled_vector(t, self.size) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return scaled_vector(text, self.size)


class LangChainHash(LCEmbeddings):
    """HashEmbeddings' unit vectors behind LangChain's interface."""

    def __init__(self, size: int = 32) -> None:
        self.inner = HashEmbeddings(size)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)
