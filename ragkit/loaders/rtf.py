"""RTFLoader: the text of a Rich Text Format file (not its markup), with striprtf.

The file must start with ``{\\rtf``; the ``\\ansicpg`` code page it declares decodes
its ``\\'xx`` escapes (cp1252 when none is declared), Unicode escapes are kept.
One Document per file with ``metadata={"source": path}``. Needs
``pip install 'ragkit[documents]'``.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "n.rtf")
    >>> _ = open(path, "w").write(r"{\\rtf1\\ansi{\\b Bold} caf\\'e9\\par next}")
    >>> print(RTFLoader(path).load()[0].page_content)
    Bold café
    next
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import read_bytes
from ragkit.loaders._office import import_extra

_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")


class RTFLoader(FileLoader):
    """Load an RTF file as plain text."""

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        striprtf = import_extra("striprtf.striprtf", "striprtf")
        data = read_bytes(name, self.max_file_size)
        if not data.lstrip().startswith(b"{\\rtf"):
            raise LoaderError(f"{name} is not an RTF file (it does not start with '{{\\rtf')", name)
        m = _CODEPAGE.search(data[:4096])
        encoding = f"cp{m.group(1).decode()}" if m else "cp1252"
        try:
            "".encode(encoding)
        except LookupError:
            encoding = "cp1252"
        with self.reading("RTF file"):  # striprtf on malformed input
            text = striprtf.rtf_to_text(data.decode("latin-1"), encoding=encoding, errors="replace")
        yield Document(text.strip(), metadata={"source": self.source})
