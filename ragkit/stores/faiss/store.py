"""FaissStore: LangChain's FAISS vector store surface, fast to build, safe to save and load.

Vectors live in a FAISS index (exact ``IndexFlatIP`` by default, or any
``index_factory`` string such as ``"HNSW32"`` or ``"IVF256,Flat"``); texts,
ids and metadata live in plain columns in vector order. ``save(path)`` writes
FAISS's own index file, a JSON docstore and a manifest atomically; nothing is
ever pickled, and ``load`` refuses indexes built by another model.

Distances and scores (:class:`~ragkit.stores.distance.DistanceStrategy`):

- ``COSINE_SIMILARITY`` (FaissStore's default): vectors are L2-normalised on the way in;
  the score is the cosine similarity (higher is better); relevance ``max(0, cos)``.
- ``COSINE``: LangChain's cosine *distance*, ``1 - cos`` (lower is better); relevance
  ``clip(1 - d, 0, 1)``.
- ``MAX_INNER_PRODUCT``: raw inner product (higher is better); relevance ``clip(ip, 0, 1)``.
- ``EUCLIDEAN_DISTANCE`` (the default of :class:`~ragkit.stores.faiss.langchain.FAISS`,
  as in LangChain): FAISS's *squared* L2 distance (lower is better), as LangChain's FAISS
  returns it; relevance ``clip(1 - d2 / 2, 0, 1)``.

For unit-length vectors every relevance score equals the cosine (clipped to [0, 1]).

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> store = FaissStore.from_texts(["red apple", "green pear", "red car"], HashEmbeddings(64),
    ...                               metadatas=[{"kind": "fruit"}, {"kind": "fruit"}, {"kind": "car"}])
    >>> [d.page_content for d in store.similarity_search("red apple", k=1, filter={"kind": "fruit"})]
    ['red apple']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from typing_extensions import Self

from ragkit.documents import Document
from ragkit.embeddings.adapter import as_optional_embeddings
from ragkit.errors import (
    ConfigurationError,
    EmbeddingMismatchError,
    StoreInputError,
)
from ragkit.stores._docstore import DocColumns, DocumentsView, ids_to_delete, new_ids
from ragkit.stores.base import VectorStore
from ragkit.stores.distance import DistanceStrategy, relevance
from ragkit.stores.faiss import _index as fx
from ragkit.stores.faiss._async import FaissAsyncMixin
from ragkit.stores.faiss._search import Hit, ScoreCut, Searched, search_hits
from ragkit.stores.filters import MetadataFilter, compile_filter
from ragkit.stores.mmr import Candidates
from ragkit.stores.vector_adds import NewRows, VectorAddsMixin

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings


class FaissStore(FaissAsyncMixin, VectorAddsMixin, VectorStore):
    """A FAISS-backed vector store with LangChain's method names.

    Args:
        embedding: the model that embeds texts and queries (optional for by-vector use).
        distance_strategy: a :class:`~ragkit.stores.distance.DistanceStrategy` (LangChain's
            members work too) or its name: ``COSINE_SIMILARITY`` (the default: the score is
            the cosine similarity, higher is better), ``COSINE`` (cosine distance),
            ``MAX_INNER_PRODUCT`` or ``EUCLIDEAN_DISTANCE`` (squared L2, LangChain FAISS's
            default). The module docstring says what each score means.
        normalize_L2: scale vectors to unit length on the way in (LangChain's flag; the
            cosine strategies always do).
        index_factory: a FAISS factory string (``"HNSW32"``, ``"IVF256,Flat"``, ...); ``None``
            is exact search. Indexes that need training are trained on the first vectors
            added, or explicitly with :meth:`train`.
        relevance_score_fn: maps raw scores to [0, 1] instead of the default above.
        dimension: the vector size, when known before the first add.

    Searches may run concurrently (FAISS releases the GIL); adding or deleting while other
    threads search is not supported, as with LangChain's FAISS.
    """

    returns_fresh_documents = True
    _NO_MODEL = (
        "this FaissStore has no embedding model; pass embedding= when creating or loading it, "
        "or use the *_by_vector methods"
    )

    def __init__(
        self,
        embedding: Embeddings | None = None,
        *,
        distance_strategy: Any = DistanceStrategy.COSINE_SIMILARITY,
        normalize_L2: bool = False,  # noqa: N803
        index_factory: str | None = None,
        relevance_score_fn: Callable[[float], float] | None = None,
        dimension: int | None = None,
    ) -> None:
        embedding = as_optional_embeddings(embedding, "embedding")
        self._embedding = embedding
        self.distance_strategy = fx.distance_strategy(distance_strategy)
        self._normalize_L2 = bool(normalize_L2)
        self._unit = fx.unit_vectors(self.distance_strategy, self._normalize_L2)
        self.index_factory = index_factory
        self.override_relevance_score_fn = relevance_score_fn
        self._dimension = (
            dimension if dimension is not None else (embedding.dimension if embedding else None)
        )
        self._model_id = embedding.model_id if embedding is not None else None
        self._index: Any = None
        self._flat: np.ndarray | None = None
        self._flat_key: tuple[int, int] = (0, 0)
        self._docs = DocColumns()

    # -- properties ---------------------------------------------------------------
    @property
    def index(self) -> Any:
        """The FAISS index (``None`` until the first vectors arrive)."""
        return self._index

    @property
    def model_id(self) -> str | None:
        """The embedding model that produced the vectors (recorded in saved indexes)."""
        return self._model_id

    @property
    def ids(self) -> list[str]:
        """All ids in vector order (a copy)."""
        return list(self._docs.ids)

    def __len__(self) -> int:
        return len(self._docs)

    # -- adding (add_texts, add_embeddings, add_vectors: VectorAddsMixin's) ---------------
    def _known_rows(self) -> DocColumns:
        return self._docs  # an id the store holds is refused

    def _add(self, rows: NewRows) -> list[str]:
        matrix = fx.as_matrix(rows.vectors, self._dimension, what="embeddings", unit=self._unit)
        if matrix.shape[0] != len(rows.texts):
            raise StoreInputError(f"got {matrix.shape[0]} vectors for {len(rows.texts)} texts")
        index = self._ensure_index(matrix.shape[1])
        if not index.is_trained:
            self._train(matrix)
        chosen = list(rows.ids) if rows.ids is not None else new_ids(len(rows.texts))
        index.add(matrix)
        self._docs.extend(chosen, rows.texts, rows.metadatas)
        return chosen

    def _ensure_index(self, dimension: int) -> Any:
        if self._index is None:
            self._index = fx.new_index(dimension, self.distance_strategy, self.index_factory)
            self._dimension = dimension
        return self._index

    def train(self, data: Sequence[str] | Any) -> None:
        """Train an index that needs it (IVF, PQ) on texts (embedded here) or on a vector matrix.

        Call it before adding when the first batch is too small or unrepresentative.
        """
        if isinstance(data, (list, tuple)) and data and isinstance(data[0], str):
            raw: Any = self._need_embedding().embed_documents_array(list(data))
        else:
            raw = data
        matrix = fx.as_matrix(raw, self._dimension, what="training vectors", unit=self._unit)
        index = self._ensure_index(matrix.shape[1])
        if index.ntotal:
            raise StoreInputError("train() must come before the first vectors are added")
        self._train(matrix)

    def _train(self, matrix: np.ndarray) -> None:
        try:
            self._index.train(matrix)
        except RuntimeError as err:
            raise ConfigurationError(
                f"could not train index_factory={self.index_factory!r} on {matrix.shape[0]} vectors "
                f"({fx._faiss_message(err)}); call store.train(...) with more vectors first, "
                "or use a smaller IVF list count"
            ) from None

    # -- deleting and reading by id -----------------------------------------------
    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete ``ids``; StoreInputError (a ValueError; nothing deleted) if any id is unknown."""
        wanted = ids_to_delete(ids)
        missing = [x for x in wanted if x not in self._docs.position]
        if missing:
            raise StoreInputError(
                f"ids not in the store: {missing[:10]}{' ...' if len(missing) > 10 else ''}; "
                "nothing was deleted"
            )
        if not wanted:
            return True
        keep = np.ones(len(self._docs), dtype=bool)
        keep[[self._docs.position[x] for x in wanted]] = False
        fx.remove_positions(self._index, keep)
        self._docs.keep(keep)
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The documents of the known ``ids``, in the order asked (unknown ids are skipped)."""
        position = self._docs.position
        return [self._docs.document(position[x]) for x in ids if x in position]

    def documents(self) -> Sequence[Document]:
        """Every stored document in store order: a read-only sequence making each one on access.

        Unlike ``get_by_ids(store.ids)`` nothing is copied up front; later adds and deletes do
        not show through.
        """
        return DocumentsView(self._docs)

    # -- searching ------------------------------------------------------------------
    def _query_matrix(self, vectors: Any) -> np.ndarray:
        return fx.as_matrix(vectors, self._dimension, what="query vectors", unit=self._unit)

    def _search(
        self,
        queries: np.ndarray,
        k: int,
        filter: MetadataFilter | None,
        fetch_k: int,
        score_threshold: float | None = None,
    ) -> list[list[Hit]]:
        pred = compile_filter(filter) if filter is not None else None
        src = Searched(self._index, self._docs.metadata_view, pred)
        cut = ScoreCut(
            fx.faiss_threshold(self.distance_strategy, score_threshold),
            not fx.uses_l2(self.distance_strategy),
        )
        return search_hits(src, queries, k, fetch_k, cut)

    def _view(self) -> np.ndarray | None:
        """Zero-copy view of a flat index's vectors, cached while the index memory is unchanged."""
        index = self._index
        if not fx.is_flat(index) or index.ntotal == 0:
            return None
        key = (index.ntotal, int(index.get_xb()))
        if self._flat is None or self._flat_key != key:
            self._flat, self._flat_key = fx.flat_view(index), key
        return self._flat

    def _with_docs(self, hits: list[Hit]) -> list[tuple[Document, float]]:
        document = self._docs.document
        if self.distance_strategy is DistanceStrategy.COSINE:
            return [(document(p), fx.from_faiss(DistanceStrategy.COSINE, s)) for p, s in hits]
        return [(document(p), s) for p, s in hits]

    def similarity_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: MetadataFilter | None = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """Documents nearest ``embedding`` with raw scores (see the module doc for their meaning)."""
        hits = self._search(
            self._query_matrix([embedding]), k, filter, fetch_k, kwargs.get("score_threshold")
        )
        return self._with_docs(hits[0])

    def _relevance_score(self, score: float) -> float:
        if self.override_relevance_score_fn is not None:
            return self.override_relevance_score_fn(score)
        return relevance(self.distance_strategy, score)

    # -- batched search ---------------------------------------------------------------
    def similarity_search_with_score_by_vector_batch(
        self,
        embeddings: Any,
        k: int = 4,
        filter: MetadataFilter | None = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[list[tuple[Document, float]]]:
        """One FAISS call for many query vectors; one result list per row."""
        matrix = self._query_matrix(embeddings)
        if matrix.shape[0] == 0:
            return []
        return [
            self._with_docs(h)
            for h in self._search(matrix, k, filter, fetch_k, kwargs.get("score_threshold"))
        ]

    # -- MMR (VectorStore's, over these) --------------------------------------------------
    def _mmr_candidates(
        self, embedding: Sequence[float], depth: int, filter: Any, **kwargs: Any
    ) -> Candidates:
        query = self._query_matrix([embedding])
        hits = self._search(query, depth, filter, depth)[0]
        vectors = fx.vectors_at(self._index, [p for p, _ in hits], self._view()) if hits else None
        return Candidates(query[0], hits, vectors, self._unit)

    def _finish_hits(self, hits: list[Hit]) -> list[tuple[Document, float]]:
        return self._with_docs(hits)

    # -- construction (from_texts, from_embeddings, from_vectors: VectorAddsMixin's) -----------------------------------------------------------------
    @classmethod
    def from_documents(
        cls, documents: Sequence[Document], embedding: Embeddings, **kwargs: Any
    ) -> FaissStore:
        store = super().from_documents(documents, embedding, **kwargs)
        assert isinstance(store, FaissStore)
        return store

    def merge_from(self, target: FaissStore) -> None:
        """Append every document and vector of ``target`` (same model, dimension and distance)."""
        if target.distance_strategy != self.distance_strategy:
            raise EmbeddingMismatchError(
                f"cannot merge a {target.distance_strategy} store into a {self.distance_strategy} one"
            )
        if self._model_id and target.model_id and self._model_id != target.model_id:
            raise EmbeddingMismatchError(
                f"cannot merge vectors of model {target.model_id!r} into a store of "
                f"model {self._model_id!r}"
            )
        if target._index is None or len(target) == 0:
            return
        vectors = fx.vectors_at(target._index, np.arange(len(target)))
        docs = target._docs
        self._docs.validate_new(docs.texts, docs.metadatas, docs.ids)
        self._add(NewRows(list(docs.texts), vectors, docs.metadatas, list(docs.ids)))

    # -- persistence ----------------------------------------------------------------------
    @classmethod
    def _from_saved(cls, embedding: Embeddings | None, **settings: Any) -> Self:
        """An empty store with a saved index's settings (``load`` fills it)."""
        return cls(embedding, **settings)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the store to directory ``path`` atomically (see :mod:`ragkit.stores.faiss.persist`)."""
        from ragkit.stores.faiss.persist import save_store

        save_store(self, path)

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], embeddings: Embeddings | None = None, **kwargs: Any
    ) -> Self:
        """Load a store saved by :meth:`save`; refuses indexes built by another model."""
        from ragkit.stores.faiss.persist import load_store

        return load_store(cls, path, embeddings, **kwargs)

    def save_local(self, folder_path: str | os.PathLike[str], index_name: str = "index") -> None:
        """LangChain's name for :meth:`save`: into ``folder_path`` (or its ``index_name`` subfolder).

        The default ``index_name="index"`` saves into ``folder_path`` itself; another name
        saves into ``folder_path/index_name``, so several stores can share one folder.
        """
        self.save(_named(folder_path, index_name))

    @classmethod
    def load_local(
        cls,
        folder_path: str | os.PathLike[str],
        embeddings: Embeddings | None = None,
        index_name: str = "index",
        *,
        allow_dangerous_deserialization: bool = False,
        io_flags: int = 0,
        **kwargs: Any,
    ) -> Self:
        """LangChain's name for :meth:`load` (``folder_path`` or its ``index_name`` subfolder).

        Nothing is ever unpickled, so ``allow_dangerous_deserialization`` changes nothing and
        is accepted for LangChain's sake; ``io_flags`` (FAISS read flags) is accepted and ignored.
        """
        path = _named(folder_path, index_name)
        if not path.exists() and (Path(folder_path) / f"{index_name}.pkl").exists():
            path = Path(folder_path)  # a LangChain save: load() explains why it is refused
        return cls.load(path, embeddings, **kwargs)


def _named(folder_path: str | os.PathLike[str], index_name: str) -> Path:
    if index_name == "index":
        return Path(folder_path)
    if not index_name or Path(index_name).name != index_name or index_name in (".", ".."):
        raise ConfigurationError(
            f"index_name must be a plain file name (no folders), got {index_name!r}"
        )
    return Path(folder_path) / index_name
