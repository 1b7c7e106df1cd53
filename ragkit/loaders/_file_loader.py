"""FileLoader: the base of a loader that reads one file, bounded in size.

It holds ``file_path`` and ``max_file_size`` (the largest file read, in bytes; None: no
limit), so a loader of one format writes only its own arguments and :meth:`lazy_load`.

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

from ragkit.loaders._files import DEFAULT_MAX_FILE_SIZE
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
