"""GoogleVectorStore: Google's server-side corpus (Semantic Retriever API) as a ragkit VectorStore.

A store is bound to a corpus (searches span all its documents) and optionally
to one document (searches and uploads stay in it). The service embeds the
chunks itself (``embeddings`` is a :class:`ServerSideEmbedding`). Uploads are
idempotent and resumable: chunk names are derived from text + metadata (or
given ``ids``), so rerunning an upload that failed half-way writes only what
is missing; a failed upload raises :class:`GoogleUploadError` saying what was
written. A corpus or document that does not exist raises
:class:`DoesNotExistsException` (the service answers 403 for a missing corpus).

Example:
    >>> # store = GoogleVectorStore.create_corpus("my-corpus", display_name="Docs")  # GOOGLE_API_KEY set
    >>> # doc = GoogleVectorStore.create_document("my-corpus", "handbook")
    >>> # doc.add_texts(["Refunds take 5 days."], [{"year": 2024}])
    >>> # store.similarity_search("refund time", k=2, filter={"year": {"$gte": 2020}})
    >>> # store.as_aqa().invoke("How long do refunds take?").answer
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ragkit._google.client import GoogleClient
from ragkit._google.corpus import (
    check_id,
    chunk_ids,
    from_custom_metadata,
    to_custom_metadata,
    to_metadata_filters,
)
from ragkit._google.settings import GoogleSettings
from ragkit.documents import Document
from ragkit.embeddings.base import Embeddings
from ragkit.errors import (
    ConfigurationError,
    DoesNotExistsException,
    GoogleAPIError,
    GoogleUploadError,
    InputTypeError,
    InvalidKeyError,
    InvalidQueryError,
    StoreInputError,
)
from ragkit.stores.base import VectorStore

if TYPE_CHECKING:
    from ragkit.retrievers.google_aqa import GoogleAQA

__all__ = [
    "DoesNotExistsException",
    "GoogleUploadError",
    "GoogleVectorStore",
    "ServerSideEmbedding",
]
MAX_BATCH = 100


class ServerSideEmbedding(Embeddings):
    """Marks a store whose vectors the service computes; it cannot embed on the client."""

    @property
    def model_id(self) -> str:
        return "google:server-side"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError(
            "GoogleVectorStore embeds on the server; there are no client-side vectors"
        )

    def embed_query(self, text: str) -> list[float]:
        raise NotImplementedError(
            "GoogleVectorStore embeds on the server; there are no client-side vectors"
        )


def _client(kwargs: dict[str, Any]) -> GoogleClient:
    client = kwargs.pop("client", None)
    if client is not None:
        return client
    return GoogleSettings(**kwargs)._google_client()


def _get(client: GoogleClient, kind: str, name: str) -> dict[str, Any]:
    try:
        return client.get_corpus(name) if kind == "corpus" else client.get_document(name)
    except GoogleAPIError as e:
        if e.status_code in (403, 404):
            raise DoesNotExistsException(
                f"{kind} {name} does not exist (or this API key may not access it); create it with "
                f"GoogleVectorStore.create_{kind}(...)",
                status_code=e.status_code,
                status=e.status,
                rpc=e.rpc,
            ) from None
        raise


class GoogleVectorStore(VectorStore):
    """A corpus (and optionally one of its documents) on Google's Semantic Retriever service.

    Connection keywords (``google_api_key``, ``client_options``, ``transport``, ``timeout``,
    ``max_retries``, ``retry_initial_delay``, ``retry_max_delay``) are those of every ragkit
    Google class.
    """

    def __init__(self, corpus_id: str, document_id: str | None = None, **kwargs: Any) -> None:
        self._corpus_id = check_id(corpus_id, "corpus_id")
        self._document_id = (
            check_id(document_id, "document_id") if document_id is not None else None
        )
        self._client = _client(kwargs)
        _get(self._client, "corpus", f"corpora/{corpus_id}")
        if self._document_id is not None:
            _get(self._client, "document", self.name)

    def __repr__(self) -> str:
        return f"GoogleVectorStore(name={self.name!r}, endpoint={self._client.endpoint!r})"

    @property
    def corpus_id(self) -> str:
        return self._corpus_id

    @property
    def document_id(self) -> str | None:
        return self._document_id

    @property
    def name(self) -> str:
        """``corpora/<corpus_id>`` or ``corpora/<corpus_id>/documents/<document_id>``."""
        corpus = f"corpora/{self._corpus_id}"
        return f"{corpus}/documents/{self._document_id}" if self._document_id else corpus

    @property
    def embeddings(self) -> Embeddings:
        return ServerSideEmbedding()

    @property
    def client(self) -> GoogleClient:
        return self._client

    # -- creation ----------------------------------------------------------------------
    @classmethod
    def create_corpus(
        cls, corpus_id: str | None = None, display_name: str | None = None, **kwargs: Any
    ) -> GoogleVectorStore:
        """Create a corpus (an id is made up if none is given); an existing one is reused."""
        corpus_id = (
            check_id(corpus_id, "corpus_id") if corpus_id else f"corpus-{uuid.uuid4().hex[:24]}"
        )
        client = _client(kwargs)
        try:
            client.create_corpus(
                {"name": f"corpora/{corpus_id}", "display_name": display_name or corpus_id}
            )
        except GoogleAPIError as e:
            if e.status_code != 409:
                raise
        return cls(corpus_id, client=client)

    @classmethod
    def create_document(
        cls,
        corpus_id: str,
        document_id: str | None = None,
        display_name: str | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> GoogleVectorStore:
        """Create a document in ``corpus_id`` (an existing one is reused) and bind a store to it."""
        check_id(corpus_id, "corpus_id")
        document_id = (
            check_id(document_id, "document_id") if document_id else f"doc-{uuid.uuid4().hex[:24]}"
        )
        client = _client(kwargs)
        parent = f"corpora/{corpus_id}"
        _get(client, "corpus", parent)
        document = {
            "name": f"{parent}/documents/{document_id}",
            "display_name": display_name or document_id,
            "custom_metadata": to_custom_metadata(metadata or {}, "document metadata"),
        }
        try:
            client.create_document(parent, document)
        except GoogleAPIError as e:
            if e.status_code != 409:
                raise
        return cls(corpus_id, document_id, client=client)

    @classmethod
    def from_texts(
        cls,
        texts: Sequence[str],
        embedding: Embeddings | None = None,
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        corpus_id: str | None = None,
        document_id: str | None = None,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> GoogleVectorStore:
        """Upload ``texts`` into ``corpus_id``/``document_id``, creating either when missing.

        ``embedding`` is ignored: the service embeds the chunks.
        """
        if embedding is not None and not isinstance(embedding, Embeddings):
            raise InputTypeError(
                f"from_texts(texts, embedding, metadatas): the second argument is the embedding "
                f"(unused, the service embeds), got {type(embedding).__name__}; pass metadatas=..."
            )
        client = _client(kwargs)
        if corpus_id is None:
            corpus_id = cls.create_corpus(client=client).corpus_id
        else:
            try:
                _get(client, "corpus", f"corpora/{corpus_id}")
            except DoesNotExistsException:
                cls.create_corpus(corpus_id, client=client)
        store = cls.create_document(corpus_id, document_id, client=client)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    def list_documents(self) -> list[str]:
        """The ids of the corpus's documents."""
        documents = self._client.list_documents(f"corpora/{self._corpus_id}")
        return [d["name"].rsplit("/", 1)[-1] for d in documents]

    def delete_document(self, force: bool = True) -> None:
        """Delete the bound document (with its chunks unless ``force=False``, which fails on a non-empty one)."""
        if self._document_id is None:
            raise ConfigurationError("delete_document needs a store bound to a document")
        self._client.delete_document(self.name, force=force)

    def delete_corpus(self, force: bool = True) -> None:
        """Delete the whole corpus (with its documents unless ``force=False``, which fails on a non-empty one)."""
        self._client.delete_corpus(f"corpora/{self._corpus_id}", force=force)

    # -- writing -------------------------------------------------------------------------
    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        document_id: str | None = None,
        batch_size: int = MAX_BATCH,
        **kwargs: Any,
    ) -> list[str]:
        """Store ``texts`` as chunks of the document; returns their chunk names.

        Batches of ``batch_size`` (at most 100) go out with batchCreate. Chunk names come
        from ``ids`` or from each text and its metadata; chunks whose name is already
        present (from an earlier, perhaps interrupted, run) are kept as they are and
        skipped, so reruns never duplicate. Failed batches do not stop the others; afterwards a
        :class:`GoogleUploadError` lists what was written and what was not.
        """
        texts = list(texts)
        document = document_id or self._document_id
        if document is None:
            raise ConfigurationError(
                "add_texts needs a document: pass document_id=... or use a store bound to one "
                "(GoogleVectorStore.create_document(corpus_id, document_id))"
            )
        parent = f"corpora/{self._corpus_id}/documents/{check_id(document, 'document_id')}"
        if not 1 <= batch_size <= MAX_BATCH:
            raise ConfigurationError(
                f"batch_size must be between 1 and {MAX_BATCH}, got {batch_size}"
            )
        metas = [dict(m) for m in metadatas] if metadatas is not None else [{} for _ in texts]
        if len(metas) != len(texts) or (ids is not None and len(ids) != len(texts)):
            raise StoreInputError(
                f"got {len(texts)} texts, {len(metas)} metadatas and "
                f"{len(ids) if ids is not None else 'no'} ids; they must match one to one"
            )
        short = (
            [check_id(i, "chunk id") for i in ids] if ids is not None else chunk_ids(texts, metas)
        )
        if len(set(short)) != len(short):
            raise StoreInputError("ids contain duplicates; every chunk needs its own id")
        names = [f"{parent}/chunks/{c}" for c in short]
        chunks = [
            {
                "name": n,
                "data": {"string_value": t},
                "custom_metadata": to_custom_metadata(m, f"metadatas[{i}]"),
            }
            for i, (n, t, m) in enumerate(zip(names, texts, metas, strict=True))
        ]
        return self._upload(parent, chunks, batch_size)

    def _upload(self, parent: str, chunks: list[dict[str, Any]], batch_size: int) -> list[str]:
        existing: set[str] | None = None
        failed: list[str] = []
        errors: list[GoogleAPIError] = []
        for start in range(0, len(chunks), batch_size):
            batch = chunks[start : start + batch_size]
            if existing is not None:
                batch = [c for c in batch if c["name"] not in existing]
            while batch:
                try:
                    self._client.batch_create_chunks(parent, batch)
                    break
                except GoogleAPIError as e:
                    if e.status_code == 409 and existing is None:
                        # Some chunks exist (an earlier run, or a retried request that had landed): list once.
                        existing = {c["name"] for c in self._client.list_chunks(parent)}
                        batch = [c for c in batch if c["name"] not in existing]
                        continue
                    failed.extend(c["name"] for c in batch)
                    errors.append(e)
                    break
        names = [c["name"] for c in chunks]
        if errors:
            written = [n for n in names if n not in set(failed)]
            raise GoogleUploadError(
                f"uploaded {len(written)} of {len(names)} chunks to {parent}; {len(errors)} batch(es) failed, "
                f"first: {errors[0]}. Rerun the same add_texts call to upload the rest (nothing is duplicated)",
                written_ids=written,
                failed_ids=failed,
                errors=errors,
            )
        return names

    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete chunks by name (or by chunk id within the bound document); missing ones are ignored."""
        if not ids:
            return False
        by_document: dict[str, list[str]] = {}
        for chunk in ids:
            if "/chunks/" not in chunk:
                if self._document_id is None:
                    raise InvalidKeyError(
                        f"chunk id {chunk!r} needs a document: pass full chunk names "
                        "(corpora/.../documents/.../chunks/...) or bind the store to a document"
                    )
                chunk = f"{self.name}/chunks/{chunk}"
            if not chunk.startswith(f"corpora/{self._corpus_id}/"):
                raise InvalidKeyError(f"chunk {chunk!r} is not in corpus {self._corpus_id!r}")
            by_document.setdefault(chunk.split("/chunks/")[0], []).append(chunk)
        for parent, names in by_document.items():
            for start in range(0, len(names), MAX_BATCH):
                batch = names[start : start + MAX_BATCH]
                try:
                    self._client.batch_delete_chunks(parent, batch)
                except GoogleAPIError as e:
                    if e.status_code != 404:
                        raise
                    self._delete_one_by_one(batch)
        return True

    def _delete_one_by_one(self, names: list[str]) -> None:
        for name in names:
            try:
                self._client.delete_chunk(name)
            except GoogleAPIError as e:
                if e.status_code != 404:
                    raise

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The chunks with these names (missing ones are left out)."""
        out = []
        for name in ids:
            try:
                out.append(_document(self._client.get_chunk(name)))
            except GoogleAPIError as e:
                if e.status_code not in (403, 404):
                    raise
        return out

    # -- searching --------------------------------------------------------------------------
    def similarity_search_with_score(
        self,
        query: str,
        k: int = 4,
        filter: dict[str, Any] | None = None,
        fetch_k: int = 20,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """Chunks most relevant to ``query`` with the service's relevance score (higher is better;
        ``fetch_k`` is ignored: the service ranks). ``similarity_search`` is VectorStore's."""
        if not 1 <= k <= 100:
            raise InvalidQueryError(
                f"k must be between 1 and 100 for the Semantic Retriever, got {k}"
            )
        request = {
            "name": self.name,
            "query": query,
            "results_count": k,
            "metadata_filters": to_metadata_filters(filter),
        }
        found = (
            self._client.query_document(request)
            if self._document_id
            else self._client.query_corpus(request)
        )
        return [(_document(r["chunk"]), float(r.get("chunk_relevance_score", 0.0))) for r in found]

    def _relevance_score(self, score: float) -> float:
        return min(1.0, max(0.0, score))

    def as_aqa(
        self,
        answer_style: str = "ABSTRACTIVE",
        safety_settings: dict[Any, Any] | None = None,
        temperature: float | None = None,
        **kwargs: Any,
    ) -> GoogleAQA:
        """A runnable ``question -> AqaOutput`` answering from this corpus/document (generateAnswer)."""
        from ragkit.retrievers.google_aqa import GoogleAQA

        return GoogleAQA(
            vectorstore=self,
            answer_style=answer_style,
            safety_settings=safety_settings,
            temperature=temperature,
            **kwargs,
        )


def _document(chunk: dict[str, Any]) -> Document:
    return Document(
        page_content=(chunk.get("data") or {}).get("string_value", ""),
        metadata=from_custom_metadata(chunk.get("custom_metadata") or []),
        id=chunk.get("name"),
    )
