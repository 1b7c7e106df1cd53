"""InMemoryVectorStore: langchain-core's dict-backed vector store, with its surface and file format.

``store.store`` is LangChain's ``{id: {"id", "vector", "text", "metadata"}}`` dict;
``similarity_search_with_score`` returns the cosine similarity (higher is better);
``filter`` is a function of the ``Document`` (as in LangChain) or a ragkit metadata
filter dict; ``dump``/``load`` read and write LangChain's JSON file, atomically.
Searches run on a float32 matrix kept beside the dict (rebuilt after adds and deletes),
so a query is one matrix-vector product instead of a Python loop over the entries.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> store = InMemoryVectorStore(HashEmbeddings(32))
    >>> store.add_texts(["tea", "coffee"], ids=["t", "c"])
    ['t', 'c']
    >>> [(d.id, round(s, 3)) for d, s in store.similarity_search_with_score("tea", k=1)]
    [('t', 1.0)]
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragkit._io.atomic import write_bytes_atomic
from ragkit.documents import Document
from ragkit.embeddings.adapter import as_embeddings
from ragkit.errors import IndexCorruptedError, IndexNotFoundError, StoreInputError
from ragkit.stores.base import VectorStore
from ragkit.stores.filters import compile_filter
from ragkit.stores.mmr import maximal_marginal_relevance
from ragkit.stores.search_args import check_k, check_lambda_mult

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

Filter = Callable[[Document], bool] | dict[str, Any]


class InMemoryVectorStore(VectorStore):
    """Vectors in a dict, searched by cosine similarity (LangChain's ``InMemoryVectorStore``).

    Args:
        embedding: the model that embeds texts and queries.
    """

    returns_fresh_documents = True

    def __init__(self, embedding: Embeddings) -> None:
        self.embedding = as_embeddings(embedding, "embedding")
        self._store: dict[str, dict[str, Any]] = {}
        self._matrix: np.ndarray | None = None  # unit rows, in the dict's order
        self._keys: list[str] = []

    # -- LangChain's attributes ----------------------------------------------------------
    @property
    def embeddings(self) -> Embeddings:
        return self.embedding

    @property
    def store(self) -> dict[str, dict[str, Any]]:
        """``{id: {"id", "vector", "text", "metadata"}}``; assign a new dict to replace it."""
        return self._store

    @store.setter
    def store(self, value: dict[str, dict[str, Any]]) -> None:
        self._store = value
        self._matrix = None

    # -- adding (add_texts: VectorStore's, over add_documents) and deleting ------------------
    def add_documents(
        self, documents: Sequence[Document], ids: Sequence[str] | None = None, **kwargs: Any
    ) -> list[str]:
        """Embed and store ``documents``; an id already there is replaced (as in LangChain)."""
        documents = list(documents)
        if ids and len(ids) != len(documents):
            raise StoreInputError(
                f"ids must be the same length as texts: got {len(ids)} ids and "
                f"{len(documents)} texts"
            )
        if not documents:
            return []
        vectors = self.embedding.embed_documents_array([d.page_content for d in documents])
        chosen = list(ids) if ids else [d.id for d in documents]
        out: list[str] = []
        for doc, doc_id, vector in zip(documents, chosen, vectors.tolist()):
            key = doc_id or str(uuid.uuid4())
            out.append(key)
            self._store[key] = {
                "id": key,
                "vector": vector,
                "text": doc.page_content,
                "metadata": doc.metadata,
            }
        self._matrix = None
        return out

    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> None:
        """Delete ``ids``; unknown ids are ignored, as in LangChain."""
        for key in ids or []:
            self._store.pop(key, None)
        self._matrix = None

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The documents of the known ``ids``, in the order asked."""
        return [self._document(self._store[i]) for i in ids if i in self._store]

    async def aget_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        return self.get_by_ids(ids)

    # -- searching -------------------------------------------------------------------------
    @staticmethod
    def _document(entry: dict[str, Any]) -> Document:
        return Document(entry["text"], metadata=dict(entry["metadata"]), id=entry["id"])

    def _unit_matrix(self) -> np.ndarray:
        if self._matrix is None or len(self._keys) != len(self._store):
            self._keys = list(self._store)
            dim = self.embedding.dimension or 0
            rows = [self._store[k]["vector"] for k in self._keys]
            matrix = np.asarray(rows, dtype=np.float32).reshape(len(rows), -1 if rows else dim)
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            self._matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
        return self._matrix

    def _candidates(self, filter: Filter | None) -> np.ndarray | None:
        """Positions passing ``filter`` (None: all)."""
        if filter is None:
            return None
        entries = [self._store[k] for k in self._keys]
        if callable(filter):
            keep = [bool(filter(self._document(e))) for e in entries]
        else:
            pred = compile_filter(filter)
            keep = [bool(pred(e["metadata"])) for e in entries]
        return np.flatnonzero(np.asarray(keep, dtype=bool))

    def _scored(
        self, embedding: Sequence[float] | np.ndarray, k: int, filter: Filter | None
    ) -> list[tuple[int, float]]:
        k = check_k(k)
        matrix = self._unit_matrix()
        positions = self._candidates(filter)
        if k == 0 or matrix.shape[0] == 0 or (positions is not None and positions.size == 0):
            return []
        query = np.asarray(embedding, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        rows = matrix if positions is None else matrix[positions]
        sims = rows @ (query / norm) if norm > 0 else np.zeros(rows.shape[0], dtype=np.float32)
        order = np.argsort(-sims, kind="stable")[:k]
        where = order if positions is None else positions[order]
        return [(int(p), float(sims[o])) for p, o in zip(where, order)]

    def similarity_search_with_score_by_vector(
        self,
        embedding: Sequence[float] | np.ndarray,
        k: int = 4,
        filter: Filter | None = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """The ``k`` nearest documents with their cosine similarity (higher is better); every
        vector is scored, so ``fetch_k`` changes nothing. The searches by text and without
        scores are VectorStore's, over this one."""
        return [
            (self._document(self._store[self._keys[p]]), s)
            for p, s in self._scored(embedding, k, filter)
        ]

    def _relevance_score(self, score: float) -> float:
        return min(1.0, max(0.0, score))

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: Sequence[float] | np.ndarray,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Filter | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        lambda_mult = check_lambda_mult(lambda_mult)
        k, fetch_k = check_k(k), check_k(fetch_k, "fetch_k")
        hits = self._scored(embedding, fetch_k, filter)
        if not hits or k == 0:
            return []
        matrix = self._unit_matrix()
        vectors = matrix[[p for p, _ in hits]]
        picks = maximal_marginal_relevance(np.asarray(embedding), vectors, lambda_mult, k)
        return [self._document(self._store[self._keys[hits[i][0]]]) for i in picks]

    # -- construction (from_texts: VectorStore's) and files ---------------------------------
    @classmethod
    def from_documents(
        cls, documents: Sequence[Document], embedding: Embeddings, **kwargs: Any
    ) -> InMemoryVectorStore:
        store = cls(embedding)
        store.add_documents(documents, **kwargs)
        return store

    def dump(self, path: str | os.PathLike[str]) -> None:
        """Write the store to the JSON file ``path`` (LangChain's format), atomically."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = json.dumps(self._store, indent=2, ensure_ascii=False)
        except (TypeError, ValueError) as err:
            raise StoreInputError(
                f"cannot dump the store to {str(target)!r}: metadata must be JSON values ({err})"
            ) from None
        write_bytes_atomic(target, data.encode("utf-8", "surrogatepass"))

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], embedding: Embeddings, **kwargs: Any
    ) -> InMemoryVectorStore:
        """Read a file written by :meth:`dump` (or by LangChain's ``dump``)."""
        source = Path(path)
        if not source.is_file():
            raise IndexNotFoundError(f"no InMemoryVectorStore file at {str(source)!r}")
        try:
            data = json.loads(source.read_bytes().decode("utf-8", "surrogatepass"))
        except (ValueError, UnicodeDecodeError) as err:
            raise IndexCorruptedError(f"{str(source)!r} is not valid JSON: {err}") from None
        if not isinstance(data, dict) or not all(_is_entry(v) for v in data.values()):
            raise IndexCorruptedError(
                f"{str(source)!r} is not an InMemoryVectorStore dump: expected "
                '{id: {"id", "vector", "text", "metadata"}}'
            )
        store = cls(embedding, **kwargs)
        store.store = data
        return store


def _is_entry(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and {"id", "vector", "text", "metadata"} <= set(value)
        and isinstance(value["vector"], list)
        and isinstance(value["text"], str)
        and isinstance(value["metadata"], dict)
    )


__all__ = ["InMemoryVectorStore"]
