"""LegacyOfficeLoader: ``.doc`` and ``.ppt`` read by converting them with LibreOffice.

The file is converted (``soffice --headless --convert-to docx|pptx``) into a
temporary folder with a timeout, then read by :class:`~ragkit.loaders.DocxLoader`
or :class:`~ragkit.loaders.PowerPointLoader`; the Documents' ``source`` is the
original file. Without LibreOffice on PATH each file fails with a
:class:`~ragkit.errors.LoaderError` that says how to install it. (``.xls`` needs no
conversion: :class:`~ragkit.loaders.ExcelLoader` reads it with xlrd.)

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "old.doc")
    >>> _ = open(path, "wb").write(b"\\xd0\\xcf\\x11\\xe0\\xa1\\xb1\\x1a\\xe1")
    >>> LegacyOfficeLoader(path).target
    'docx'
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import UnsupportedFileError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import check_regular
from ragkit.loaders._office import SOFFICE_TIMEOUT, check_timeout, convert_with_soffice
from ragkit.loaders.base import BaseLoader

_TARGETS = {".doc": "docx", ".dot": "docx", ".ppt": "pptx", ".pps": "pptx"}


class LegacyOfficeLoader(FileLoader):
    """Load a legacy ``.doc``/``.ppt`` through LibreOffice (``loader_kwargs`` go to the new loader)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        timeout: float = SOFFICE_TIMEOUT,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        loader_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        name = os.fspath(file_path)
        ext = os.path.splitext(name)[1].lower()
        if ext not in _TARGETS:
            raise UnsupportedFileError(
                f"{name}: LegacyOfficeLoader reads .doc and .ppt, not {ext!r}", name
            )
        self.target = _TARGETS[ext]
        self.timeout = check_timeout(timeout)
        self.loader_kwargs = loader_kwargs or {}

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        check_regular(name, self.max_file_size)
        out_dir = tempfile.mkdtemp(prefix="ragkit-convert-")
        try:
            converted = convert_with_soffice(name, self.target, out_dir, self.timeout)
            loader: BaseLoader
            if self.target == "docx":
                from ragkit.loaders.docx_loader import DocxLoader

                loader = DocxLoader(converted, max_file_size=None, **self.loader_kwargs)
            else:
                from ragkit.loaders.pptx_loader import PowerPointLoader

                loader = PowerPointLoader(converted, max_file_size=None, **self.loader_kwargs)
            for doc in loader.lazy_load():
                doc.metadata["source"] = str(self.file_path)
                yield doc
            self.errors.extend(loader.errors)
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)
