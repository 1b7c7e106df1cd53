"""CSVLoader: one Document per row, ``column: value`` lines as content (as LangChain).

Quoted fields may contain newlines and commas. ``metadata`` has ``source`` (the
file, or the value of ``source_column``), ``row`` (0-based) and any
``metadata_columns``.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w", newline="").write('name,note\\nAda,"first\\nprogrammer"\\n')
    >>> doc = CSVLoader(path).load()[0]
    >>> doc.page_content, doc.metadata["row"]
    ('name: Ada\\nnote: first\\nprogrammer', 0)
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator, Sequence
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._decode import read_and_decode
from ragkit.loaders._file_loader import FileLoader


def _value(v: Any) -> Any:
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, list):  # extra fields of a row longer than the header
        return ",".join(map(str.strip, v))
    return v


class CSVLoader(FileLoader):
    """Load a CSV file, one Document per row."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        source_column: str | None = None,
        metadata_columns: Sequence[str] = (),
        content_columns: Sequence[str] | None = None,
        csv_args: dict[str, Any] | None = None,
        encoding: str | None = None,
        autodetect_encoding: bool = True,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        self.source_column = source_column
        self.metadata_columns = list(metadata_columns)
        self.content_columns = list(content_columns or ())
        self.csv_args = csv_args or {}
        self.encoding = encoding
        self.autodetect_encoding = autodetect_encoding

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        text, _ = read_and_decode(name, self.encoding, self.autodetect_encoding, self.max_file_size)
        reader = csv.DictReader(io.StringIO(text, newline=""), **self.csv_args)
        try:
            for i, row in enumerate(reader):
                yield self._document(row, i, name)
        except csv.Error as e:
            raise LoaderError(
                f"{name}: malformed CSV near line {reader.line_num}: {e}", name
            ) from e

    def _document(self, row: dict[Any, Any], i: int, name: str) -> Document:
        if self.source_column is not None:
            if self.source_column not in row:
                raise LoaderError(
                    f"{name}: source_column {self.source_column!r} is not a column of the CSV", name
                )
            source = row[self.source_column]
        else:
            source = str(self.file_path)
        wanted = self.content_columns
        skipped = self.metadata_columns
        content = "\n".join(
            [
                f"{k.strip() if k is not None else k}: {v.strip() if type(v) is str else _value(v)}"
                for k, v in row.items()
                if (k in wanted if wanted else not skipped or k not in skipped)
            ]
        )
        metadata: dict[str, Any] = {"source": source, "row": i}
        for col in self.metadata_columns:
            if col not in row:
                raise LoaderError(
                    f"{name}: metadata column {col!r} is not a column of the CSV", name
                )
            metadata[col] = row[col]
        return Document(content, metadata=metadata)


class TSVLoader(CSVLoader):
    """A tab-separated file: :class:`CSVLoader` with ``delimiter="\\t"`` (other ``csv_args`` kept)."""

    def __init__(self, file_path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(file_path, *args, **kwargs)
        self.csv_args = {"delimiter": "\t", **self.csv_args}
