"""FAISS: :class:`FaissStore` under LangChain's name, with LangChain's constructor and default.

Ported code keeps working with only the import changed::

    index = faiss.IndexFlatL2(len(embeddings.embed_query("hello world")))
    store = FAISS(embedding_function=embeddings, index=index,
                  docstore=InMemoryDocstore(), index_to_docstore_id={})

``FAISS``'s default is LangChain's, ``DistanceStrategy.EUCLIDEAN_DISTANCE``: the scores of
``similarity_search_with_score`` are squared L2 distances (lower is better), so thresholds
written for LangChain's FAISS keep their meaning. (``FaissStore``'s own default is the
cosine similarity; see the migration guide.) Saving stays pickle-free:
``save_local``/``load_local`` write and read FAISS's file format plus JSON, and
``allow_dangerous_deserialization`` is accepted and ignored, since nothing unsafe is read.

Example:
    >>> import faiss
    >>> from ragkit.embeddings import HashEmbeddings
    >>> emb = HashEmbeddings(32)
    >>> store = FAISS(emb, faiss.IndexFlatL2(32), InMemoryDocstore(), {})
    >>> ids = store.add_texts(["tea", "coffee"], ids=["t", "c"])
    >>> doc, score = store.similarity_search_with_score("tea", k=1)[0]
    >>> doc.id, round(score, 6), store.index.ntotal, store.index_to_docstore_id
    ('t', 0.0, 2, {0: 't', 1: 'c'})
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from typing_extensions import Self

from ragkit.documents import Document
from ragkit.embeddings.adapter import as_embeddings
from ragkit.embeddings.base import Embeddings
from ragkit.errors import ConfigurationError, StoreInputError
from ragkit.stores.distance import DistanceStrategy
from ragkit.stores.faiss import _index as fx
from ragkit.stores.faiss.store import FaissStore


class InMemoryDocstore:
    """LangChain's in-memory docstore: documents by id (``search``, ``add``, ``delete``).

    ``FAISS`` reads the documents of a pre-filled docstore when it is created; after that
    the store keeps its own copy (``store.docstore`` is a live view of it).
    """

    def __init__(self, _dict: dict[str, Document] | None = None) -> None:
        self._dict: dict[str, Document] = dict(_dict or {})

    def add(self, texts: dict[str, Document]) -> None:
        """Add documents by id; ``StoreInputError`` (a ValueError) if an id is already there."""
        overlap = sorted(set(texts) & set(self._dict))
        if overlap:
            raise StoreInputError(f"tried to add ids that already exist: {overlap[:10]}")
        self._dict.update(texts)

    def delete(self, ids: list[str]) -> None:
        """Delete by id; ``StoreInputError`` if an id is not there (nothing is deleted)."""
        missing = sorted(set(ids) - set(self._dict))
        if missing:
            raise StoreInputError(f"tried to delete ids that do not exist: {missing[:10]}")
        for i in ids:
            del self._dict[i]

    def search(self, search: str) -> Document | str:
        """The document with id ``search``, or LangChain's ``"ID ... not found."`` string."""
        return self._dict.get(search, f"ID {search} not found.")

    def __len__(self) -> int:
        return len(self._dict)


class _StoreDocstore:
    """A live, read-only docstore view of a FAISS store (what ``store.docstore`` returns)."""

    def __init__(self, store: FaissStore) -> None:
        self._store = store

    @property
    def _dict(self) -> dict[str, Document]:
        docs = self._store._docs
        return {docs.ids[p]: docs.document(p) for p in range(len(docs))}

    def search(self, search: str) -> Document | str:
        found = self._store.get_by_ids([search])
        return found[0] if found else f"ID {search} not found."

    def __len__(self) -> int:
        return len(self._store)

    def __iter__(self) -> Iterator[str]:
        return iter(self._store.ids)


class _FunctionEmbeddings(Embeddings):
    """A bare ``text -> vector`` function as an Embeddings object (LangChain still takes one)."""

    def __init__(self, function: Callable[[str], list[float]]) -> None:
        self.function = function

    @property
    def model_id(self) -> str:
        return f"function:{getattr(self.function, '__qualname__', type(self.function).__name__)}"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(self.function(t)) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(self.function(text))


def _as_embeddings(value: Any) -> Embeddings | None:
    if value is None or isinstance(value, Embeddings):
        return value
    if callable(getattr(value, "embed_documents", None)):
        return as_embeddings(value, "embedding_function")
    if callable(value):
        return _FunctionEmbeddings(value)
    raise ConfigurationError(
        f"embedding_function must be a ragkit Embeddings object (or a text -> vector function), "
        f"got {type(value).__name__}"
    )


class FAISS(FaissStore):
    """LangChain's ``FAISS`` vector store: :class:`FaissStore` with LangChain's constructor.

    Args:
        embedding_function: the embeddings (a ragkit ``Embeddings``; a plain function works).
        index: a FAISS index (``faiss.IndexFlatL2(d)``, ``faiss.IndexFlatIP(d)``, HNSW, IVF...);
            ``None`` creates one on the first add. Its metric must fit ``distance_strategy``
            (L2 for ``EUCLIDEAN_DISTANCE``, inner product for the others).
        docstore: LangChain's docstore (ragkit's or LangChain's ``InMemoryDocstore``); its
            documents are read when ``index`` already holds vectors.
        index_to_docstore_id: vector position -> document id, for a pre-filled ``index``.
        relevance_score_fn: maps raw scores to [0, 1] for the relevance-score searches.
        normalize_L2: scale vectors to unit length on the way in (as LangChain).
        distance_strategy: ``EUCLIDEAN_DISTANCE`` by default, as in LangChain.
    """

    def __init__(
        self,
        embedding_function: Any = None,
        index: Any = None,
        docstore: Any = None,
        index_to_docstore_id: dict[int, str] | None = None,
        relevance_score_fn: Callable[[float], float] | None = None,
        normalize_L2: bool = False,  # noqa: N803
        distance_strategy: Any = DistanceStrategy.EUCLIDEAN_DISTANCE,
        *,
        index_factory: str | None = None,
        dimension: int | None = None,
    ) -> None:
        super().__init__(
            _as_embeddings(embedding_function),
            distance_strategy=distance_strategy,
            normalize_L2=normalize_L2,
            index_factory=index_factory,
            relevance_score_fn=relevance_score_fn,
            dimension=dimension if index is None else index.d,
        )
        if index is not None:
            self._adopt(index, docstore, index_to_docstore_id or {})

    def _adopt(self, index: Any, docstore: Any, mapping: dict[int, str]) -> None:
        faiss = fx.faiss_module()
        l2 = index.metric_type == faiss.METRIC_L2
        if l2 != fx.uses_l2(self.distance_strategy):
            wanted = (
                "faiss.IndexFlatL2" if fx.uses_l2(self.distance_strategy) else "faiss.IndexFlatIP"
            )
            raise ConfigurationError(
                f"the index measures {'L2 distance' if l2 else 'inner product'}, but "
                f"distance_strategy is {self.distance_strategy.value}; pass an index like "
                f"{wanted}(d) or another distance_strategy (EUCLIDEAN_DISTANCE needs an L2 index; "
                "COSINE, COSINE_SIMILARITY and MAX_INNER_PRODUCT an inner-product index)"
            )
        if index.ntotal and len(mapping) != index.ntotal:
            raise ConfigurationError(
                f"the index holds {index.ntotal} vectors but index_to_docstore_id maps "
                f"{len(mapping)}; pass the mapping and docstore that belong to the index"
            )
        texts: list[str] = []
        metadatas: list[dict[str, Any]] = []
        ids: list[str] = []
        for position in range(index.ntotal):
            doc_id = mapping.get(position)
            doc: Any = None
            if docstore is not None and doc_id is not None:
                doc = docstore.search(doc_id)
            if doc_id is None or not hasattr(doc, "page_content"):
                raise ConfigurationError(
                    f"index_to_docstore_id[{position}] = {doc_id!r} has no document in the docstore"
                )
            texts.append(doc.page_content)
            metadatas.append(dict(doc.metadata))
            ids.append(doc_id)
        self._docs.validate_new(texts, metadatas, ids)
        fx.prepare_index(index)
        self._index = index
        self._dimension = index.d
        self._docs.extend(ids, texts, metadatas)

    @classmethod
    def _from_saved(cls, embedding: Embeddings | None, **settings: Any) -> Self:
        return cls(embedding, **settings)

    # -- LangChain's attributes ------------------------------------------------------
    @property
    def embedding_function(self) -> Embeddings | None:
        """The embeddings (LangChain's attribute name)."""
        return self._embedding

    @property
    def docstore(self) -> _StoreDocstore:
        """A live view of the documents: ``search(id)``, ``_dict``, ``len``."""
        return _StoreDocstore(self)

    @property
    def index_to_docstore_id(self) -> dict[int, str]:
        """Vector position -> document id (a fresh dict on each access)."""
        return dict(enumerate(self._docs.ids))


__all__ = ["FAISS", "InMemoryDocstore"]
