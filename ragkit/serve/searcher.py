"""Searching a served index: one loaded snapshot (a *generation*) and the request rules.

A :class:`Generation` holds what one snapshot of the index needs to answer
queries: its :class:`~ragkit.querying.QueryService` (retrievers built and warmed
up before the first request), the metadata keys filters may name, and how source
paths are shown. Requests read the current generation once, so each is answered
from one consistent snapshot even while a newer one is loaded next to it.

The rules for a request (shared by ``/query`` and ``/ask``): the retriever must be
one this server has; ``1 <= k <= max_k``; the query is non-blank and at most
``max_query_length`` characters; a filter names only known metadata keys. The
search itself is the query service's (the one ``ragkit query`` runs), with
filters matched against the metadata as results show it (paths relative to the
indexed folders).

Example:
    >>> query_terms("How do I true a wheel?")
    ['how', 'true', 'wheel']
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from ragkit.documents import Document
from ragkit.errors import InvalidQueryError, RequestError
from ragkit.querying.catalogue import BASIC
from ragkit.querying.filters import check_filter, filter_keys
from ragkit.querying.service import Query, QueryService
from ragkit.serve.paths import SourcePaths, infer_roots
from ragkit.serve.settings import ServeSettings

#: A checked request's search (``check_search`` makes one, the query service runs it).
Search = Query
_WORD = re.compile(r"\w+")


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
    """The query service and facts of one loaded snapshot."""

    snapshot: str | None
    service: QueryService
    paths: SourcePaths
    metadata_keys: frozenset[str]
    info: dict[str, Any]
    loaded_at: float = field(default_factory=time.time)
    scales: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What each retriever's scores mean, as JSON (made once per retriever)."""

    @property
    def empty(self) -> bool:
        return self.service.empty

    @property
    def retrievers(self) -> tuple[str, ...]:
        """The retriever kinds this snapshot answers (none for an empty index)."""
        return () if self.empty else self.service.kinds


def build_generation(index: Any, roots: tuple[str, ...] = (), llm: Any = None) -> Generation:
    """Load the index's current snapshot: query service (warmed up), keys, paths, facts."""
    info = dict(index.info())
    store = index.vectorstore
    paths = SourcePaths(roots or infer_roots(index.sources()))
    service = QueryService(index, llm=llm, view=paths.clean)
    service.warm_up()  # the retrievers, the model and the BM25 arrays now, not in a request
    keys: set[str] = set()
    listed = getattr(index, "metadata_keys", None)
    if callable(listed):  # a PostgreSQL index lists them without sending every chunk here
        keys.update(listed())
    elif not service.empty:
        for doc in store.get_by_ids(store.ids):
            keys.update(paths.clean(doc.metadata))
    keys.discard("score")
    return Generation(
        snapshot=info.get("snapshot"),
        service=service,
        paths=paths,
        metadata_keys=frozenset(keys),
        info=info,
    )


@dataclass(frozen=True)
class SearchAsk:
    """A request's search fields as sent (None: the server's default); ``query_field`` names
    the JSON field the query came in, for error messages."""

    query: str
    retriever: str | None = None
    k: int | None = None
    filter: dict[str, Any] | None = None
    dedupe: bool | float | None = None
    query_field: str = "query"


def check_search(
    gen: Generation, settings: ServeSettings, ask: SearchAsk, defaults: dict[str, Any]
) -> Search:
    """The request's search, or a 422 RequestError naming the field at fault."""
    from ragkit.retrievers.near_duplicates import dedupe_threshold

    query, retriever, k, flt = ask.query, ask.retriever, ask.k, ask.filter
    dedupe, query_field = ask.dedupe, ask.query_field

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
        try:  # first: compiling checks the depth before anything walks the filter
            check_filter(flt)
        except InvalidQueryError as err:  # the message ragkit query --filter gives
            raise RequestError(str(err), status_code=422, field="filter") from None
        unknown = sorted({key for key in filter_keys(flt) if key not in gen.metadata_keys})
        if unknown:
            raise RequestError(
                f"filter names unknown metadata keys {unknown}; this index has: "
                f"{', '.join(sorted(gen.metadata_keys)) or 'none'}",
                status_code=422,
                code="unknown_filter_key",
                field="filter",
            )
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
    return await gen.service.asearch(search)


def scale_of(gen: Generation, retriever: str) -> dict[str, Any]:
    """What ``retriever``'s scores mean, as JSON (made once per retriever and generation)."""
    scale = gen.scales.get(retriever)
    if scale is None:
        scale = gen.scales[retriever] = gen.service.score_kind(retriever).to_dict()
    return scale


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
