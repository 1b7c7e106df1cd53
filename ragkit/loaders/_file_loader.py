"""FileLoader: the base of a loader that reads one file, bounded in size.

It holds ``file_path`` and ``max_file_size`` (the largest file read, in bytes; None: no
limit), so a loader of one format writes only its own arguments and :meth:`lazy_load`;
:meth:`FileLoader.reading` turns what a format library raises on a damaged file into a
:class:`~ragkit.errors.LoaderError` that names the file.

Example:
    >>> from collections.abc import Iterator
    >>> from ragkit.documents import Document
    >>> class SizeLoader(FileLoader):
    ...     def lazy_load(self) -> Iterator[Document]:
    ...         yield Document(str(self.max_file_size), metadata={"source": self.source})
    >>> doc = SizeLoader("a.bin", max_file_size=10).load()[0]
    >>> doc.page_content, doc.metadata
    ('10', {'source': 'a.bin'})
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.errors import LoaderError
from ragkit.loaders.base import BaseLoader


class FileLoader(BaseLoader):
    """Base of a one-file loader: ``FileLoader(file_path, *, max_file_size=...)``."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__()
        self.file_path = file_path
        self.max_file_size = max_file_size

    @property
    def source(self) -> str:
        """The file's path as the ``source`` metadata gives it."""
        return str(self.file_path)

    @contextmanager
    def reading(self, what: str) -> Iterator[None]:
        """Inside the block, an error of the format's library is a LoaderError naming the file
        (``"a.rtf is not a readable RTF file: ValueError: ..."``); a LoaderError passes as it is.

        Example:
            >>> class Broken(FileLoader):
            ...     def lazy_load(self):
            ...         with self.reading("Demo file"):
            ...             raise KeyError("word/document.xml")
            ...         yield
            >>> Broken("a.demo").load()
            Traceback (most recent call last):
            ...
            ragkit.errors.LoaderError: a.demo is not a readable Demo file: KeyError: 'word/document.xml'
        """
        try:
            yield
        except LoaderError:
            raise
        except Exception as e:  # the format libraries raise many kinds on damaged files
            name = os.fspath(self.file_path)
            raise LoaderError(
                f"{name} is not a readable {what}: {type(e).__name__}: {e}", name
            ) from e
