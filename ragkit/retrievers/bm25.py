"""BM25Retriever: keyword retrieval with a fast sparse BM25 index and a real analyzer.

The default engine (``engine="default"``) is :class:`~ragkit.retrievers.bm25_index.BM25Index`:
BM25 weights precomputed into sparse columns, summed per query with numpy.
Text goes through :class:`~ragkit.retrievers.analyzer.Analyzer` (lowercase, word
tokens, English stopwords, Snowball stems) unless ``preprocess_func`` is given.
``engine="rank_bm25"`` uses rank-bm25's ``BM25Okapi`` as LangChain does (slow;
for parity checks). Scores are put in ``metadata["score"]``; documents that
share no term with the query are not returned.

Save with :meth:`BM25Retriever.save` (numpy ``.npz`` + JSON, no pickle) and
load with :meth:`BM25Retriever.load`.

Example:
    >>> retriever = BM25Retriever.from_texts(["solar panels on roofs", "wind turbines at sea"], k=1)
    >>> [d.page_content for d in retriever.invoke("How do solar panels work?")]
    ['solar panels on roofs']
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from collections.abc import Callable, Iterable, MutableSequence, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragkit._io.atomic import fsync_dir, write_bytes_atomic
from ragkit._io.json_stream import JSONArray, write_json_atomic
from ragkit._io.safe_read import open_regular, parse_json
from ragkit.documents import Document
from ragkit.errors import (
    ConfigurationError,
    EmptyCorpusError,
    IndexCorruptedError,
    IndexFormatError,
    RagkitError,
)
from ragkit.retrievers._util import check_choice, check_k, check_query, reject_unknown, with_score
from ragkit.retrievers.analyzer import Analyzer
from ragkit.retrievers.base import BaseRetriever
from ragkit.retrievers.bm25_index import BM25Index

ENGINES = ("default", "rank_bm25")
FORMAT = "ragkit.bm25"
FORMAT_VERSION = 1
JSON_NAME = "bm25.json"
ARRAYS_NAME = "bm25.npz"


@dataclass(frozen=True)
class BM25Build:
    """How :meth:`BM25Retriever._build` indexes: the parameters of ``from_texts``/``from_documents``."""

    bm25_params: dict[str, Any] | None = None
    preprocess_func: Callable[[str], list[str]] | None = None
    k: int = 4
    engine: str = "default"
    analyzer: Analyzer | None = None


class BM25Retriever(BaseRetriever):
    """Okapi BM25 over a fixed set of documents. Build with :meth:`from_texts` or :meth:`from_documents`.

    Args:
        docs: The indexed documents, in index order.
        index: The engine object (a ``BM25Index``, or a ``rank_bm25.BM25Okapi`` for ``engine="rank_bm25"``).
        k: How many documents to return (overridable per call: ``invoke(q, k=10)``).
        preprocess_func: Text → terms, used for the query (the documents were indexed with it).
        engine: ``"default"`` or ``"rank_bm25"``.
    """

    def __init__(
        self,
        docs: Sequence[Document],
        index: Any,
        k: int = 4,
        preprocess_func: Callable[[str], list[str]] | None = None,
        engine: str = "default",
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        check_choice(engine, ENGINES, "BM25Retriever engine")
        super().__init__(tags=tags, metadata=metadata)
        # a list is copied (its owner may change it); a read-only sequence, such as a store's
        # documents(), is kept as it is, so a large corpus is not copied
        self.docs: Sequence[Document] = (
            docs
            if isinstance(docs, Sequence) and not isinstance(docs, MutableSequence)
            else list(docs)
        )
        self.index = index
        self.k = check_k(k)
        self.preprocess_func: Callable[[str], list[str]] = preprocess_func or Analyzer()
        self.engine = engine

    @property
    def vectorizer(self) -> Any:
        """The engine object (LangChain's attribute name)."""
        return self.index

    @property
    def analyzer(self) -> Analyzer | None:
        """The analyzer, or None when a custom ``preprocess_func`` is used."""
        return self.preprocess_func if isinstance(self.preprocess_func, Analyzer) else None

    # -- construction ------------------------------------------------------------
    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        metadatas: Iterable[dict[str, Any]] | None = None,
        ids: Iterable[str] | None = None,
        bm25_params: dict[str, Any] | None = None,
        preprocess_func: Callable[[str], list[str]] | None = None,
        k: int = 4,
        engine: str = "default",
        analyzer: Analyzer | None = None,
        **kwargs: Any,
    ) -> BM25Retriever:
        """Index ``texts`` (with optional ``metadatas`` and ``ids``).

        ``preprocess_func`` replaces the analyzer (e.g. ``str.split`` to reproduce LangChain);
        ``analyzer`` sets a configured :class:`Analyzer` (e.g. ``Analyzer(language="german")``).
        ``bm25_params``: ``k1`` (1.5), ``b`` (0.75), ``method`` (``"lucene"``), ``delta``, ``epsilon``;
        with ``engine="rank_bm25"`` they go to ``BM25Okapi`` unchanged.
        """
        texts = list(texts)
        metas = [dict(m) for m in metadatas] if metadatas is not None else [{} for _ in texts]
        id_list = list(ids) if ids is not None else [None] * len(texts)
        if len(metas) != len(texts) or len(id_list) != len(texts):
            raise ConfigurationError(
                f"BM25Retriever.from_texts got {len(texts)} texts, {len(metas)} metadatas and {len(id_list)} ids; "
                "they must have the same length"
            )
        docs = [Document(t, metadata=m, id=i) for t, m, i in zip(texts, metas, id_list)]
        return cls._build(
            docs, BM25Build(bm25_params, preprocess_func, k, engine, analyzer), **kwargs
        )

    @classmethod
    def from_documents(
        cls,
        documents: Iterable[Document],
        *,
        bm25_params: dict[str, Any] | None = None,
        preprocess_func: Callable[[str], list[str]] | None = None,
        k: int = 4,
        engine: str = "default",
        analyzer: Analyzer | None = None,
        **kwargs: Any,
    ) -> BM25Retriever:
        """Index ``documents`` (ids and metadata are kept)."""
        docs = documents if isinstance(documents, Sequence) else list(documents)
        return cls._build(
            docs, BM25Build(bm25_params, preprocess_func, k, engine, analyzer), **kwargs
        )

    @classmethod
    def _build(cls, docs: Sequence[Document], build: BM25Build, **kwargs: Any) -> BM25Retriever:
        bm25_params, preprocess_func, analyzer, engine = (
            build.bm25_params,
            build.preprocess_func,
            build.analyzer,
            build.engine,
        )
        check_choice(engine, ENGINES, "BM25Retriever engine")
        if not docs:
            raise EmptyCorpusError(
                "BM25Retriever got 0 documents to index; check that your loader or splitter produced any"
            )
        for i, d in enumerate(docs):
            if not isinstance(d, Document) or not isinstance(d.page_content, str):
                raise ConfigurationError(
                    f"BM25Retriever: item {i} is not a Document with string page_content"
                )
        if preprocess_func is not None and analyzer is not None:
            raise ConfigurationError(
                "BM25Retriever: pass either preprocess_func or analyzer, not both"
            )
        tokenize: Callable[[str], list[str]] = preprocess_func or analyzer or Analyzer()
        corpus_tokens = (tokenize(d.page_content) for d in docs)  # one document at a time
        if engine == "rank_bm25":
            try:
                from rank_bm25 import BM25Okapi
            except ImportError as err:
                raise ConfigurationError(
                    "engine='rank_bm25' needs the rank-bm25 package: pip install rank-bm25"
                ) from err
            index: Any = BM25Okapi(list(corpus_tokens), **(bm25_params or {}))
        else:
            index = BM25Index.build(corpus_tokens, **(bm25_params or {}))
        return cls(docs, index, k=build.k, preprocess_func=tokenize, engine=engine, **kwargs)

    # -- search ------------------------------------------------------------------
    def search(self, query: str, k: int | None = None) -> list[tuple[int, float]]:
        """``(document position, score)`` pairs of the best ``k`` matches, best first."""
        check_query(query, "BM25Retriever")
        k = check_k(self.k if k is None else k)  # self.k may have been set directly
        tokens = self.preprocess_func(query)
        if k == 0 or not tokens:
            return []
        if self.engine == "rank_bm25":
            scores = np.asarray(self.index.get_scores(tokens), dtype=np.float64)
            top = np.argsort(-scores, kind="stable")[:k]
            return [(int(i), float(scores[i])) for i in top]
        ids, top_scores = self.index.top_k(tokens, k)
        return list(zip(ids.tolist(), top_scores.tolist()))

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        reject_unknown(kwargs, "BM25Retriever", ("k",))
        docs = self.docs
        return [with_score(docs[i], s) for i, s in self.search(query, kwargs.get("k"))]

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return self._get_relevant_documents(query, **kwargs)  # sub-millisecond: no worker thread

    # -- persistence -------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the index to directory ``path`` (``bm25.npz`` + ``bm25.json``; atomic per file, no pickle).

        A custom ``preprocess_func`` is not saved: pass it again to :meth:`load`.
        """
        folder = Path(path)
        for position, doc in enumerate(self.docs):  # before anything is written
            _check_metadata(doc, position)
        arrays: dict[str, np.ndarray] = {}
        vocabulary: list[str] = []
        if self.engine == "default":
            arrays = self.index.arrays()
            vocabulary = self.index.vocabulary()
            params = self.index.params
        else:
            params = {
                k: getattr(self.index, k) for k in ("k1", "b", "epsilon") if hasattr(self.index, k)
            }
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)  # type: ignore[arg-type]
        blob = buffer.getvalue()
        header = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "engine": self.engine,
            "k": self.k,
            "analyzer": self.analyzer.to_config() if self.analyzer is not None else None,
            "bm25_params": params,
            "num_docs": len(self.docs),
            "vocabulary": JSONArray(vocabulary),
            "arrays_sha256": hashlib.sha256(blob).hexdigest(),
            # streamed one batch at a time: the corpus is never one JSON string in memory
            "documents": JSONArray(_doc_to_json(d) for d in self.docs),
        }
        write_bytes_atomic(folder / ARRAYS_NAME, blob)
        write_json_atomic(folder / JSON_NAME, header)
        fsync_dir(folder)

    @classmethod
    def load(
        cls,
        path: str | Path,
        preprocess_func: Callable[[str], list[str]] | None = None,
        k: int | None = None,
    ) -> BM25Retriever:
        """Read an index written by :meth:`save`. Pass ``preprocess_func`` if it was built with a custom one."""
        folder = Path(path)
        json_path, arrays_path = folder / JSON_NAME, folder / ARRAYS_NAME
        header = _read_header(json_path, folder)
        blob = _read_file(arrays_path, folder)
        if hashlib.sha256(blob).hexdigest() != header.get("arrays_sha256"):
            raise IndexFormatError(
                f"{arrays_path} does not belong to {json_path} (checksum mismatch: interrupted or mixed saves); "
                "rebuild the index"
            )
        docs = _documents(header, json_path)
        engine, analyzer_config = header["engine"], header["analyzer"]
        params = header["bm25_params"]
        if analyzer_config is None and preprocess_func is None:
            raise IndexFormatError(
                f"{json_path} was built with a custom preprocess_func; pass the same one to "
                "BM25Retriever.load(path, preprocess_func=...)"
            )
        try:
            tokenize = preprocess_func or Analyzer.from_config(analyzer_config)
        except (RagkitError, KeyError, TypeError, ValueError) as err:
            raise IndexFormatError(f"{json_path}: invalid analyzer settings ({err})") from None
        k = header["k"] if k is None else k
        if engine == "rank_bm25":
            return cls._build(docs, BM25Build(params, tokenize, k, engine))
        arrays = _read_arrays(blob, arrays_path)
        try:
            index = BM25Index.from_arrays(arrays, header["vocabulary"], len(docs), params)
        except ValueError as err:
            raise IndexFormatError(f"{folder}: {err}") from err
        return cls(docs, index, k=k, preprocess_func=tokenize, engine=engine)


_ARRAYS = {"indptr": "iu", "doc_ids": "iu", "weights": "f"}


def _read_file(path: Path, folder: Path) -> bytes:
    try:
        with open_regular(path) as handle:
            return handle.read()
    except FileNotFoundError:
        raise IndexFormatError(
            f"BM25 index file {path} is missing; save the retriever to {folder} first"
        ) from None
    except IndexCorruptedError as err:
        raise IndexFormatError(str(err)) from None
    except OSError as err:
        raise IndexFormatError(f"BM25 index file {path} cannot be read ({err})") from None


def _read_header(path: Path, folder: Path) -> dict[str, Any]:
    try:
        header = parse_json(_read_file(path, folder), path)
    except IndexFormatError:
        raise
    except IndexCorruptedError as err:
        raise IndexFormatError(f"BM25 index file {err}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise IndexFormatError(f"{path} is not a ragkit BM25 index (no format={FORMAT!r})")
    if header.get("version") != FORMAT_VERSION:
        raise IndexFormatError(
            f"{path} has BM25 index format version {header.get('version')!r}; this ragkit reads "
            f"version {FORMAT_VERSION}: rebuild the index"
        )
    checks = {
        "engine": lambda v: v in ENGINES,
        "analyzer": lambda v: v is None or isinstance(v, dict),
        "bm25_params": lambda v: isinstance(v, dict),
        "k": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "vocabulary": lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v),
        "documents": lambda v: isinstance(v, list),
        "arrays_sha256": lambda v: isinstance(v, str),
    }
    for field, ok in checks.items():
        if field not in header or not ok(header[field]):
            raise IndexFormatError(
                f"{path}: field {field!r} is missing or invalid; rebuild the index"
            )
    return header


def _documents(header: dict[str, Any], path: Path) -> list[Document]:
    docs = []
    trusted = Document._trusted
    for i, entry in enumerate(header["documents"]):
        if not isinstance(entry, dict):
            raise IndexFormatError(f"{path}: document {i} is invalid; rebuild the index")
        text, meta, doc_id = entry.get("page_content"), entry.get("metadata", {}), entry.get("id")
        if not (
            isinstance(text, str)
            and isinstance(meta, dict)
            and (doc_id is None or isinstance(doc_id, str))
        ):
            raise IndexFormatError(f"{path}: document {i} is invalid; rebuild the index")
        docs.append(trusted(text, meta, doc_id))  # checked just above; the dicts are fresh
    if header.get("num_docs", len(docs)) != len(docs):
        raise IndexFormatError(
            f"{path}: {len(docs)} documents, the header says {header.get('num_docs')}"
        )
    return docs


def _read_arrays(blob: bytes, path: Path) -> dict[str, np.ndarray]:
    """The three arrays of ``bm25.npz``, each checked (kind, shape, size) before it is read."""
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            for name, kinds in _ARRAYS.items():
                info = archive.getinfo(f"{name}.npy")
                with archive.open(info) as member:
                    version = np.lib.format.read_magic(member)
                    reader = (
                        np.lib.format.read_array_header_1_0
                        if version == (1, 0)
                        else np.lib.format.read_array_header_2_0
                    )
                    shape, _fortran, dtype = reader(member)
                    header_size = member.tell()
                if dtype.hasobject or dtype.kind not in kinds or len(shape) != 1:
                    raise ValueError(f"{name} is a {dtype} array of shape {shape}")
                if shape[0] * dtype.itemsize != info.file_size - header_size:
                    raise ValueError(
                        f"{name} declares {shape[0]} values that the file does not hold"
                    )
                with archive.open(info) as member:
                    arrays[name] = np.lib.format.read_array(member, allow_pickle=False)
    except (
        KeyError,
        ValueError,
        OSError,
        EOFError,
        RuntimeError,  # an encrypted member
        NotImplementedError,  # an unknown zip version or compression
        zipfile.BadZipFile,
        zlib.error,
    ) as err:
        raise IndexFormatError(
            f"{path} is not a valid BM25 arrays file ({err}); rebuild the index"
        ) from None
    return arrays


def _check_metadata(doc: Document, position: int) -> None:
    try:
        json.dumps(doc.metadata)
    except (TypeError, ValueError) as err:
        raise ConfigurationError(
            f"BM25Retriever.save: metadata of document {position} (id={doc.id!r}) is not JSON-serialisable "
            f"({err}); convert it to str/int/float/list/dict values before saving"
        ) from err


def _doc_to_json(doc: Document) -> dict[str, Any]:
    return {"page_content": doc.page_content, "metadata": doc.metadata, "id": doc.id}
