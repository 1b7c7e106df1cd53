"""BaseLoader: lazy loading of Documents, usable as a Runnable step.

A loader implements :meth:`BaseLoader.lazy_load` (a generator, so a large
source never sits in memory); ``load``, ``aload``, ``alazy_load`` and the
Runnable surface come from here. ``loader | splitter`` is a chain:
``.invoke(None)`` returns all chunks, ``.stream(None)`` yields them as the
files are read. Failures that do not stop the whole load (a bad file in a
directory, an unreadable PDF page) are collected on ``loader.errors``.

Example:
    >>> from ragkit.loaders import TextLoader
    >>> from ragkit.splitters import CharacterTextSplitter
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(path, "w").write("one two")
    >>> chain = TextLoader(path) | CharacterTextSplitter(separator=" ", chunk_size=3, chunk_overlap=0)
    >>> [d.page_content for d in chain.invoke(None)]
    ['one', 'two']
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

from ragkit.core.base import StreamingRunnable, iterate_in_executor, run_in_executor
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.loaders._held import release_held_data

logger = logging.getLogger("ragkit.loaders")


@dataclass(frozen=True)
class LoadFailure:
    """One source that could not be loaded: where, why, and the exception.

    The exception keeps its message, type, causes and traceback (lines and functions), but
    not what the failed read held: see :func:`~ragkit.loaders._held.release_held_data`.
    """

    path: str
    reason: str
    exception: BaseException | None = None

    def __post_init__(self) -> None:
        release_held_data(self.exception)


class BaseLoader(StreamingRunnable[Any, Any], ABC):
    """Base of every loader: ``lazy_load()`` yields Documents; failures go to ``errors``."""

    errors: list[LoadFailure]
    silent_errors: bool = False
    """Record failures on ``errors`` without also logging them."""

    def __init__(self) -> None:
        self.errors = []

    @abstractmethod
    def lazy_load(self) -> Iterator[Document]:
        """Yield the Documents one by one."""

    def load(self) -> list[Document]:
        """All Documents as a list."""
        return list(self.lazy_load())

    async def aload(self) -> list[Document]:
        """Async :meth:`load` (runs in a worker thread)."""
        return await run_in_executor(self.load)

    async def alazy_load(self) -> AsyncIterator[Document]:
        """Async :meth:`lazy_load`: each Document is read in a worker thread."""
        async for doc in iterate_in_executor(self.lazy_load()):
            yield doc

    def load_and_split(self, text_splitter: Any = None) -> list[Document]:
        """Load, then split with ``text_splitter`` (default: ``RecursiveCharacterTextSplitter()``)."""
        if text_splitter is None:
            from ragkit.splitters.recursive import RecursiveCharacterTextSplitter

            text_splitter = RecursiveCharacterTextSplitter()
        return list(text_splitter.lazy_split_documents(self.lazy_load()))

    def _record(
        self, path: str, reason: str, exception: BaseException | None = None, log: bool = True
    ) -> None:
        self.errors.append(LoadFailure(path, reason, exception))
        if log and not self.silent_errors:
            logger.warning("Could not load %s: %s", path, reason)

    # -- Runnable ------------------------------------------------------------------------
    def invoke(
        self, input: Any = None, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Load everything (the input is ignored: the loader knows its source)."""
        return self._call_with_config(
            lambda _value, _cfg: self.load(), input, config, run_type="chain"
        )

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        for _ in inputs:
            yield from self.lazy_load()

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        async for _ in inputs:
            async for doc in self.alazy_load():
                yield doc
                await asyncio.sleep(0)
