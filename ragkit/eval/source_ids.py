"""match_sources: map the document ids of a judgements file to the sources of an index.

An index built with ``ragkit index`` knows its documents by their source path
(``metadata["source"]``, the absolute file path). A qrels file names documents
by id. A judged id ``ID`` matches a source when, comparing with ``/`` as the
separator, the source

1. is ``ID``, or ends with ``/ID`` (``guides/brakes.md`` matches
   ``/home/me/docs/guides/brakes.md``), or
2. is that with its file extension dropped (``bc02`` matches ``.../docs/bc02.md``;
   ``guides/brakes`` matches ``.../guides/brakes.md``).

So the simplest qrels use the file name without its extension, and a longer
relative path tells apart files of the same name in different folders. An id
that matches several sources is an error naming them (use a longer path); an id
that matches none is reported and counts as a relevant document the index does
not hold (it lowers recall, as it should).

Example:
    >>> m = match_sources(["bc02", "guides/brakes.md", "gone"],
    ...                   ["/d/bc02.md", "/d/guides/brakes.md", "/d/notes.txt"])
    >>> m.ids == {"/d/bc02.md": "bc02", "/d/guides/brakes.md": "guides/brakes.md"}, m.unmatched
    (True, ['gone'])
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragkit.errors import DatasetError


@dataclass
class SourceMatch:
    """The result of :func:`match_sources`."""

    ids: dict[str, str] = field(default_factory=dict)
    """source → judged document id, for every source some id matched."""
    unmatched: list[str] = field(default_factory=list)
    """Judged ids that match no source of the index."""

    def doc_id(self, source: str) -> str:
        """The judged id of ``source``, or the source itself when no id names it."""
        return self.ids.get(source, source)


def _norm(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _keys(source: str) -> list[str]:
    """Every id that would name ``source``: each trailing part of its path, with and without extension."""
    parts = _norm(source).strip("/").split("/")
    out: list[str] = []
    for i in range(len(parts)):
        tail = "/".join(parts[i:])
        out.append(tail)
        stem, ext = posixpath.splitext(tail)
        if ext and stem and not stem.endswith("/"):
            out.append(stem)
    if source.startswith("/"):
        out.append(_norm(source))
    return out


def match_sources(doc_ids: Iterable[str], sources: Iterable[str]) -> SourceMatch:
    """Map judged ``doc_ids`` to ``sources`` by path suffix (see the module docstring)."""
    by_key: dict[str, list[str]] = {}
    for source in sources:
        for key in dict.fromkeys(_keys(source)):
            by_key.setdefault(key, []).append(source)
    result = SourceMatch()
    claimed: dict[str, str] = {}
    for doc_id in dict.fromkeys(doc_ids):
        found = by_key.get(_norm(doc_id).rstrip("/"), [])
        if not found:
            result.unmatched.append(doc_id)
            continue
        if len(found) > 1:
            shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
            raise DatasetError(
                f"judged document id {doc_id!r} matches {len(found)} sources of the index ({shown}); "
                "write a longer part of the path in the qrels file so it names one file"
            )
        source = found[0]
        if source in claimed:
            raise DatasetError(
                f"judged document ids {claimed[source]!r} and {doc_id!r} both name {source}; "
                "use one id per file in the qrels file"
            )
        claimed[source] = doc_id
        result.ids[source] = doc_id
    return result
