"""HashEmbeddings: deterministic, dependency-light vectors for tests.

Words (lowercased) and word bigrams are hashed with BLAKE2 into ``size``
signed buckets and the vector is L2-normalised, so texts sharing words get
similar vectors, and the same text gives the same vector in every process.

Example:
    >>> emb = HashEmbeddings(size=64)
    >>> emb.embed_query("solar panels") == HashEmbeddings(size=64).embed_query("solar panels")
    True
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ragkit.embeddings.base import Embeddings
from ragkit.errors import ConfigurationError

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbeddings(Embeddings):
    """Feature-hashing embeddings of words and word pairs (not semantic; for tests)."""

    def __init__(self, size: int = 64) -> None:
        if size <= 0:
            raise ConfigurationError(f"size must be positive, got {size}")
        self.size = size

    @property
    def model_id(self) -> str:
        return f"hash-{self.size}"

    @property
    def dimension(self) -> int:
        return self.size

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.size, dtype=np.float32)
        words = _WORD.findall(text.lower())
        features = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
        for feature in features:
            digest = hashlib.blake2b(
                feature.encode("utf-8", "surrogatepass"), digest_size=8
            ).digest()
            value = int.from_bytes(digest, "little")
            vec[value % self.size] += 1.0 if (value >> 63) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0  # empty or wordless text: a fixed unit vector, never NaN
            return vec
        return vec / norm

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.size), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_query_array(self, text: str) -> np.ndarray:
        return self._vector(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text).tolist()
