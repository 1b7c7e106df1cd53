"""Small helpers shared by the retrievers: argument checks and scored copies of documents.

Example:
    >>> check_k(3, "k")
    3
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ragkit.documents import Document
from ragkit.errors import InvalidQueryError
from ragkit.stores.search_args import check_k, check_query

__all__ = [
    "check_k",
    "check_query",
    "doc_key",
    "reject_unknown",
    "with_score",
]


def reject_unknown(kwargs: dict[str, Any], owner: str, accepted: tuple[str, ...]) -> None:
    """Raise InvalidQueryError if ``kwargs`` holds options this retriever does not understand."""
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise InvalidQueryError(
            f"{owner} got unknown search option(s) {unknown}; it accepts {list(accepted) or 'none'}"
        )


def with_score(doc: Document, score: float, key: str = "score") -> Document:
    """A copy of ``doc`` with ``metadata[key] = score`` (the original is left alone).

    Equivalent to ``doc.model_copy(update={"metadata": {...}})``, several times cheaper:
    retrievers call it for every result.
    """
    if type(doc) is Document:
        return Document._trusted(doc.page_content, {**doc.metadata, key: float(score)}, doc.id)
    new = doc.__copy__()  # a subclass: pydantic's shallow copy keeps its extra fields
    new.__dict__["metadata"] = {**doc.metadata, key: float(score)}
    new.__pydantic_fields_set__.add("metadata")
    return new


def doc_key(doc: Document, id_key: str | None = None) -> Hashable:
    """Identity used for de-duplication: ``metadata[id_key]`` if given, else ``Document.id``, else the text."""
    if id_key is not None:
        if id_key not in doc.metadata:
            raise InvalidQueryError(
                f"id_key={id_key!r} is missing from the metadata of a result document "
                f"({doc.page_content[:40]!r}); set it on every document or use id_key=None"
            )
        value = doc.metadata[id_key]
        return ("meta", value if isinstance(value, Hashable) else repr(value))
    if doc.id is not None:
        return ("id", doc.id)
    return ("text", doc.page_content)
