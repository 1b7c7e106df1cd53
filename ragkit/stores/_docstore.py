"""The documents of a FaissStore, kept column-wise in vector order.

Row ``i`` of the columns belongs to vector ``i`` of the FAISS index. Keeping
plain lists (not one ``Document`` object per row) makes adding 100k chunks
cheap; ``Document`` objects are made only for the results a search returns.

Example:
    >>> cols = DocColumns()
    >>> cols.validate_new(["a", "b"], None, ["id1", "id2"])
    >>> cols.extend(["id1", "id2"], ["a", "b"], None)
    >>> cols.document(1).page_content, cols.position["id2"]
    ('b', 1)
    >>> view = DocumentsView(cols)
    >>> cols.extend(["id3"], ["c"], None)
    >>> len(view), [d.id for d in view]
    (2, ['id1', 'id2'])
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any, cast, overload

import numpy as np

from ragkit.documents import Document
from ragkit.errors import IndexCorruptedError, StoreInputError


class DocColumns:
    """ids, texts and metadata in vector order, plus an id -> position map."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.texts: list[str] = []
        self.metadatas: list[dict[str, Any] | None] = []
        self._position: dict[str, int] | None = {}

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def position(self) -> dict[str, int]:
        """id -> row (built on first use: bulk loads of fresh ids do not pay for it)."""
        if self._position is None:
            self._position = {x: i for i, x in enumerate(self.ids)}
        return self._position

    # -- validation (before anything is embedded or added) -----------------------
    def validate_new(
        self, texts: Sequence[str], metadatas: Sequence[Any] | None, ids: Sequence[Any] | None
    ) -> None:
        """StoreInputError (a ValueError) naming the row at fault if texts/metadatas/ids are unusable or ids collide."""
        n = len(texts)
        if not set(map(type, texts)) <= {str}:  # fast path first; the slow one names the rows
            bad_texts = [i for i, t in enumerate(texts) if not isinstance(t, str)]
            if bad_texts:
                raise StoreInputError(
                    f"texts must be str; rows {bad_texts[:10]} are "
                    f"{sorted({type(texts[i]).__name__ for i in bad_texts})}"
                )
        if metadatas is not None:
            if len(metadatas) != n:
                raise StoreInputError(
                    f"got {len(metadatas)} metadatas for {n} texts; pass one dict per text"
                )
            if not set(map(type, metadatas)) <= {dict, type(None)}:
                bad = [
                    i for i, m in enumerate(metadatas) if m is not None and not isinstance(m, dict)
                ]
                if bad:
                    raise StoreInputError(f"metadatas must be dicts; rows {bad[:10]} are not")
        if ids is None:
            return
        if len(ids) != n:
            raise StoreInputError(f"got {len(ids)} ids for {n} texts; pass one id per text")
        bad = [i for i, x in enumerate(ids) if not isinstance(x, str) or not x]
        if bad:
            raise StoreInputError(f"ids must be non-empty str; rows {bad[:10]} are not")
        if len(set(ids)) != n:
            counts: dict[str, int] = {}
            for x in ids:
                counts[x] = counts.get(x, 0) + 1
            dupes = sorted(x for x, c in counts.items() if c > 1)
            raise StoreInputError(f"duplicate ids in one call: {dupes[:10]}; ids must be unique")
        taken = [x for x in ids if x in self.position]
        if taken:
            raise StoreInputError(
                f"ids already in the store: {taken[:10]}; delete them first to replace them"
            )

    # -- mutation ---------------------------------------------------------------
    def extend(
        self, ids: list[str], texts: list[str], metadatas: Sequence[dict[str, Any] | None] | None
    ) -> None:
        """Append rows; metadata dicts are copied (later changes by the caller do not leak in)."""
        start = len(self.ids)
        self.ids.extend(ids)
        self.texts.extend(texts)
        if metadatas is None:
            self.metadatas.extend([None] * len(ids))
        elif set(map(type, metadatas)) == {dict}:
            self.metadatas.extend(map(dict.copy, cast("Sequence[dict[str, Any]]", metadatas)))
        else:
            self.metadatas.extend([dict(m) if m else None for m in metadatas])
        if self._position is not None:
            if start == 0:
                self._position = None  # a bulk load: build the map only if someone asks
            else:
                self._position.update(zip(ids, range(start, start + len(ids))))

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the rows where ``mask`` is True (order preserved)."""
        rows = np.flatnonzero(mask).tolist()
        self.ids = [self.ids[i] for i in rows]
        self.texts = [self.texts[i] for i in rows]
        self.metadatas = [self.metadatas[i] for i in rows]
        self._position = None

    # -- reading ----------------------------------------------------------------
    def metadata_view(self, pos: int) -> dict[str, Any]:
        """The stored metadata (not a copy) for filters; an empty dict when there is none."""
        return self.metadatas[pos] or {}

    def document(self, pos: int) -> Document:
        meta = self.metadatas[pos]
        return Document._trusted(self.texts[pos], meta.copy() if meta else {}, self.ids[pos])

    # -- serialisation (see ragkit.stores.faiss.persist) -------------------------------
    def to_json_obj(self) -> dict[str, Any]:
        return {"ids": self.ids, "texts": self.texts, "metadatas": self.metadatas}

    @classmethod
    def from_json_obj(cls, obj: Any, count: int, source: str) -> DocColumns:
        """Rebuild from parsed JSON, checking every column (raises IndexCorruptedError naming ``source``)."""
        if not isinstance(obj, dict):
            raise IndexCorruptedError(
                f"{source}: expected a JSON object with ids, texts, metadatas"
            )
        cols = cls()
        ids, texts, metas = obj.get("ids"), obj.get("texts"), obj.get("metadatas")
        for name, column in (("ids", ids), ("texts", texts), ("metadatas", metas)):
            if not isinstance(column, list) or len(column) != count:
                got = len(column) if isinstance(column, list) else type(column).__name__
                raise IndexCorruptedError(
                    f"{source}: '{name}' must be a list of {count} entries, got {got}"
                )
        assert isinstance(ids, list) and isinstance(texts, list) and isinstance(metas, list)
        if not all(isinstance(x, str) and x for x in ids) or len(set(ids)) != count:
            raise IndexCorruptedError(f"{source}: 'ids' must be unique non-empty strings")
        if not all(isinstance(t, str) for t in texts):
            raise IndexCorruptedError(f"{source}: 'texts' must be strings")
        if not all(m is None or isinstance(m, dict) for m in metas):
            raise IndexCorruptedError(f"{source}: 'metadatas' must be objects or null")
        cols.ids, cols.texts, cols.metadatas = ids, texts, metas
        cols._position = None
        return cols


class DocumentsView(Sequence[Document]):
    """The rows of a :class:`DocColumns` as they are now, as Documents made on access.

    Nothing is copied up front (a store of 100k chunks stays one store in memory), and later
    changes do not show through: adding appends past this view's length, deleting replaces
    the columns. Each Document gets its own copy of the metadata, as ``get_by_ids`` does.
    """

    def __init__(self, cols: DocColumns) -> None:
        self._ids, self._texts, self._metadatas = cols.ids, cols.texts, cols.metadatas
        self._len = len(cols.ids)

    def __len__(self) -> int:
        return self._len

    def _make(self, pos: int) -> Document:
        meta = self._metadatas[pos]
        return Document._trusted(self._texts[pos], meta.copy() if meta else {}, self._ids[pos])

    @overload
    def __getitem__(self, index: int) -> Document: ...
    @overload
    def __getitem__(self, index: slice) -> list[Document]: ...
    def __getitem__(self, index: int | slice) -> Document | list[Document]:
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(self._len))]
        pos = index + self._len if index < 0 else index
        if not 0 <= pos < self._len:
            raise IndexError(f"document {index} out of range (the view holds {self._len})")
        return self._make(pos)

    def __iter__(self) -> Iterator[Document]:
        return map(self._make, range(self._len))


def new_ids(count: int) -> list[str]:
    """``count`` random UUID4s as 32-digit hex (``uuid4().hex`` form), made in one urandom call."""
    raw = np.frombuffer(os.urandom(16 * count), dtype=np.uint8).reshape(count, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # version 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # RFC 4122 variant
    if count == 0:
        return []
    return raw.tobytes().hex(" ", -16).split(" ")  # one 32-digit group per id, split in C


def ids_to_delete(ids: Sequence[str] | None) -> list[str]:
    """The distinct ``ids`` of a ``delete`` call, in order (StoreInputError for None).

    Example:
        >>> ids_to_delete(["a", "b", "a"])
        ['a', 'b']
    """
    if ids is None:
        raise StoreInputError("delete() needs the ids to delete")
    return list(dict.fromkeys(ids))
