"""Fixtures for store tests: deterministic random unit vectors and a small word corpus."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

WORDS = (
    "apple pear plum car bus train red green blue fast slow river lake sea hill "
    "stone paper glass metal wood fire water earth wind cloud"
).split()


def _unit_rows(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture
def unit_rows() -> Callable[[int, int, int], np.ndarray]:
    """``unit_rows(n, d, seed)``: n random unit vectors of dimension d."""
    return _unit_rows


@pytest.fixture
def corpus() -> list[str]:
    rng = np.random.default_rng(7)
    return [" ".join(rng.choice(WORDS, size=6)) for _ in range(60)]


# -- one suite, several stores ---------------------------------------------------------------
class StoreKind:
    """How the parametrised store suite builds a store of one kind.

    ``kind.cls.from_texts(texts, emb, **kind.kw())`` and ``kind.new(emb, distance_strategy=...)``
    work for every kind; ``kw()`` carries what a kind needs besides (PostgreSQL: a shared client
    and a fresh collection name). ``upserts``: whether adding an existing id replaces it
    (PGVectorStore, like langchain-postgres) instead of raising (FaissStore, like LangChain's FAISS).
    """

    def __init__(self, name: str, cls: type, extra: Callable[[], dict] | None = None) -> None:
        self.name = name
        self.cls = cls
        self._extra = extra or dict
        self.upserts = name == "pgvector"

    def kw(self, **more: object) -> dict:
        return {**self._extra(), **more}

    def new(self, embedding=None, **kwargs):
        return self.cls(embedding, **self.kw(**kwargs))

    def __repr__(self) -> str:
        return self.name


@pytest.fixture(params=["faiss", "pgvector"])
def kind(request: pytest.FixtureRequest) -> StoreKind:
    """Each store kind in turn (the conformance suite runs unchanged against all of them)."""
    if request.param == "faiss":
        from ragkit.stores import FaissStore

        return StoreKind("faiss", FaissStore)
    import uuid

    from ragkit.stores import PGVectorStore

    client = request.getfixturevalue("pg_client")
    return StoreKind(
        "pgvector",
        PGVectorStore,
        lambda: {"connection": client, "collection_name": f"s_{uuid.uuid4().hex[:12]}"},
    )
