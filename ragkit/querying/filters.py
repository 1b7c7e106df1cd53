"""The one filter language of every query path: ``ragkit query``, ``ragkit serve``, ``Index``.

A filter is a dict in the language of :mod:`ragkit.stores.filters` (``$eq $ne $gt $gte $lt
$lte $in $nin`` on a key, ``$and $or $not`` over sub-filters); a plain ``{"key": value}``
means equality. :func:`check_filter` compiles one and raises
:class:`~ragkit.errors.InvalidQueryError` naming the key or operator at fault, with the same
message whichever way the filter came in (a ``--filter`` option or a ``"filter"`` field).

Example:
    >>> keep = check_filter({"year": {"$gte": 2020}, "lang": "en"})
    >>> keep({"year": 2021, "lang": "en"}), keep({"year": 2019, "lang": "en"})
    (True, False)
    >>> sorted(filter_keys({"source": "a.md", "$or": [{"page": 1}, {"lang": {"$in": ["en"]}}]}))
    ['lang', 'page', 'source']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ragkit.stores.filters import MetadataFilter, Predicate, compile_filter

#: Shows a result's metadata as the caller sees it (``ragkit serve``: paths made relative).
MetadataView = Callable[[dict[str, Any]], dict[str, Any]]


def check_filter(flt: MetadataFilter) -> Predicate:
    """``flt`` compiled to a predicate over metadata, or an ``InvalidQueryError`` saying why not."""
    return compile_filter(flt)


def filter_keys(flt: Any) -> Iterator[str]:
    """The metadata keys a filter dict names (operators skipped)."""
    if isinstance(flt, Mapping):
        for key, value in flt.items():
            if key in ("$and", "$or") and isinstance(value, (list, tuple)):
                for part in value:
                    yield from filter_keys(part)
            elif key == "$not":
                yield from filter_keys(value)
            elif not key.startswith("$"):
                yield key


def viewed(keep: Predicate, view: MetadataView | None) -> Predicate:
    """``keep`` applied to the metadata as ``view`` shows it (``keep`` itself without a view)."""
    if view is None:
        return keep
    return lambda metadata: keep(view(metadata))
