"""The loader registry: ONE table from file types to loaders, used by DirectoryLoader.

Each entry maps extensions (``".docx"``) to a factory ``factory(path, max_file_size=...)``
that returns a :class:`~ragkit.loaders.BaseLoader`, a ``name`` for reports, and the
``extra`` whose packages it needs (``None``: ragkit's core). Add a type in one place::

    register_loader([".note"], lambda path, max_file_size: TextLoader(path, max_file_size=max_file_size),
                    name="notes")

:func:`loader_for` picks the loader for a file: a ``.gz`` file is read by the gzip
loader (which uses its inner extension; ``.tar.gz`` is an archive), a sniffed type (see
below) wins over the extension, and an extension nobody registered is read as text. :func:`why_not`
says why a file cannot be loaded here without opening it (the extra is not
installed: ``"install ragkit[documents] ..."``), or None.

**Content sniffing.** ``loader_for(path, sniff=fn)`` calls ``fn(path)``; when it
returns a canonical extension (``".pptx"`` for a ``.ppt`` that is really a zip), that
extension's loader is used; ``None`` keeps the name's extension. ``DirectoryLoader`` (through
:func:`ragkit.loaders.directory.default_loader`) passes the rule of
:mod:`ragkit.loaders.sniff`.

Example:
    >>> from ragkit.loaders.text import TextLoader
    >>> register_loader([".note"], lambda p, max_file_size=None: TextLoader(p), name="notes")
    >>> type(loader_for("a.note")).__name__, type(loader_for("b.docx")).__name__
    ('TextLoader', 'DocxLoader')
    >>> ".xlsx" in registered_extensions(), loader_entry(".xlsx").extra
    (True, 'documents')
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.loaders._files import DEFAULT_MAX_FILE_SIZE
from ragkit.loaders.base import BaseLoader

LoaderFactory = Callable[..., BaseLoader]
Sniffer = Callable[[str], "str | None"]


@dataclass(frozen=True)
class LoaderEntry:
    """One registered type: its loader factory, a name, the extra it needs and that extra's modules."""

    factory: LoaderFactory
    name: str
    extra: str | None = None
    modules: tuple[str, ...] = ()
    text_fallback: bool = False
    """Read the file as plain text when the extra is missing (``.xml`` was text before)."""

    def missing(self) -> list[str]:
        """The modules of ``extra`` that are not installed."""
        return [m for m in self.modules if importlib.util.find_spec(m) is None]


_TABLE: dict[str, LoaderEntry] = {}
_TAR_COMPRESSIONS = (".gz", ".bz2", ".xz")


def file_extension(path: str | os.PathLike[str]) -> str:
    """The type a file's name gives, lower case: ``".pdf"``; ``".tar.gz"`` for a compressed tar.

    Example:
        >>> file_extension("Report.PDF"), file_extension("logs.tar.gz"), file_extension("README")
        ('.pdf', '.tar.gz', '')
    """
    base, ext = os.path.splitext(os.fspath(path))
    ext = ext.lower()
    if ext in _TAR_COMPRESSIONS and os.path.splitext(base)[1].lower() == ".tar":
        return ".tar" + ext
    return ext


def _ext(ext: str) -> str:
    ext = ext.lower().strip()
    if not ext.startswith("."):
        ext = "." + ext
    return ext


def register_loader(
    extensions: Iterable[str] | str,
    factory: LoaderFactory,
    *,
    name: str,
    extra: str | None = None,
    modules: Iterable[str] = (),
    text_fallback: bool = False,
) -> None:
    """Map ``extensions`` to ``factory(path, max_file_size=...)`` (replacing any earlier entry).

    ``extra`` names the ``ragkit[...]`` extra the loader needs and ``modules`` the modules
    that extra installs (checked by :func:`why_not`); with ``text_fallback=True`` a file of
    this type is read as plain text while they are missing.
    """
    if isinstance(extensions, str):
        extensions = [extensions]
    exts = [_ext(e) for e in extensions]
    if not exts or any(e in (".", ".gz") for e in exts):
        raise ConfigurationError(f"register_loader needs extensions like '.docx', got {exts!r}")
    if not callable(factory):
        raise ConfigurationError(
            "register_loader: factory must be callable(path, max_file_size=...)"
        )
    entry = LoaderEntry(factory, name, extra, tuple(modules), text_fallback)
    for e in exts:
        _TABLE[e] = entry


def registered_extensions() -> list[str]:
    """Every registered extension, sorted (types not listed here are read as text)."""
    return sorted(_TABLE)


def loader_entry(extension: str) -> LoaderEntry | None:
    """The entry for an extension (``".docx"`` or ``"docx"``), or None."""
    return _TABLE.get(_ext(extension))


def _kind(path: str, sniff: Sniffer | None) -> str:
    if sniff is not None:
        found = sniff(path)
        if found:
            return _ext(found)
    return file_extension(path)


def loader_for(
    path: str | os.PathLike[str],
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    *,
    sniff: Sniffer | None = None,
) -> BaseLoader:
    """The loader for ``path``: by its sniffed type, else its extension; text when unregistered."""
    name = os.fspath(path)
    kind = _kind(name, sniff)
    if kind == ".gz":
        from ragkit.loaders.gzip_file import GzipFileLoader

        return GzipFileLoader(name, max_file_size=max_file_size)
    entry = _TABLE.get(kind)
    if entry is None or (entry.text_fallback and entry.missing()):
        from ragkit.loaders.text import TextLoader

        return TextLoader(name, max_file_size=max_file_size)
    return entry.factory(name, max_file_size=max_file_size)


def why_not(path: str | os.PathLike[str], *, sniff: Sniffer | None = None) -> str | None:
    """Why ``path`` cannot be loaded in this installation (a missing extra), or None."""
    entry = _TABLE.get(_kind(os.fspath(path), sniff))
    if entry is None or entry.text_fallback or not entry.missing():
        return None
    return (
        f"{entry.name} files need {', '.join(entry.missing())}: "
        f"install ragkit[{entry.extra}] (pip install 'ragkit[{entry.extra}]')"
    )


def _lazy(module: str, cls: str, **fixed: Any) -> LoaderFactory:
    def factory(path: str, max_file_size: int | None = DEFAULT_MAX_FILE_SIZE) -> BaseLoader:
        loader_cls = getattr(importlib.import_module(module), cls)
        loader: BaseLoader = loader_cls(path, max_file_size=max_file_size, **fixed)
        return loader

    factory.__qualname__ = f"{cls}"
    return factory


def _builtin() -> None:
    docs = "documents"
    register_loader(
        [".md", ".markdown"],
        _lazy("ragkit.loaders.markdown_loader", "MarkdownLoader"),
        name="Markdown",
    )
    register_loader(
        [".html", ".htm", ".xhtml"], _lazy("ragkit.loaders.html_loader", "HTMLLoader"), name="HTML"
    )
    register_loader(".csv", _lazy("ragkit.loaders.csv_loader", "CSVLoader"), name="CSV")
    register_loader(".tsv", _lazy("ragkit.loaders.csv_loader", "TSVLoader"), name="TSV")
    register_loader(
        ".json",
        _lazy(
            "ragkit.loaders.json_loader",
            "JSONLoader",
            jq_schema=".",
            text_content=False,
            json_lines=False,
        ),
        name="JSON",
    )
    register_loader(
        [".jsonl", ".ndjson"],
        _lazy(
            "ragkit.loaders.json_loader",
            "JSONLoader",
            jq_schema=".",
            text_content=False,
            json_lines=True,
        ),
        name="JSON Lines",
    )
    register_loader(".pdf", _lazy("ragkit.loaders.pdf", "PDFLoader"), name="PDF")
    register_loader(
        ".ipynb", _lazy("ragkit.loaders.notebook", "NotebookLoader"), name="Jupyter notebook"
    )
    register_loader(
        [".docx", ".docm"],
        _lazy("ragkit.loaders.docx_loader", "DocxLoader"),
        name="Word",
        extra=docs,
        modules=("docx",),
    )
    register_loader(
        [".pptx", ".pptm"],
        _lazy("ragkit.loaders.pptx_loader", "PowerPointLoader"),
        name="PowerPoint",
        extra=docs,
        modules=("pptx",),
    )
    register_loader(
        [".xlsx", ".xlsm"],
        _lazy("ragkit.loaders.excel", "ExcelLoader"),
        name="Excel",
        extra=docs,
        modules=("openpyxl", "defusedxml"),
    )
    register_loader(
        ".xls",
        _lazy("ragkit.loaders.excel", "ExcelLoader"),
        name="Excel 97-2003",
        extra=docs,
        modules=("xlrd",),
    )
    register_loader(
        [".odt", ".ods", ".odp"],
        _lazy("ragkit.loaders.odf_loader", "OpenDocumentLoader"),
        name="OpenDocument",
        extra=docs,
        modules=("defusedxml",),
    )
    register_loader(
        ".epub",
        _lazy("ragkit.loaders.epub", "EPubLoader"),
        name="EPUB",
        extra=docs,
        modules=("defusedxml",),
    )
    register_loader(
        ".rtf",
        _lazy("ragkit.loaders.rtf", "RTFLoader"),
        name="RTF",
        extra=docs,
        modules=("striprtf",),
    )
    register_loader(
        ".xml",
        _lazy("ragkit.loaders.xml_loader", "XMLLoader"),
        name="XML",
        extra=docs,
        modules=("defusedxml",),
        text_fallback=True,
    )
    register_loader(".eml", _lazy("ragkit.loaders.email_loader", "EmailLoader"), name="e-mail")
    register_loader(".mbox", _lazy("ragkit.loaders.mbox", "MboxLoader"), name="mbox")
    register_loader(
        ".msg",
        _lazy("ragkit.loaders.outlook_msg", "OutlookMessageLoader", headers=True),
        name="Outlook message",
        extra=docs,
        modules=("olefile",),
    )
    register_loader(
        [".zip", ".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".tar.gz", ".tar.bz2", ".tar.xz"],
        _lazy("ragkit.loaders.archive", "ArchiveLoader"),
        name="archive",
    )
    register_loader(
        [".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp"],
        _lazy("ragkit.loaders.image", "ImageLoader"),
        name="image (OCR)",
        extra="ocr",
        modules=("PIL", "rapidocr"),
    )
    register_loader(
        [".doc", ".ppt"],
        _lazy("ragkit.loaders.legacy_office", "LegacyOfficeLoader"),
        name="legacy Office (LibreOffice)",
        extra=docs,
        modules=("docx", "pptx"),
    )


_builtin()
