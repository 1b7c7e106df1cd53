"""Deterministic text utilities of the emulator: tokens, bag-of-words embeddings, similarity."""

from __future__ import annotations

import hashlib
import math
import re

_TOKEN = re.compile(r"\w+|[^\w\s]")
DIMENSION = 768


def tokens(text: str) -> list[str]:
    """Word and punctuation tokens (what the emulator counts as tokens)."""
    return _TOKEN.findall(text)


def words(text: str) -> list[str]:
    return [t.lower() for t in re.findall(r"\w+", text)]


def embed(text: str, dimension: int = DIMENSION) -> list[float]:
    """A unit vector: hashed bag of words (texts sharing words get close vectors)."""
    vector = [0.0] * dimension
    for word in words(text):
        digest = hashlib.sha256(word.encode()).digest()
        index = int.from_bytes(digest[:4], "little") % dimension
        vector[index] += 1.0 if digest[4] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0:
        vector[0] = 1.0
        return vector
    return [v / norm for v in vector]


def overlap(query: str, passage: str) -> float:
    """Share of the query's distinct words (of 3+ letters) found in the passage, in [0, 1]."""
    wanted = {w for w in words(query) if len(w) > 2}
    if not wanted:
        return 0.0
    return len(wanted & set(words(passage))) / len(wanted)
