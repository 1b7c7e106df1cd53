"""InMemoryRecordManager: the record manager ``index()`` uses, kept in a dict (LangChain's).

For tests and notebooks: nothing is written to disk and everything is gone with the object.
Times never go backwards (each ``get_time`` is after the previous one), so a ``full``
clean-up straight after an update cannot drop what that update wrote.

Example:
    >>> rm = InMemoryRecordManager("docs")
    >>> rm.create_schema()
    >>> rm.update(["a", "b"], group_ids=["x.txt", None])
    >>> rm.exists(["a", "c"]), rm.list_keys(group_ids=["x.txt"])
    ([True, False], ['a'])
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ragkit.indexing.records import KeyQuery, RecordManagerBase

_TICK = 1e-6
T = TypeVar("T")


class InMemoryRecordManager(RecordManagerBase):
    """Keys with their group (source) and update time, in memory, under ``namespace``."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.records: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._last = 0.0

    def create_schema(self) -> None:
        """Nothing to create (LangChain's interface)."""

    async def _twin(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        return fn(*args, **kwargs)  # a dict under a lock: nothing blocks, no worker thread

    async def acreate_schema(self) -> None:
        """Nothing to create."""

    def get_time(self) -> float:
        with self._lock:
            self._last = max(time.time(), self._last + _TICK)
            return self._last

    def _upsert(self, keys: Sequence[str], group_ids: Sequence[str | None], now: float) -> None:
        with self._lock:
            for key, group in zip(keys, group_ids):
                self.records[key] = {"group_id": group, "updated_at": now}

    def exists(self, keys: Sequence[str]) -> list[bool]:
        with self._lock:
            return [key in self.records for key in keys]

    def _keys(self, query: KeyQuery) -> list[str]:
        before, after, limit = query.before, query.after, query.limit
        wanted = set(query.group_ids) if query.group_ids is not None else None
        found = []
        with self._lock:
            for key, record in self.records.items():
                if before is not None and record["updated_at"] >= before:
                    continue
                if after is not None and record["updated_at"] <= after:
                    continue
                if wanted is not None and record["group_id"] not in wanted:
                    continue
                found.append(key)
                if limit is not None and len(found) >= limit:
                    break
        return found

    def delete_keys(self, keys: Sequence[str]) -> None:
        with self._lock:
            for key in keys:
                self.records.pop(key, None)
