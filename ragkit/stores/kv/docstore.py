"""A store of Documents on top of a byte store: ``create_kv_docstore(byte_store)`` (LangChain's name).

Each Document is kept as UTF-8 JSON in LangChain's serialized form
(``{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document",
"Document"], "kwargs": {...}}``), so a ``LocalFileStore`` of parent documents
written by LangChain's ``MultiVectorRetriever(byte_store=...)`` reads here, and the
other way round. Nothing is unpickled or constructed but a Document: a value that
is not a serialized Document reads as an :class:`~ragkit.errors.IndexCorruptedError`
naming the key; metadata that JSON cannot hold exactly is refused when written
(:class:`~ragkit.errors.StoreInputError`), instead of being stored as something else.

Example:
    >>> from ragkit.documents import Document
    >>> from ragkit.stores import InMemoryByteStore
    >>> docs = create_kv_docstore(InMemoryByteStore())
    >>> docs.mset([("p1", Document("full text", metadata={"page": 2}))])
    >>> found, missing = docs.mget(["p1", "missing"])
    >>> found.page_content, found.metadata, missing
    ('full text', {'page': 2}, None)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ragkit.documents import Document
from ragkit.errors import IndexCorruptedError, InputTypeError, StoreInputError
from ragkit.stores.kv import BaseStore

_LC_ID = ["langchain", "schema", "document", "Document"]


def _check_json(value: Any, where: str) -> None:
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise StoreInputError(f"{where} is {value!r}, which JSON cannot hold")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_json(item, f"{where}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise StoreInputError(f"{where} has the key {key!r}; JSON keys are strings")
            _check_json(item, f"{where}[{key!r}]")
        return
    raise StoreInputError(
        f"{where} is a {type(value).__name__}, which JSON cannot hold exactly; store it as a "
        "string or a number"
    )


def dump_document(doc: Document, key: str = "") -> bytes:
    """The bytes stored for ``doc`` (LangChain's serialized-Document JSON)."""
    if not isinstance(doc, Document):
        raise InputTypeError(
            f"a document store holds Documents; got {type(doc).__name__} for {key!r}"
        )
    _check_json(doc.metadata, f"metadata of document {key!r}")
    kwargs: dict[str, Any] = {}
    if doc.id is not None:
        kwargs["id"] = doc.id
    if doc.metadata:
        kwargs["metadata"] = doc.metadata
    kwargs["page_content"] = doc.page_content
    kwargs["type"] = "Document"
    body = {"lc": 1, "type": "constructor", "id": _LC_ID, "kwargs": kwargs}
    return json.dumps(body).encode("utf-8")


def load_document(data: bytes, key: str = "") -> Document:
    """The Document in ``data`` (IndexCorruptedError naming ``key`` when it is not one)."""
    try:
        body = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise IndexCorruptedError(
            f"the stored value of {key!r} is not a serialized Document: {e}"
        ) from e
    if isinstance(body, dict) and body.get("id") == _LC_ID and isinstance(body.get("kwargs"), dict):
        kwargs = body["kwargs"]
    elif isinstance(body, dict) and "page_content" in body:  # a plain {"page_content": ...} object
        kwargs = body
    else:
        raise IndexCorruptedError(f"the stored value of {key!r} is not a serialized Document")
    content, metadata = kwargs.get("page_content"), kwargs.get("metadata") or {}
    if not isinstance(content, str) or not isinstance(metadata, dict):
        raise IndexCorruptedError(
            f"the stored Document of {key!r} has a malformed page_content or metadata"
        )
    doc_id = kwargs.get("id")
    return Document(content, metadata=metadata, id=doc_id if isinstance(doc_id, str) else None)


class DocumentByteStore(BaseStore[str, Document]):
    """Documents in a byte store (``mget``/``mset``/``mdelete``/``yield_keys``), keys encoded."""

    def __init__(self, store: Any, key_encoder: Callable[[str], str] | None = None) -> None:
        self.store = store
        self.key_encoder = key_encoder or (lambda key: key)

    def mget(self, keys: Sequence[str]) -> list[Document | None]:
        values = self.store.mget([self.key_encoder(k) for k in keys])
        out: list[Document | None] = []
        for key, value in zip(keys, values):
            if value is None:
                out.append(None)
                continue
            out.append(load_document(value, key))
        return out

    def mset(self, key_value_pairs: Sequence[tuple[str, Document]]) -> None:
        encoded = [(self.key_encoder(k), dump_document(d, k)) for k, d in key_value_pairs]
        self.store.mset(encoded)

    def mdelete(self, keys: Sequence[str]) -> None:
        self.store.mdelete([self.key_encoder(k) for k in keys])

    def yield_keys(self, prefix: str | None = None) -> Iterator[str]:
        """The keys of the underlying store (as encoded)."""
        yield from self.store.yield_keys(prefix=prefix)


def create_kv_docstore(
    store: Any, *, key_encoder: Callable[[str], str] | None = None
) -> DocumentByteStore:
    """A store of Documents kept as JSON in the byte store ``store`` (LangChain's helper)."""
    return DocumentByteStore(store, key_encoder)
