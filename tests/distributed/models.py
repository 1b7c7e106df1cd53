"""Test models the Ray workers import: hash vectors under a cached model id, logging each
embedded text (one line per text, with the worker's pid) to a file, optionally slowly."""

from __future__ import annotations

import hashlib
import os
import time

import numpy as np

from ragkit.embeddings import HashEmbeddings
from ragkit.embeddings.base import Embeddings


class LoggingEmbeddings(Embeddings):
    """HashEmbeddings(32) as model ``logged-32`` (cached by an index, unlike ``hash-*``)."""

    def __init__(self, log: str, delay: float = 0.0) -> None:
        self.log, self.delay = log, delay
        self.inner = HashEmbeddings(32)

    @property
    def model_id(self) -> str:
        return "logged-32"

    @property
    def dimension(self) -> int:
        return 32

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        if self.delay:
            time.sleep(self.delay)
        out = self.inner.embed_documents_array(texts)
        with open(self.log, "a", encoding="utf-8") as f:
            f.writelines(f"{os.getpid()} {digest(t)}\n" for t in texts)
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def logged(log: str) -> list[tuple[int, str]]:
    """(pid, text digest) of every text embedded so far."""
    if not os.path.exists(log):
        return []
    with open(log, encoding="utf-8") as f:
        return [(int(p), d) for p, d in (line.split() for line in f if line.strip())]


class UnloadableOnWorkers(LoggingEmbeddings):
    """Works in the process that made it; in any other (a Ray worker) the model cannot load."""

    def __init__(self, log: str) -> None:
        super().__init__(log)
        self.home = os.getpid()

    def embed_query(self, text: str) -> list[float]:
        if os.getpid() != self.home:
            raise RuntimeError(f"cannot load the model weights on worker {os.getpid()}")
        return super().embed_query(text)


class ThreadsEmbeddings(LoggingEmbeddings):
    """A model with a ``threads`` setting like LocalEmbeddings'; logs "threads=N" per call."""

    def __init__(self, log: str, threads: int | None = None) -> None:
        super().__init__(log)
        self.threads = threads

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        with open(self.log + ".threads", "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()} {self.threads}\n")
        return super().embed_documents_array(texts)
