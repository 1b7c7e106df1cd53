"""The record manager's loop, once: LangChain's ``RecordManager`` API over a small backend.

:class:`RecordLoop` checks the arguments, stamps times that never go backwards, builds the
``upsertion_record`` queries and runs them over the keys in parts; a backend says how to
read and write its database (:meth:`~RecordLoop._read`, :meth:`~RecordLoop._writing`,
:meth:`~RecordLoop._upsert`), how to read its clock (:meth:`~RecordLoop._clock`) and how a
list of values is written in SQL (:meth:`~RecordLoop._in`, :attr:`~RecordLoop.PART`).
Two backends: :class:`~ragkit.indexing.record_manager.SQLRecordManager` (SQLite) and
:class:`~ragkit.indexing.postgres.record_manager.PGRecordManager` (PostgreSQL). The surface
``index()`` needs is :class:`RecordManager`; :class:`RecordManagerBase` writes ``update`` and
``list_keys`` once for every record manager (the in-memory one too), with their async twins.

Example:
    >>> from ragkit.indexing import SQLRecordManager
    >>> rm = SQLRecordManager("demo", db_url="sqlite:///:memory:")
    >>> rm.create_schema()
    >>> rm.update(["k1", "k2", "k3"], group_ids=["a.txt", "a.txt", "b.txt"])
    >>> rm.count_by_group(["a.txt"]), rm.list_groups()
    (2, ['a.txt', 'b.txt'])
"""

from __future__ import annotations

import contextlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ragkit.core.base import run_in_executor
from ragkit.errors import IndexingError, InvalidInputError

_TICK = 1e-6
T = TypeVar("T")
Write = Callable[[str, Sequence[Any]], None]


def one_group_per_key(
    keys: Sequence[str], group_ids: Sequence[str | None] | None
) -> Sequence[str | None]:
    """The ``group_ids`` of an ``update(keys, group_ids=...)`` call: one per key (all ``None``
    when not given), else :class:`~ragkit.errors.InvalidInputError`.

    Example:
        >>> one_group_per_key(["k1", "k2"], None)
        [None, None]
        >>> one_group_per_key(["k1", "k2"], ["a.txt"])
        Traceback (most recent call last):
        ...
        ragkit.errors.InvalidInputError: update() got 2 keys but 1 group_ids; pass one per key
    """
    if group_ids is None:
        return [None] * len(keys)
    if len(group_ids) != len(keys):
        raise InvalidInputError(
            f"update() got {len(keys)} keys but {len(group_ids)} group_ids; pass one per key"
        )
    return group_ids


def check_text(values: Iterable[str | None], what: str) -> None:
    """Raise :class:`~ragkit.errors.InvalidInputError` naming the first value that is not valid Unicode.

    A file name that is not valid UTF-8 reaches Python with its bad bytes as lone surrogates
    (``'caf\\udce9.txt'``); SQLite and PostgreSQL store text as UTF-8 and cannot hold it.

    Example:
        >>> check_text(["a.txt", None], "source")
        >>> check_text(["caf\\udce9.txt"], "source")
        Traceback (most recent call last):
        ...
        ragkit.errors.InvalidInputError: the source 'caf\\udce9.txt' is not valid Unicode ...
    """
    for value in values:
        if not isinstance(value, str) or value.isascii():
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInputError(
                f"the {what} {value!r} is not valid Unicode (a file name that is not valid UTF-8 "
                "arrives with its bad bytes as lone surrogates, such as \\udce9), so it cannot be "
                "recorded; rename the file (e.g. with `convmv -f latin1 -t utf-8`) or give the "
                f"document a {what} that is valid text"
            ) from None


class RecordManager(Protocol):
    """The record-manager surface ``index()`` uses (``SQLRecordManager`` and LangChain's in-memory one fit)."""

    def get_time(self) -> float: ...
    def update(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None: ...
    def exists(self, keys: Sequence[str]) -> list[bool]: ...
    def list_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]: ...
    def delete_keys(self, keys: Sequence[str]) -> None: ...


@dataclass(frozen=True)
class KeyQuery:
    """What ``list_keys`` asks for: the keys updated strictly ``before``/``after`` a time, in
    ``group_ids`` (``None``: any group), at most ``limit``, oldest first."""

    before: float | None = None
    after: float | None = None
    group_ids: Sequence[str] | None = None
    limit: int | None = None


class RecordManagerBase:
    """``update`` and ``list_keys`` over a backend's :meth:`get_time`, :meth:`_check`,
    :meth:`_upsert` and :meth:`_keys`, and the ``a``-prefixed twins of the
    :class:`RecordManager` methods, each running its sync method through :meth:`_twin`: in
    the shared worker pool here; a record manager whose methods never block runs them inline."""

    # -- the backend ---------------------------------------------------------------------
    def get_time(self) -> float:
        """Seconds since the epoch, later than any earlier call."""
        raise NotImplementedError

    def _check(self, keys: Sequence[str], group_ids: Sequence[str | None]) -> None:
        """Refuse, before any write, keys or group ids the backend cannot store (here: none)."""

    def _upsert(self, keys: Sequence[str], group_ids: Sequence[str | None], now: float) -> None:
        """Insert or refresh ``keys`` with their ``group_ids`` at ``now``."""
        raise NotImplementedError

    def _keys(self, query: KeyQuery) -> list[str]:
        """The keys ``query`` asks for (see :class:`KeyQuery`)."""
        raise NotImplementedError

    # -- RecordManager API ---------------------------------------------------------------
    def update(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        """Insert or refresh ``keys`` (with their ``group_ids``) at the current time."""
        group_ids = one_group_per_key(keys, group_ids)
        if not keys:
            return
        self._check(keys, group_ids)
        self._upsert(keys, group_ids, self._update_time(time_at_least))

    def _update_time(self, time_at_least: float | None) -> float:
        """The time an ``update()`` stamps its keys with (never before ``time_at_least``)."""
        now = self.get_time()
        if time_at_least is not None and now < time_at_least:
            raise IndexingError(f"clock went backwards: now={now} < time_at_least={time_at_least}")
        return now

    def list_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        """Keys updated strictly ``before``/``after`` a time, in ``group_ids``, at most ``limit``."""
        return self._keys(KeyQuery(before, after, group_ids, limit))

    # -- the async twins -----------------------------------------------------------------
    async def _twin(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        return await run_in_executor(fn, *args, **kwargs)

    async def aget_time(self: Any) -> float:
        return await self._twin(self.get_time)

    async def aupdate(
        self: Any,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        await self._twin(self.update, keys, group_ids=group_ids, time_at_least=time_at_least)

    async def aexists(self: Any, keys: Sequence[str]) -> list[bool]:
        return await self._twin(self.exists, keys)

    async def alist_keys(
        self: Any,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        return await self._twin(
            self.list_keys, before=before, after=after, group_ids=group_ids, limit=limit
        )

    async def adelete_keys(self: Any, keys: Sequence[str]) -> None:
        await self._twin(self.delete_keys, keys)


class RecordLoop(RecordManagerBase, ABC):
    """Timestamped keys grouped by source id, in table ``upsertion_record`` (see the module doc).

    A backend sets ``namespace``, ``_records`` (the table, as SQL), ``_mutex`` and
    ``_last_time``, and implements the methods marked abstract.
    """

    #: The parameter placeholder of the backend's driver.
    MARK = "?"
    #: Values per statement (``None``: any number in one).
    PART: int | None = 500

    namespace: str
    _records: str
    _mutex: threading.RLock
    _last_time: float

    # -- the backend ---------------------------------------------------------------------
    @abstractmethod
    def _clock(self) -> tuple[float, float | None]:
        """The clock's time now, and the latest time stored in this namespace."""

    @abstractmethod
    def _read(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """The rows of one query."""

    @abstractmethod
    def _writing(self) -> contextlib.AbstractContextManager[Write]:
        """A function running write statements, all in one transaction when it can."""

    @abstractmethod
    def _upsert(self, keys: Sequence[str], group_ids: Sequence[str | None], now: float) -> None:
        """Insert or refresh ``keys`` with their ``group_ids`` at ``now``."""

    @abstractmethod
    def _in(self, values: Sequence[str]) -> tuple[str, list[Any]]:
        """``IN (...)`` (or its like) for ``values``, with its parameters."""

    # -- times ---------------------------------------------------------------------------
    def get_time(self) -> float:
        """Seconds since the epoch, strictly later than any earlier call and any stored record."""
        return self._later(*self._clock())

    def _later(self, clock: float, latest: float | None) -> float:
        """``clock``, or just after the ``latest`` stored time or this object's last time when
        either is later (so times never go backwards)."""
        with self._mutex:
            now = max(clock, (latest or 0.0) + _TICK, self._last_time + _TICK)
            self._last_time = now
            return now

    def _parts(self, values: Sequence[str]) -> Iterator[Sequence[str]]:
        size = self.PART or max(len(values), 1)
        for start in range(0, len(values), size):
            yield values[start : start + size]

    def _where(self, *conditions: str) -> str:
        return " AND ".join((f"namespace = {self.MARK}", *conditions))

    # -- RecordManager API ---------------------------------------------------------------
    def _check(self, keys: Sequence[str], group_ids: Sequence[str | None]) -> None:
        check_text(keys, "key")
        check_text(group_ids, "source")

    def exists(self, keys: Sequence[str]) -> list[bool]:
        """For each key, whether it is recorded."""
        check_text(keys, "key")
        found: set[str] = set()
        for part in self._parts(list(keys)):
            among, params = self._in(part)
            sql = f"SELECT key FROM {self._records} WHERE {self._where(f'key {among}')}"
            found.update(r[0] for r in self._read(sql, (self.namespace, *params)))
        return [k in found for k in keys]

    def _keys(self, query: KeyQuery) -> list[str]:
        where: list[str] = []
        params: list[Any] = [self.namespace]
        if query.before is not None:
            where.append(f"updated_at < {self.MARK}")
            params.append(query.before)
        if query.after is not None:
            where.append(f"updated_at > {self.MARK}")
            params.append(query.after)
        if query.group_ids is not None:
            groups = list(query.group_ids)
            if not groups:
                return []
            check_text(groups, "source")
            among, values = self._in(groups)
            where.append(f"group_id {among}")
            params.extend(values)
        sql = (
            f"SELECT key FROM {self._records} WHERE {self._where(*where)} ORDER BY updated_at, key"
        )
        if query.limit is not None:
            sql += f" LIMIT {self.MARK}"
            params.append(int(query.limit))
        return [r[0] for r in self._read(sql, params)]

    def delete_keys(self, keys: Sequence[str]) -> None:
        """Forget ``keys`` (unknown keys are ignored)."""
        check_text(keys, "key")
        with self._writing() as write:
            for part in self._parts(list(keys)):
                among, params = self._in(part)
                write(
                    f"DELETE FROM {self._records} WHERE {self._where(f'key {among}')}",
                    (self.namespace, *params),
                )

    # -- extras used by Index ------------------------------------------------------------
    def count(self) -> int:
        """How many keys are recorded in this namespace."""
        sql = f"SELECT COUNT(*) FROM {self._records} WHERE {self._where()}"
        return int(self._read(sql, (self.namespace,))[0][0])

    def list_groups(self, *, before: float | None = None) -> list[str]:
        """The distinct group ids (sources) recorded, optionally only those with keys updated ``before``."""
        where = ["group_id IS NOT NULL"]
        params: list[Any] = [self.namespace]
        if before is not None:
            where.append(f"updated_at < {self.MARK}")
            params.append(before)
        sql = f"SELECT DISTINCT group_id FROM {self._records} WHERE {self._where(*where)}"
        return [r[0] for r in self._read(sql + " ORDER BY group_id", params)]

    def count_by_group(self, group_ids: Sequence[str]) -> int:
        """How many keys belong to ``group_ids``."""
        check_text(group_ids, "source")
        total = 0
        for part in self._parts(list(group_ids)):
            among, params = self._in(part)
            sql = f"SELECT COUNT(*) FROM {self._records} WHERE {self._where(f'group_id {among}')}"
            total += int(self._read(sql, (self.namespace, *params))[0][0])
        return total

    def touch_groups(self, group_ids: Sequence[str]) -> None:
        """Refresh the time of every key in ``group_ids`` (as if they had been re-indexed unchanged)."""
        if not group_ids:
            return
        check_text(group_ids, "source")
        now = self.get_time()
        with self._writing() as write:
            for part in self._parts(list(group_ids)):
                among, params = self._in(part)
                write(
                    f"UPDATE {self._records} SET updated_at = {self.MARK} WHERE "
                    f"{self._where(f'group_id {among}')}",
                    (now, self.namespace, *params),
                )
