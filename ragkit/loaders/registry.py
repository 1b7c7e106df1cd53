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
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.errors import ConfigurationError
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
    plain_text: bool = False
    """The loader gives the decoded text as one Document with only ``source`` in metadata
    (Markdown): ``DirectoryLoader`` then reads such a file as text, in one read."""

    def missing(self) -> list[str]:
        """The modules of ``extra`` that are not installed (found once per process: see
        :func:`module_installed`)."""
        return [m for m in self.modules if not module_installed(m)]


_FOUND: dict[str, bool] = {}


def module_installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it.

    Python's mark for a module that must not import (``sys.modules[name] = None``) is
    honoured at each call; otherwise the answer of ``importlib.util.find_spec`` is kept for
    the process, so loading many files does not search ``sys.path`` for each one.
    """
    if module in sys.modules:
        return sys.modules[module] is not None
    found = _FOUND.get(module)
    if found is None:
        found = _FOUND[module] = importlib.util.find_spec(module) is not None
    return found


_TABLE: dict[str, LoaderEntry] = {}
_CHANGES = [0]  # bumped by register_loader: see table_version()
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
    _CHANGES[0] += 1


def table_version() -> tuple[int, int, int]:
    """Changes whenever the registered extensions may have changed (for caches of them)."""
    return (id(_TABLE), len(_TABLE), _CHANGES[0])


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


_JSON = {"jq_schema": ".", "text_content": False}

# The built-in types ragkit's core reads: extensions, "module:Class" in ragkit.loaders, name.
_CORE: tuple[tuple[tuple[str, ...], str, str], ...] = (
    ((".md", ".markdown"), "markdown_loader:MarkdownLoader", "Markdown"),
    ((".html", ".htm", ".xhtml"), "html_loader:HTMLLoader", "HTML"),
    ((".csv",), "csv_loader:CSVLoader", "CSV"),
    ((".tsv",), "csv_loader:TSVLoader", "TSV"),
    ((".json",), "json_loader:JSONLoader", "JSON"),
    ((".jsonl", ".ndjson"), "json_loader:JSONLoader", "JSON Lines"),
    ((".pdf",), "pdfium_loader:pdf_loader", "PDF"),  # pypdfium2, else pypdf
    ((".ipynb",), "notebook:NotebookLoader", "Jupyter notebook"),
    ((".eml",), "email_loader:EmailLoader", "e-mail"),
    ((".mbox",), "mbox:MboxLoader", "mbox"),
    (
        (".zip", ".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".tar.gz", ".tar.bz2", ".tar.xz"),
        "archive:ArchiveLoader",
        "archive",
    ),
)

# The types of the "documents" extra: the same, then the modules the loader needs.
_DOCUMENTS: tuple[tuple[tuple[str, ...], str, str, tuple[str, ...]], ...] = (
    ((".docx", ".docm"), "docx_loader:DocxLoader", "Word", ("docx",)),
    ((".pptx", ".pptm"), "pptx_loader:PowerPointLoader", "PowerPoint", ("pptx",)),
    ((".xlsx", ".xlsm"), "excel:ExcelLoader", "Excel", ("openpyxl", "defusedxml")),
    ((".xls",), "excel:ExcelLoader", "Excel 97-2003", ("xlrd",)),
    ((".odt", ".ods", ".odp"), "odf_loader:OpenDocumentLoader", "OpenDocument", ("defusedxml",)),
    ((".epub",), "epub:EPubLoader", "EPUB", ("defusedxml",)),
    ((".rtf",), "rtf:RTFLoader", "RTF", ("striprtf",)),
    ((".xml",), "xml_loader:XMLLoader", "XML", ("defusedxml",)),
    ((".msg",), "outlook_msg:OutlookMessageLoader", "Outlook message", ("olefile",)),
    (
        (".doc", ".ppt"),
        "legacy_office:LegacyOfficeLoader",
        "legacy Office (LibreOffice)",
        ("docx", "pptx"),
    ),
)

# Fixed arguments of some types' loaders, by name.
_FIXED: dict[str, dict[str, Any]] = {
    "JSON": {**_JSON, "json_lines": False},
    "JSON Lines": {**_JSON, "json_lines": True},
    "Outlook message": {"headers": True},
}
_TEXT_FALLBACK = frozenset({"XML"})  # read as text while the extra is missing (it was text before)
_IMAGES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp")


def _register_builtin(
    extensions: tuple[str, ...], where: str, name: str, extra: str | None, modules: tuple[str, ...]
) -> None:
    module, cls = where.split(":")
    factory = _lazy(f"ragkit.loaders.{module}", cls, **_FIXED.get(name, {}))
    text_fallback = name in _TEXT_FALLBACK
    register_loader(
        extensions, factory, name=name, extra=extra, modules=modules, text_fallback=text_fallback
    )


def _builtin() -> None:
    for extensions, where, name in _CORE:
        _register_builtin(extensions, where, name, None, ())
    for ext in (".md", ".markdown"):  # MarkdownLoader's default mode: the text as it is
        _TABLE[ext] = replace(_TABLE[ext], plain_text=True)
    for extensions, where, name, modules in _DOCUMENTS:
        _register_builtin(extensions, where, name, "documents", modules)
    _register_builtin(_IMAGES, "image:ImageLoader", "image (OCR)", "ocr", ("PIL", "rapidocr"))


_builtin()
