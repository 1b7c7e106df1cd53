"""Key-value stores: the ``BaseStore`` interface and its in-memory implementations.

Names and methods follow LangChain's (``mget``, ``mset``, ``mdelete``,
``yield_keys`` and their async twins). ``InMemoryByteStore`` holds ``bytes``
(for :class:`~ragkit.embeddings.CacheBackedEmbeddings`); ``InMemoryStore``
holds any value (for example the parent documents of a
``ParentDocumentRetriever``). :class:`~ragkit.stores.LocalFileStore` is the
on-disk byte store.

Example:
    >>> store = InMemoryByteStore()
    >>> store.mset([("a", b"1"), ("b", b"2")])
    >>> store.mget(["a", "missing"])
    [b'1', None]
    >>> sorted(store.yield_keys(prefix="b"))
    ['b']
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Generic, TypeVar

from ragkit.core.base import run_in_executor
from ragkit.errors import InputTypeError

K = TypeVar("K")
V = TypeVar("V")


class BaseStore(ABC, Generic[K, V]):
    """A key-value store with batch operations; missing keys read as ``None``."""

    @abstractmethod
    def mget(self, keys: Sequence[K]) -> list[V | None]:
        """The values of ``keys`` in order (``None`` where a key is absent)."""

    @abstractmethod
    def mset(self, key_value_pairs: Sequence[tuple[K, V]]) -> None:
        """Set every ``(key, value)`` pair."""

    @abstractmethod
    def mdelete(self, keys: Sequence[K]) -> None:
        """Delete ``keys``; absent keys are ignored."""

    @abstractmethod
    def yield_keys(self, prefix: str | None = None) -> Iterator[K]:
        """Iterate over the keys (those starting with ``prefix`` when given)."""

    async def amget(self, keys: Sequence[K]) -> list[V | None]:
        return await run_in_executor(self.mget, keys)

    async def amset(self, key_value_pairs: Sequence[tuple[K, V]]) -> None:
        await run_in_executor(self.mset, key_value_pairs)

    async def amdelete(self, keys: Sequence[K]) -> None:
        await run_in_executor(self.mdelete, keys)

    async def ayield_keys(self, prefix: str | None = None) -> AsyncIterator[K]:
        keys = await run_in_executor(lambda: list(self.yield_keys(prefix=prefix)))
        for key in keys:
            yield key


#: A store of raw bytes (what :class:`~ragkit.embeddings.CacheBackedEmbeddings` needs).
ByteStore = BaseStore[str, bytes]


class InMemoryBaseStore(BaseStore[str, V], Generic[V]):
    """A dict-backed store; values are kept as given (not copied)."""

    def __init__(self) -> None:
        self.store: dict[str, V] = {}

    def mget(self, keys: Sequence[str]) -> list[V | None]:
        get = self.store.get
        return [get(key) for key in keys]

    def mset(self, key_value_pairs: Sequence[tuple[str, V]]) -> None:
        for key, value in key_value_pairs:
            self.store[key] = value

    def mdelete(self, keys: Sequence[str]) -> None:
        for key in keys:
            self.store.pop(key, None)

    def yield_keys(self, prefix: str | None = None) -> Iterator[str]:
        for key in list(self.store):
            if prefix is None or key.startswith(prefix):
                yield key

    async def amget(self, keys: Sequence[str]) -> list[V | None]:
        return self.mget(keys)

    async def amset(self, key_value_pairs: Sequence[tuple[str, V]]) -> None:
        self.mset(key_value_pairs)

    async def amdelete(self, keys: Sequence[str]) -> None:
        self.mdelete(keys)

    async def ayield_keys(self, prefix: str | None = None) -> AsyncIterator[str]:
        for key in self.yield_keys(prefix=prefix):
            yield key

    def __len__(self) -> int:
        return len(self.store)


class InMemoryStore(InMemoryBaseStore[Any]):
    """An in-memory store of any values (documents, dicts, ...).

    Example:
        >>> from ragkit.documents import Document
        >>> docs = InMemoryStore()
        >>> docs.mset([("parent-1", Document("full text"))])
        >>> docs.mget(["parent-1"])[0].page_content
        'full text'
    """


class InMemoryByteStore(InMemoryBaseStore[bytes]):
    """An in-memory store of ``bytes`` values; other value types raise InputTypeError (a ``TypeError``).

    Example:
        >>> s = InMemoryByteStore()
        >>> s.mset([("k", b"v")]); s.mget(["k"])
        [b'v']
    """

    def mset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        pairs = list(key_value_pairs)
        for key, value in pairs:
            if not isinstance(key, str):
                raise InputTypeError(
                    f"InMemoryByteStore keys must be str, got {type(key).__name__} for {key!r}"
                )
            if not isinstance(value, (bytes, bytearray, memoryview)):
                raise InputTypeError(
                    f"InMemoryByteStore values must be bytes, got {type(value).__name__} for key {key!r}"
                )
        for key, value in pairs:
            self.store[key] = bytes(value)
