"""RetrieverService of the emulator: corpora, documents and chunks in memory, queries with metadata filters.

Behaves like the service where ragkit depends on it: a missing corpus answers
403 (not 404), batch calls take at most 100 requests and are all-or-nothing,
chunk names that exist answer 409, list calls page, queries rank chunks by
word overlap (``chunkRelevanceScore`` in [0, 1]) and honour metadata filters
(``chunk.custom_metadata.<key>`` / ``document.custom_metadata.<key>``; OR
within a filter, AND between filters).
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from typing import Any

from .common import OPERATORS, ApiError, enum, require
from .text import overlap, tokens

_ID = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$")
MAX_METADATA = 20
MAX_CHUNK_TOKENS = 2043
STATE_ACTIVE = 2


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class CorpusState:
    """All corpora, documents and chunks of one emulator."""

    def __init__(self) -> None:
        self.corpora: dict[str, dict[str, Any]] = {}
        self.documents: dict[str, dict[str, Any]] = {}
        self.chunks: dict[str, dict[str, Any]] = {}
        self._lock = threading.RLock()
        self._ids = itertools.count(1)

    def handle(
        self, rpc: str, args: dict[str, str], body: dict[str, Any], params: dict[str, list[str]]
    ) -> Any:
        method = getattr(self, "_" + re.sub(r"(?<!^)(?=[A-Z])", "_", rpc).lower())
        with self._lock:
            return method(body=body, params=params, **args)

    # -- lookups ------------------------------------------------------------------
    def corpus(self, name: str) -> dict[str, Any]:
        if name not in self.corpora:
            raise ApiError(
                403,
                f"You do not have permission to access the Corpus {name.split('/')[-1]} "
                "or it may not exist.",
            )
        return self.corpora[name]

    def document(self, name: str) -> dict[str, Any]:
        self.corpus("/".join(name.split("/")[:2]))
        if name not in self.documents:
            raise ApiError(404, f"Document {name} not found.")
        return self.documents[name]

    def _new_name(self, parent: str, kind: str, given: str | None) -> str:
        prefix = f"{parent}/{kind}/" if parent else f"{kind}/"
        if not given:
            return f"{prefix}gen-{next(self._ids)}"
        require(
            given.startswith(prefix) and bool(_ID.match(given[len(prefix) :])),
            f"Invalid name {given!r}: expected {prefix}<id> with an id of up to 40 lowercase letters, digits "
            "or dashes (not starting or ending with a dash)",
        )
        return given

    @staticmethod
    def _page(
        items: list[dict[str, Any]], params: dict[str, list[str]], field: str, limit: int
    ) -> dict[str, Any]:
        size = int((params.get("pageSize") or ["0"])[0] or 0) or 10
        require(size <= limit, f"pageSize must be at most {limit}")
        start = int((params.get("pageToken") or ["0"])[0] or 0)
        out: dict[str, Any] = {field: items[start : start + size]}
        if start + size < len(items):
            out["nextPageToken"] = str(start + size)
        return out

    # -- corpora ----------------------------------------------------------------------
    def _create_corpus(self, body: dict[str, Any], params: Any) -> dict[str, Any]:
        name = self._new_name("", "corpora", body.get("name"))
        if name in self.corpora:
            raise ApiError(409, f"Corpus {name} already exists.")
        corpus = {
            "name": name,
            "displayName": body.get("displayName", ""),
            "createTime": _now(),
            "updateTime": _now(),
        }
        self.corpora[name] = corpus
        return corpus

    def _get_corpus(self, name: str, body: Any, params: Any) -> dict[str, Any]:
        return self.corpus(name)

    def _delete_corpus(self, name: str, body: Any, params: dict[str, list[str]]) -> dict[str, Any]:
        self.corpus(name)
        docs = [d for d in self.documents if d.startswith(name + "/")]
        require(
            not docs or params.get("force") == ["true"],
            f"Corpus {name} is not empty; pass force=true",
        )
        for doc in docs:
            self._drop_document(doc)
        del self.corpora[name]
        return {}

    # -- documents ----------------------------------------------------------------------
    def _create_document(self, parent: str, body: dict[str, Any], params: Any) -> dict[str, Any]:
        self.corpus(parent)
        name = self._new_name(parent, "documents", body.get("name"))
        if name in self.documents:
            raise ApiError(409, f"Document {name} already exists.")
        metadata = body.get("customMetadata", [])
        require(
            len(metadata) <= MAX_METADATA,
            f"A document takes at most {MAX_METADATA} custom metadata",
        )
        document = {
            "name": name,
            "displayName": body.get("displayName", ""),
            "customMetadata": metadata,
            "createTime": _now(),
            "updateTime": _now(),
        }
        self.documents[name] = document
        return document

    def _get_document(self, name: str, body: Any, params: Any) -> dict[str, Any]:
        return self.document(name)

    def _list_documents(
        self, parent: str, body: Any, params: dict[str, list[str]]
    ) -> dict[str, Any]:
        self.corpus(parent)
        docs = [d for n, d in self.documents.items() if n.startswith(parent + "/")]
        return self._page(docs, params, "documents", 20)

    def _delete_document(
        self, name: str, body: Any, params: dict[str, list[str]]
    ) -> dict[str, Any]:
        self.document(name)
        has_chunks = any(c.startswith(name + "/") for c in self.chunks)
        require(
            not has_chunks or params.get("force") == ["true"],
            f"Document {name} is not empty; pass force=true",
        )
        self._drop_document(name)
        return {}

    def _drop_document(self, name: str) -> None:
        for chunk in [c for c in self.chunks if c.startswith(name + "/")]:
            del self.chunks[chunk]
        del self.documents[name]

    # -- chunks ----------------------------------------------------------------------------
    def _make_chunk(self, parent: str, chunk: dict[str, Any], taken: set[str]) -> dict[str, Any]:
        name = self._new_name(parent, "chunks", chunk.get("name"))
        if name in self.chunks or name in taken:
            raise ApiError(409, f"Chunk {name} already exists.")
        text = (chunk.get("data") or {}).get("stringValue", "")
        require(bool(text), "* Chunk.data: string_value must not be empty")
        require(
            len(tokens(text)) <= MAX_CHUNK_TOKENS, f"Chunk has more than {MAX_CHUNK_TOKENS} tokens"
        )
        metadata = chunk.get("customMetadata", [])
        require(
            len(metadata) <= MAX_METADATA, f"A chunk takes at most {MAX_METADATA} custom metadata"
        )
        return {
            "name": name,
            "data": {"stringValue": text},
            "customMetadata": metadata,
            "state": STATE_ACTIVE,
            "createTime": _now(),
            "updateTime": _now(),
        }

    def _create_chunk(self, parent: str, body: dict[str, Any], params: Any) -> dict[str, Any]:
        self.document(parent)
        chunk = self._make_chunk(parent, body, set())
        self.chunks[chunk["name"]] = chunk
        return chunk

    def _batch_create_chunks(
        self, parent: str, body: dict[str, Any], params: Any
    ) -> dict[str, Any]:
        self.document(parent)
        requests = body.get("requests") or []
        require(
            0 < len(requests) <= 100, f"batchCreate takes 1 to 100 requests, got {len(requests)}"
        )
        made: list[dict[str, Any]] = []
        for i, request in enumerate(requests):
            require(
                request.get("parent", parent) == parent,
                f"requests[{i}].parent {request.get('parent')} does not match {parent}",
            )
            made.append(
                self._make_chunk(parent, request.get("chunk") or {}, {c["name"] for c in made})
            )
        for chunk in made:
            self.chunks[chunk["name"]] = chunk
        return {"chunks": made}

    def _list_chunks(self, parent: str, body: Any, params: dict[str, list[str]]) -> dict[str, Any]:
        self.document(parent)
        chunks = [c for n, c in self.chunks.items() if n.startswith(parent + "/")]
        return self._page(chunks, params, "chunks", 100)

    def _get_chunk(self, name: str, body: Any, params: Any) -> dict[str, Any]:
        self.document(name.rsplit("/chunks/", 1)[0])
        if name not in self.chunks:
            raise ApiError(404, f"Chunk {name} not found.")
        return self.chunks[name]

    def _delete_chunk(self, name: str, body: Any, params: Any) -> dict[str, Any]:
        self._get_chunk(name, body, params)
        del self.chunks[name]
        return {}

    def _batch_delete_chunks(
        self, parent: str, body: dict[str, Any], params: Any
    ) -> dict[str, Any]:
        self.document(parent)
        names = [r.get("name", "") for r in body.get("requests") or []]
        require(0 < len(names) <= 100, f"batchDelete takes 1 to 100 requests, got {len(names)}")
        for name in names:
            require(name.startswith(parent + "/chunks/"), f"Chunk {name} is not in {parent}")
            if name not in self.chunks:
                raise ApiError(404, f"Chunk {name} not found.")
        for name in names:
            del self.chunks[name]
        return {}

    # -- queries ------------------------------------------------------------------------------
    def _query_corpus(self, name: str, body: dict[str, Any], params: Any) -> dict[str, Any]:
        self.corpus(name)
        return self.rank(
            name + "/",
            body.get("query", ""),
            body.get("metadataFilters", []),
            body.get("resultsCount"),
        )

    def _query_document(self, name: str, body: dict[str, Any], params: Any) -> dict[str, Any]:
        self.document(name)
        return self.rank(
            name + "/",
            body.get("query", ""),
            body.get("metadataFilters", []),
            body.get("resultsCount"),
        )

    def rank(
        self,
        prefix: str,
        query: str,
        filters: list[dict[str, Any]],
        count: int | None,
        minimum: float = 0.0,
    ) -> dict[str, Any]:
        require(bool(query.strip()), "* query: must not be empty")
        count = int(count or 10)
        require(0 < count <= 100, "resultsCount must be between 1 and 100")
        scored = []
        for name, chunk in self.chunks.items():
            if name.startswith(prefix) and self._matches(chunk, filters):
                score = overlap(query, chunk["data"]["stringValue"])
                if score >= minimum:
                    scored.append((score, chunk))
        scored.sort(key=lambda pair: -pair[0])
        return {
            "relevantChunks": [{"chunkRelevanceScore": s, "chunk": c} for s, c in scored[:count]]
        }

    def _matches(self, chunk: dict[str, Any], filters: list[dict[str, Any]]) -> bool:
        document = self.documents.get(chunk["name"].rsplit("/chunks/", 1)[0], {})
        for flt in filters:
            key = str(flt.get("key", ""))
            scope, _, field = key.partition(".custom_metadata.")
            require(
                scope in ("chunk", "document") and bool(field),
                f"Invalid metadata filter key {key!r}: use chunk.custom_metadata.<key> or "
                "document.custom_metadata.<key>",
            )
            entries = (chunk if scope == "chunk" else document).get("customMetadata", [])
            entry = next((e for e in entries if e.get("key") == field), None)
            if not any(_condition(entry, c) for c in flt.get("conditions", [])):
                return False
        return True


def _condition(entry: dict[str, Any] | None, condition: dict[str, Any]) -> bool:
    operation = OPERATORS.get(enum(condition.get("operation", 0), OPERATORS), "")
    require(bool(operation), "A metadata condition needs an operation")
    if entry is None:
        return False
    if "numericValue" in condition:
        require(operation not in ("INCLUDES", "EXCLUDES"), "INCLUDES/EXCLUDES take a string value")
        if "numericValue" not in entry:
            return False
        a, b = float(entry["numericValue"]), float(condition["numericValue"])
        return {
            "LESS": a < b,
            "LESS_EQUAL": a <= b,
            "EQUAL": a == b,
            "GREATER_EQUAL": a >= b,
            "GREATER": a > b,
            "NOT_EQUAL": a != b,
        }[operation]
    value = condition.get("stringValue", "")
    if "stringListValue" in entry:
        values = entry["stringListValue"].get("values", [])
        require(
            operation in ("INCLUDES", "EXCLUDES"),
            "string lists are filtered with INCLUDES or EXCLUDES",
        )
        return (value in values) == (operation == "INCLUDES")
    require(operation in ("EQUAL", "NOT_EQUAL"), f"{operation} needs a numeric value")
    if "stringValue" not in entry:
        return False
    return (entry["stringValue"] == value) == (operation == "EQUAL")
