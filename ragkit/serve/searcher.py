"""Searching a served index: one loaded snapshot (a *generation*) and the query rules.

A :class:`Generation` holds what one snapshot of the index needs to answer
queries: its retrievers (loaded and warmed up before the first request), the
metadata keys filters may name, and how source paths are shown. Requests read
the current generation once, so each is answered from one consistent
snapshot even while a newer one is loaded next to it.

The rules for a query (shared by ``/query`` and ``/ask``): the retriever must be
one this server has; ``1 <= k <= max_k``; the query is non-blank and at most
``max_query_length`` characters; a filter names only known metadata keys and is
matched against the metadata as results show it, among the best ``k * 10``
candidates.

Example:
    >>> sorted(filter_keys({"source": "a.md", "$or": [{"page": 1}, {"lang": {"$in": ["en"]}}]}))
    ['lang', 'page', 'source']
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ragkit.documents import Document
from ragkit.errors import IndexingError, InvalidQueryError, RequestError
from ragkit.indexing.scores import score_kind
from ragkit.serve.paths import SourcePaths, infer_roots
from ragkit.serve.settings import ServeSettings

#: How many more candidates are fetched when results are filtered or de-duplicated afterwards.
FILTER_DEPTH = 10
DEDUPE_DEPTH = 3
BASIC = ("similarity", "mmr", "bm25", "hybrid", "parent")
_WORD = re.compile(r"\w+")


def filter_keys(flt: Any) -> Iterator[str]:
    """The metadata keys a LangChain-style filter dict names (operators skipped)."""
    if isinstance(flt, dict):
        for key, value in flt.items():
            if key in ("$and", "$or") and isinstance(value, list):
                for part in value:
                    yield from filter_keys(part)
            elif key == "$not":
                yield from filter_keys(value)
            elif not key.startswith("$"):
                yield key


def query_terms(text: str) -> list[str]:
    """The words worth highlighting (three letters or more, each once)."""
    return list(dict.fromkeys(w for w in _WORD.findall(text.lower()) if len(w) > 2))


def snippet(text: str, terms: list[str], width: int = 240) -> str:
    """The part of ``text`` around the first of ``terms`` it contains, on one line."""
    flat = " ".join(text.split())
    low = flat.lower()
    pos = min((low.find(t) for t in terms if t in low), default=0)
    start = max(0, pos - width // 3)
    out = flat[start : start + width]
    return ("…" if start else "") + out + ("…" if start + width < len(flat) else "")


@dataclass
class Generation:
    """The retrievers and facts of one loaded snapshot."""

    snapshot: str | None
    retrievers: dict[str, Any]
    paths: SourcePaths
    metadata_keys: frozenset[str]
    info: dict[str, Any]
    distance: str = "cosine"
    loaded_at: float = field(default_factory=time.time)

    @property
    def empty(self) -> bool:
        return not self.retrievers


def build_generation(index: Any, roots: tuple[str, ...] = (), llm: Any = None) -> Generation:
    """Load the index's current snapshot: retrievers (warmed up), keys, paths, facts."""
    info = dict(index.info())
    store = index.vectorstore
    retrievers: dict[str, Any] = {}
    if len(store) > 0:
        for kind in BASIC:
            retrievers[kind] = index.retriever(kind, k=4)
        if llm is not None:
            retrievers["multi-query"] = index.retriever("multi-query", k=4, llm=llm, fusion="rrf")
        for kind in ("bm25", "hybrid"):  # load the model and the BM25 arrays now, not in a request
            retrievers[kind].invoke("warm up", k=1)
    paths = SourcePaths(roots or infer_roots(index.sources()))
    keys: set[str] = set()
    listed = getattr(index, "metadata_keys", None)
    if callable(listed):  # a PostgreSQL index lists them without sending every chunk here
        keys.update(listed())
    elif len(store) > 0:
        for doc in store.get_by_ids(store.ids):
            keys.update(paths.clean(doc.metadata))
    keys.discard("score")
    return Generation(
        snapshot=info.get("snapshot"),
        retrievers=retrievers,
        paths=paths,
        metadata_keys=frozenset(keys),
        info=info,
        distance=str(getattr(store, "distance_strategy", "cosine")),
    )


@dataclass(frozen=True)
class Search:
    """One checked search request."""

    query: str
    retriever: str
    k: int
    filter: dict[str, Any] | None
    dedupe: float | None


def check_search(
    gen: Generation,
    settings: ServeSettings,
    query: str,
    retriever: str | None,
    k: int | None,
    flt: dict[str, Any] | None,
    dedupe: bool | float | None,
    defaults: dict[str, Any],
    query_field: str = "query",
) -> Search:
    """The request's search, or a 422 RequestError naming the field at fault."""
    from ragkit.retrievers.near_duplicates import dedupe_threshold
    from ragkit.stores.filters import compile_filter

    if not query.strip():
        raise RequestError(
            f"{query_field} is empty; send some text", status_code=422, field=query_field
        )
    if len(query) > settings.max_query_length:
        raise RequestError(
            f"{query_field} is {len(query):,} characters, over this server's limit of "
            f"{settings.max_query_length:,}",
            status_code=422,
            field=query_field,
        )
    kind = retriever or str(defaults.get("retriever", "hybrid"))
    available = sorted(gen.retrievers) if not gen.empty else [*BASIC]
    if kind not in available:
        hint = (
            " (multi-query needs a server started with a chat model)"
            if kind == "multi-query"
            else ""
        )
        raise RequestError(
            f"unknown retriever {kind!r}{hint}; this server has: {', '.join(available)}",
            status_code=422,
            code="unknown_retriever",
            field="retriever",
        )
    top = k if k is not None else int(defaults.get("k", 4))
    if top > settings.max_k:
        raise RequestError(
            f"k is {top}, over this server's limit of {settings.max_k}",
            status_code=422,
            field="k",
        )
    if flt is not None and not gen.empty:
        unknown = sorted({key for key in filter_keys(flt) if key not in gen.metadata_keys})
        if unknown:
            raise RequestError(
                f"filter names unknown metadata keys {unknown}; this index has: "
                f"{', '.join(sorted(gen.metadata_keys)) or 'none'}",
                status_code=422,
                code="unknown_filter_key",
                field="filter",
            )
        try:
            compile_filter(flt)
        except InvalidQueryError as err:
            raise RequestError(f"filter: {err}", status_code=422, field="filter") from None
    cut = None
    if dedupe is not None and dedupe is not False:
        try:
            cut = dedupe_threshold(dedupe)
        except ValueError as err:
            raise RequestError(f"dedupe: {err}", status_code=422, field="dedupe") from None
    return Search(query, kind, top, flt or None, cut)


async def run_search(gen: Generation, search: Search) -> list[Document]:
    """The best ``k`` documents (raw metadata) for a checked search; [] for an empty index."""
    if gen.empty:
        return []
    from ragkit.stores.filters import compile_filter

    depth = search.k * (DEDUPE_DEPTH if search.dedupe is not None else 1)
    if search.filter is not None:
        depth *= FILTER_DEPTH
    try:
        # BM25 answers inline (sub-millisecond); vector searches run in worker threads
        docs = await gen.retrievers[search.retriever].ainvoke(search.query, k=depth)
    except IndexingError:  # the snapshot holds no documents for this retriever
        return []
    if search.filter is not None:
        keep = compile_filter(search.filter)
        docs = [d for d in docs if keep(gen.paths.clean(d.metadata))]
    if search.dedupe is not None:
        from ragkit.retrievers.near_duplicates import NearDuplicateFilter

        docs = list(NearDuplicateFilter(search.dedupe, k=search.k).transform_documents(docs))
    return docs[: search.k]


_SCALES: dict[tuple[str, str], dict[str, Any]] = {}


def scale_of(gen: Generation, retriever: str) -> dict[str, Any]:
    """What ``retriever``'s scores mean, as JSON (made once per retriever and distance)."""
    key = (retriever, gen.distance)
    if key not in _SCALES:
        _SCALES[key] = score_kind(retriever, gen.distance).to_dict()
    return _SCALES[key]


def passage(gen: Generation, doc: Document, rank: int, terms: list[str]) -> dict[str, Any]:
    """One result as clients see it (paths relative to the indexed folders)."""
    meta = gen.paths.clean({k: v for k, v in doc.metadata.items() if k != "score"})
    score = doc.metadata.get("score")
    return {
        "rank": rank,
        "id": doc.id,
        "source": meta.get("source"),
        "score": float(score) if isinstance(score, (int, float)) else None,
        "snippet": snippet(doc.page_content, terms),
        "text": doc.page_content,
        "duplicates": list(meta.get("duplicates") or []),
        "metadata": meta,
    }
