"""PyPDFium2Loader: a PDF's text layer read by PDFium (pypdfium2), with everything PDFLoader does.

LangChain's name and arguments (``mode``, ``pages_delimiter``, ``password``); a page's text is
LangChain's (PDFium's text, line breaks as ``\\n``, stripped) without the ``"\\n"`` LangChain
appends to each page. The rest is :class:`~ragkit.loaders.pdf.PDFLoader`'s: ``page``
(0-based), ``page_label``, ``total_pages`` and ``title`` in metadata, pages without a text
layer read by OCR (``ocr=``, ``RAGKIT_OCR``; rendered from the same open document), the OCR
bounds, encrypted files (:class:`~ragkit.errors.EncryptedFileError`), a damaged file or one
without pages (:class:`~ragkit.errors.LoaderError`), a page that fails recorded on
``loader.errors``. PDFium reads text many times faster than pypdf (a 376-page report: under
1 s against 7.5 s), so the registry reads ``.pdf`` files with this loader when pypdfium2 is
installed (the ``documents`` and ``ocr`` extras), and with PDFLoader otherwise
(:func:`pdf_loader`). PDFium is not thread-safe: calls into it hold one lock per process.

Example:
    >>> import tempfile, os
    >>> from pypdf import PdfWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "blank.pdf")
    >>> w = PdfWriter(); _ = w.add_blank_page(72, 72); _ = w.add_blank_page(72, 72); _ = w.write(path)
    >>> [(d.metadata["page"], d.metadata["page_label"]) for d in PyPDFium2Loader(path).load()]
    [(0, '1'), (1, '2')]
"""

from __future__ import annotations

import os
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._files import check_regular
from ragkit.loaders._pdf_ocr import _PDFIUM_LOCK, PdfOcr
from ragkit.loaders.base import BaseLoader
from ragkit.loaders.ocr import shared_engine
from ragkit.loaders.pdf import PDFLoader
from ragkit.loaders.registry import module_installed

_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD
_IMAGE_OBJECT = 3  # FPDF_PAGEOBJ_IMAGE


class _Open:
    """One load's open PDF: the PDFium document, and pypdf's reader once a page needs it."""

    def __init__(self, document: Any) -> None:
        self.document = document
        self.pypdf: Any = None
        self.pypdf_tried = False


def _pypdfium2() -> Any:
    try:
        import pypdfium2
    except ImportError:
        raise ConfigurationError(
            "PyPDFium2Loader needs pypdfium2: pip install 'ragkit[documents]' "
            "(or use PDFLoader, which reads PDFs with pypdf)"
        ) from None
    return pypdfium2


class PyPDFium2Loader(PDFLoader):
    """Load a PDF's text with pypdfium2 (``mode="page"`` or ``"single"``); see the module doc."""

    def _reader(self) -> Any:
        pypdfium2 = _pypdfium2()
        name = os.fspath(self.file_path)
        check_regular(name, self.max_file_size)
        with _PDFIUM_LOCK:
            try:
                document = pypdfium2.PdfDocument(name, password=self.password)
            except pypdfium2.PdfiumError as e:
                if getattr(e, "err_code", None) == _PASSWORD_ERROR:
                    raise self._encrypted(name) from e
                raise LoaderError(
                    f"{name}: cannot read PDF (truncated or damaged?): {e}", name
                ) from e
            try:
                pages = len(document)
            except Exception:
                document.close()
                raise
        if pages == 0:
            with _PDFIUM_LOCK:
                document.close()
            raise LoaderError(f"{name} has no pages (truncated or damaged PDF?)", name)
        return _Open(document)

    def _count(self, reader: Any) -> int:
        return len(reader.document)

    def _extract(self, reader: Any, index: int) -> tuple[str, str | None]:
        text = self._pdfium_text(reader.document, index)
        if text:
            return text, None
        return text, self._damage(reader, index)

    def _damage(self, reader: Any, index: int) -> str | None:
        """pypdf's warning about page ``index`` when PDFium found no text on it: PDFium says
        nothing about a broken content stream, pypdf does (the page is then recorded as
        damaged, as PDFLoader records it). Pages without text are few (blank pages, scans),
        so pypdf opens the file only for them."""
        if not reader.pypdf_tried:
            reader.pypdf_tried = True
            try:
                reader.pypdf = PDFLoader._reader(self)
            except Exception:  # pypdf cannot open what PDFium opened: no warning to give
                reader.pypdf = None
        if reader.pypdf is None:
            return None
        try:
            return PDFLoader._extract(self, reader.pypdf, index)[1]
        except Exception as e:  # pypdf fails on the page: that is the damage
            return f"{type(e).__name__}: {e}"

    def _pdfium_text(self, document: Any, index: int) -> str:
        with _PDFIUM_LOCK:
            page = document[index]
            try:
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_range()
                finally:
                    textpage.close()
            finally:
                page.close()
        return "\n".join(text.splitlines()).strip()

    def _has_images(self, reader: Any, index: int) -> bool:
        with _PDFIUM_LOCK:
            page = reader.document[index]
            try:
                return any(True for _ in page.get_objects(filter=(_IMAGE_OBJECT,)))
            except Exception:
                return False
            finally:
                page.close()

    def _title(self, reader: Any) -> str | None:
        try:
            with _PDFIUM_LOCK:
                title = reader.document.get_metadata_value("Title")
        except Exception:
            return None
        return str(title) if title else None

    def _labels(self, reader: Any, total: int) -> list[str]:
        labels = []
        with _PDFIUM_LOCK:
            for i in range(total):
                try:
                    label = reader.document.get_page_label(i)
                except Exception:
                    label = ""
                labels.append(str(label) if label else str(i + 1))
        return labels

    def _close(self, reader: Any) -> None:
        with _PDFIUM_LOCK:
            reader.document.close()

    def _ocr(self, name: str, reader: Any) -> PdfOcr:
        engine = self.ocr_engine or shared_engine(self.ocr_threads)
        return PdfOcr(name, self.password, engine, self.ocr_bounds, document=reader.document)


def pdf_loader(path: str, max_file_size: int | None = DEFAULT_MAX_FILE_SIZE) -> BaseLoader:
    """The loader the registry uses for ``.pdf``: PyPDFium2Loader when pypdfium2 is installed,
    else PDFLoader (pypdf, ragkit's core).

    Example:
        >>> type(pdf_loader("report.pdf")).__name__ in ("PyPDFium2Loader", "PDFLoader")
        True
    """
    if module_installed("pypdfium2"):
        return PyPDFium2Loader(path, max_file_size=max_file_size)
    return PDFLoader(path, max_file_size=max_file_size)


__all__ = ["PyPDFium2Loader", "pdf_loader"]
