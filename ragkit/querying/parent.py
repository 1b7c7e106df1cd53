"""SourceParentRetriever: search chunks, return the documents they came from.

The "parent" retriever of an index directory. Chunks are matched by similarity;
each hit is mapped to its parent (same ``source`` and, where present, the same
``page``/``row``/``seq_num``), and the parent's text is rebuilt from all of its
chunks in the store using their ``start_index`` (overlaps merged), so no second
copy of the documents is kept on disk. Parents come back in the rank order of
their best chunk.

Example:
    >>> # Index.open("my-index").retriever("parent", k=2).invoke("warranty terms")
"""

from __future__ import annotations

from typing import Any

from ragkit.documents import Document
from ragkit.retrievers.base import BaseRetriever

_PART_KEYS = ("page", "row", "seq_num")


def parent_key(doc: Document) -> tuple[str, ...]:
    meta = doc.metadata
    return (str(meta.get("source", "")), *(str(meta.get(k, "")) for k in _PART_KEYS))


def merge_chunks(chunks: list[Document]) -> str:
    """Rebuild a text from its chunks (ordered by ``start_index``; overlaps merged)."""
    if not all(isinstance(c.metadata.get("start_index"), int) for c in chunks):
        return "\n".join(c.page_content for c in chunks)
    text = ""
    for chunk in sorted(chunks, key=lambda c: c.metadata["start_index"]):
        start, content = chunk.metadata["start_index"], chunk.page_content
        if start + len(content) > len(text):
            text = text[:start].ljust(start) + content
    return text


class SourceParentRetriever(BaseRetriever):
    """Returns up to ``k`` parent documents for the best ``fetch_k`` chunk matches
    (``fetch_k`` defaults to ``max(20, 5 * k)`` for the ``k`` of each call)."""

    def __init__(self, vectorstore: Any, k: int = 4, fetch_k: int | None = None) -> None:
        from ragkit.stores.search_args import check_k

        self.vectorstore = vectorstore
        self.k = check_k(k)
        self.fetch_k = check_k(fetch_k, "fetch_k") if fetch_k is not None else None
        self._parents: dict[tuple[str, ...], list[Document]] | None = None
        self.tags = None
        self.metadata = None
        self.name = None

    def _children(self) -> dict[tuple[str, ...], list[Document]]:
        if self._parents is None:
            groups: dict[tuple[str, ...], list[Document]] = {}
            for doc in self.vectorstore.get_by_ids(self.vectorstore.ids):
                groups.setdefault(parent_key(doc), []).append(doc)
            self._parents = groups
        return self._parents

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        from ragkit.stores.search_args import check_k

        k = check_k(kwargs.get("k", self.k))
        if k == 0:
            return []
        fetch_k = self.fetch_k if self.fetch_k is not None else max(20, 5 * k)
        hits = self.vectorstore.similarity_search_with_score(query, k=fetch_k)
        out: list[Document] = []
        seen: set[tuple[str, ...]] = set()
        children = self._children()
        for doc, score in hits:
            key = parent_key(doc)
            if key in seen:
                continue
            seen.add(key)
            parts = children.get(key, [doc])
            meta = {m: v for m, v in doc.metadata.items() if m != "start_index"}
            out.append(Document(merge_chunks(parts), metadata={**meta, "score": float(score)}))
            if len(out) >= k:
                break
        return out
