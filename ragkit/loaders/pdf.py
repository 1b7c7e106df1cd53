"""PDFLoader: one Document per page (``page`` is 0-based, ``total_pages``), or one for the file.

Built on pypdf. A page without a text layer (a scan) is read by OCR when the
``ocr`` extra is installed (``ocr="auto"``, the default; ``"always"`` reads every
page by OCR, ``"never"`` none): the page is rendered with pypdfium2 at
``ocr_dpi`` and read by :class:`~ragkit.loaders.ocr.OcrEngine`, and its Document
gets ``ocr: True`` and ``ocr_confidence``. OCR costs about 1-4 s a page, so it is
bounded per file: ``max_ocr_pages`` pages (100) and ``ocr_time_limit`` seconds
(600); the pages left unread are listed on ``loader.errors``. ``RAGKIT_OCR=never`` in the
environment turns OCR off whatever ``ocr`` says (see :mod:`ragkit.loaders.ocr`). Without
the extra (or with OCR off), each page with images and no text is recorded on
``loader.errors`` with how to read it, and the rest loads. An encrypted PDF needs ``password`` (one encrypted with an
empty password opens without); a wrong or missing password raises
:class:`~ragkit.errors.EncryptedFileError`. A page whose text cannot be
extracted is recorded on ``loader.errors`` and yields an empty page, so the
other pages still load. A damaged file that pypdf cannot open, or that has no
pages, raises :class:`~ragkit.errors.LoaderError`; a file over
``max_file_size`` bytes is refused before it is opened.

Example:
    >>> import tempfile, os
    >>> from pypdf import PdfWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "blank.pdf")
    >>> w = PdfWriter(); _ = w.add_blank_page(72, 72); _ = w.add_blank_page(72, 72); _ = w.write(path)
    >>> [(d.metadata["page"], d.metadata["total_pages"]) for d in PDFLoader(path).load()]
    [(0, 2), (1, 2)]
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from typing import Any, Literal

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import EncryptedFileError, LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import check_regular
from ragkit.loaders._modes import check_choice, check_mode
from ragkit.loaders._pdf_ocr import OcrBounds, PdfOcr
from ragkit.loaders.ocr import (
    INSTALL_HINT,
    OCR_OFF,
    OcrEngine,
    ocr_available,
    ocr_switched_off,
    shared_engine,
)


class PDFLoader(FileLoader):
    """Load a PDF's text with pypdf (``mode="page"`` or ``"single"``)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Literal["page", "single"] = "page",
        password: str | None = None,
        pages_delimiter: str = "\n\f",
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        ocr: Literal["auto", "always", "never"] = "auto",
        ocr_dpi: float = 200,
        max_ocr_pages: int | None = 100,
        ocr_time_limit: float | None = 600.0,
        ocr_engine: OcrEngine | None = None,
        ocr_threads: int | None = None,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        check_mode("PDFLoader", mode, ("page", "single"))
        check_choice("PDFLoader ocr", ocr, ("auto", "always", "never"))
        self.ocr = ocr
        self.ocr_bounds = OcrBounds(ocr_dpi, max_ocr_pages, ocr_time_limit)
        self.ocr_engine = ocr_engine
        self.ocr_threads = ocr_threads
        self.mode = mode
        self.password = password
        self.pages_delimiter = pages_delimiter

    # -- the text layer: pypdf here; PyPDFium2Loader overrides these ---------------------
    def _reader(self) -> Any:
        from pypdf import PdfReader

        name = os.fspath(self.file_path)
        check_regular(name, self.max_file_size)
        _warnings.install()
        with self.reading("PDF (truncated or damaged?)"):  # pypdf: many kinds on damage
            reader = PdfReader(name)
            if reader.is_encrypted:
                result = reader.decrypt(self.password if self.password is not None else "")
                if not result:
                    raise self._encrypted(name)
            pages = len(reader.pages)
        if pages == 0:
            raise LoaderError(f"{name} has no pages (truncated or damaged PDF?)", name)
        return reader

    def _encrypted(self, name: str) -> EncryptedFileError:
        """The error for an encrypted PDF that the password given (or none) does not open."""
        if self.password is None:
            return EncryptedFileError(
                f"{name} is encrypted; pass password= to {type(self).__name__} (ragkit index: "
                "--password-file FILE)",
                name,
            )
        return EncryptedFileError(f"{name}: the password does not open this PDF", name)

    def _count(self, reader: Any) -> int:
        return len(reader.pages)

    def _extract(self, reader: Any, index: int) -> tuple[str, str | None]:
        """Page ``index``'s text and, when the library only warned about damage, its warning."""
        with _warnings.collect() as warned:
            text = str(reader.pages[index].extract_text() or "")
        return text, warned[0] if warned else None

    def _has_images(self, reader: Any, index: int) -> bool:
        return _has_images(reader, index)

    def _title(self, reader: Any) -> str | None:
        return _title(reader)

    def _labels(self, reader: Any, total: int) -> list[str]:
        """Each page's label (``"iv"``, ``"12"``), its number from 1 when the PDF has none."""
        return _labels(reader, total)

    def _close(self, reader: Any) -> None:
        """Release what :meth:`_reader` opened (pypdf holds nothing to close)."""

    def _page_text(self, reader: Any, index: int, name: str) -> str:
        try:
            text, warned = self._extract(reader, index)
        except Exception as e:  # one broken page must not lose the others
            self._record(name, f"page {index}: text extraction failed: {e}", e)
            return ""
        if not text.strip() and warned:  # pypdf only warns about a damaged page, and gives ""
            self._record(name, f"page {index}: no text; the page looks damaged: {warned}")
        return text

    def _page_docs(self, reader: Any, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each page's text and its own metadata (``ocr``, ``ocr_confidence`` when OCR read it)."""
        total = self._count(reader)
        ocr: PdfOcr | None = None
        switched_off = ocr_switched_off()
        can_ocr = self.ocr != "never" and not switched_off and ocr_available()
        no_ocr = f"not read: {OCR_OFF}" if switched_off and self.ocr != "never" else self._no_ocr
        try:
            for i in range(total):
                always = self.ocr == "always" and can_ocr
                text = "" if always else self._page_text(reader, i, name)
                meta: dict[str, Any] = {}
                if always or not text.strip():
                    if can_ocr:
                        ocr = ocr or self._ocr(name, reader)
                        try:
                            found = ocr.read(i)
                        except LoaderError as e:  # pypdfium2 cannot open the file: no more OCR
                            self._record(name, f"page {i}: not read by OCR: {e}", e)
                            can_ocr, found = False, None
                        except Exception as e:  # one page's OCR failing must not lose the others
                            self._record(name, f"page {i}: OCR failed: {type(e).__name__}: {e}", e)
                            found = None
                        if found is not None:
                            text, confidence = found
                            meta["ocr"] = True
                            if confidence is not None:
                                meta["ocr_confidence"] = confidence
                    elif self._has_images(reader, i):
                        self._record(name, f"page {i} has no text layer (a scan?); {no_ocr}")
                yield text, meta
        finally:
            if ocr is not None:
                for reason in ocr.skipped_reasons():
                    self._record(name, reason)
                ocr.close()

    @property
    def _no_ocr(self) -> str:
        if self.ocr == "never":
            return "not read: ocr='never' (pass ocr='auto' to read it by OCR)"
        return f"not read: reading it needs OCR: {INSTALL_HINT}"

    def _ocr(self, name: str, reader: Any) -> PdfOcr:
        engine = self.ocr_engine or shared_engine(self.ocr_threads)
        return PdfOcr(name, self.password, engine, self.ocr_bounds)

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        reader = self._reader()
        try:
            yield from self._documents(reader, name)
        finally:
            self._close(reader)

    def _documents(self, reader: Any, name: str) -> Iterator[Document]:
        total = self._count(reader)
        base: dict[str, Any] = {"source": str(self.file_path), "total_pages": total}
        title = self._title(reader)
        if title:
            base["title"] = title
        if self.mode == "single":
            texts, any_ocr = [], False
            for text, meta in self._page_docs(reader, name):
                texts.append(text)
                any_ocr = any_ocr or bool(meta.get("ocr"))
            yield Document(
                self.pages_delimiter.join(texts),
                metadata={**base, "ocr": True} if any_ocr else base,
            )
            return
        labels = self._labels(reader, total)
        for i, (text, meta) in enumerate(self._page_docs(reader, name)):
            yield Document(text, metadata={**base, "page": i, "page_label": labels[i], **meta})


def _has_images(reader: Any, index: int) -> bool:
    """Whether page ``index`` draws an image (a scanned page does), from its resources."""
    try:
        resources: Any = reader.pages[index].get("/Resources")
        xobjects: Any = resources.get_object().get("/XObject") if resources is not None else None
        if xobjects is None:
            return False
        xobjects = xobjects.get_object()
        return any(xobjects[k].get_object().get("/Subtype") == "/Image" for k in xobjects)
    except Exception:
        return False


class _PypdfWarnings(logging.Handler):
    """Collects pypdf's warnings per thread (a damaged page is only a warning there), passes
    errors on to the root logger, and keeps warnings off the console as ragkit always did."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._local = threading.local()
        self._installed = False
        self._lock = threading.Lock()

    def install(self) -> None:
        with self._lock:
            pypdf_logger = logging.getLogger("pypdf")
            if not self._installed:
                pypdf_logger.addHandler(self)
                self._installed = True
            pypdf_logger.propagate = False
            if pypdf_logger.getEffectiveLevel() > logging.WARNING:  # someone raised it since
                pypdf_logger.setLevel(logging.WARNING)

    @contextlib.contextmanager
    def collect(self) -> Iterator[list[str]]:
        self.install()
        found: list[str] = []
        self._local.found = found
        try:
            yield found
        finally:
            self._local.found = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR:
            logging.getLogger().handle(record)
            return
        found = getattr(self._local, "found", None)
        if found is not None and len(found) < 5:
            found.append(record.getMessage())


_warnings = _PypdfWarnings()


def _title(reader: Any) -> str | None:
    try:
        info = reader.metadata
        return str(info.title) if info is not None and info.title else None
    except Exception:
        return None


def _labels(reader: Any, total: int) -> list[str]:
    try:
        labels = list(reader.page_labels)
        if len(labels) == total:
            return [str(x) for x in labels]
    except Exception:
        pass
    return [str(i + 1) for i in range(total)]
