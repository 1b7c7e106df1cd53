"""TextLoader: one Document per text file, whatever its encoding.

UTF-8 first; with ``autodetect_encoding=True`` (the default) also UTF-8/16/32
byte-order marks, BOM-less UTF-16, then cp1252 and latin-1, instead of
crashing. Binary files are refused with a clear error.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "note.txt")
    >>> _ = open(path, "wb").write("caf\\u00e9".encode("utf-16"))
    >>> doc = TextLoader(path).load()[0]
    >>> doc.page_content, doc.metadata == {"source": path}
    ('café', True)
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.loaders._decode import read_and_decode, universal_newlines
from ragkit.loaders._file_loader import FileLoader


def read_text(
    path: str | os.PathLike[str],
    encoding: str | None = None,
    autodetect_encoding: bool = True,
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> str:
    """The text of a file, decoded as :class:`TextLoader` does, newlines as in Python's text mode."""
    text, _ = read_and_decode(path, encoding, autodetect_encoding, max_file_size)
    return universal_newlines(text)


class TextLoader(FileLoader):
    """Load a text file as one Document with ``metadata={"source": path}``."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        encoding: str | None = None,
        autodetect_encoding: bool = True,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        self.encoding = encoding
        self.autodetect_encoding = autodetect_encoding

    def read_text(self) -> str:
        """The decoded text of the file (raises a LoaderError naming the file on failure)."""
        return read_text(
            self.file_path, self.encoding, self.autodetect_encoding, self.max_file_size
        )

    def lazy_load(self) -> Iterator[Document]:
        yield Document(self.read_text(), metadata={"source": str(self.file_path)})
