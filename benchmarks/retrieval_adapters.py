"""Embedding adapters for benchmarks/retrieval.py: one model, corpus vectors computed once.

``PrecomputedEmbeddings`` (ragkit) and ``LangChainEmbeddings`` (langchain-core) look
document vectors up in a shared table (computing any missing ones with the model)
and embed queries live with the same model, so both libraries pay the same
query-embedding cost and neither pays for the corpus twice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragkit.embeddings import Embeddings


def _lookup(model: Any, table: dict[str, np.ndarray], texts: list[str]) -> np.ndarray:
    missing = [t for t in dict.fromkeys(texts) if t not in table]
    if missing:
        table.update(
            zip(missing, np.asarray(model.embed_documents_array(missing), dtype=np.float32))
        )
    if not texts:
        return np.zeros((0, model.dimension or 0), dtype=np.float32)
    return np.stack([table[t] for t in texts])


class PrecomputedEmbeddings(Embeddings):
    def __init__(self, model: Any, table: dict[str, np.ndarray]) -> None:
        self.model = model
        self.table = table
        self.queries: dict[
            str, np.ndarray
        ] = {}  # filled only for the "query vector precomputed" timing

    @property
    def model_id(self) -> str:
        return str(self.model.model_id)

    @property
    def dimension(self) -> int | None:
        return self.model.dimension  # type: ignore[no-any-return]

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        return _lookup(self.model, self.table, texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()  # type: ignore[no-any-return]

    def embed_query_array(self, text: str) -> np.ndarray:
        if text in self.queries:
            return self.queries[text]
        return self.model.embed_query_array(text)  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_query_array(text).tolist()  # type: ignore[no-any-return]


class LangChainEmbeddings(LCEmbeddings):
    def __init__(self, model: Any, table: dict[str, np.ndarray]) -> None:
        self.model = model
        self.table = table
        self.queries: dict[str, np.ndarray] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return _lookup(self.model, self.table, texts).tolist()  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        if text in self.queries:
            return self.queries[text].tolist()  # type: ignore[no-any-return]
        return self.model.embed_query(text)  # type: ignore[no-any-return]
