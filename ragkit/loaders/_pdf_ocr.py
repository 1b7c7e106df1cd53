"""OCR of PDF pages for PDFLoader: render one page with pypdfium2, read it, within bounds.

One :class:`PdfOcr` serves one file: it opens the file with pypdfium2 on the
first page to read, renders one page at a time at ``dpi`` (lowered for a page
so large that its bitmap would pass :data:`MAX_RENDER_PIXELS`, so memory is
bounded by one page), and stops OCR after ``max_pages`` pages or
``time_limit`` seconds; :meth:`PdfOcr.skipped_reason` says which pages were
left out and why. PDFium is not thread-safe: renders in one process run one at
a time (a lock).

Example:
    >>> page_ranges([3, 4, 5, 9])
    '3-5, 9'
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._modes import check_at_least
from ragkit.loaders.ocr import OcrEngine, join_lines, mean_confidence

MAX_RENDER_PIXELS = 40_000_000
"""A rendered page never has more pixels than this (about 120 MB as RGB)."""
_PDFIUM_LOCK = threading.Lock()


def page_ranges(pages: list[int]) -> str:
    """``[3, 4, 5, 9]`` -> ``'3-5, 9'`` (0-based page numbers, for messages)."""
    out: list[str] = []
    start = prev = None
    for p in pages:
        if start is not None and prev is not None and p == prev + 1:
            prev = p
            continue
        if start is not None:
            out.append(f"{start}-{prev}" if prev != start else str(start))
        start = prev = p
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else str(start))
    return ", ".join(out)


def _pages(pages: list[int]) -> str:
    return ("page " if len(pages) == 1 else "pages ") + page_ranges(pages)


def render_page(document: Any, index: int, dpi: float) -> Any:
    """Page ``index`` of an open ``pypdfium2.PdfDocument`` as a PIL RGB image."""
    with _PDFIUM_LOCK:
        page = document[index]
        try:
            width, height = page.get_size()  # points
            scale = dpi / 72.0
            pixels = width * scale * height * scale
            if pixels > MAX_RENDER_PIXELS:
                scale *= (MAX_RENDER_PIXELS / pixels) ** 0.5
            bitmap = page.render(scale=scale)
            try:
                return bitmap.to_pil().convert("RGB")
            finally:
                bitmap.close()
        finally:
            page.close()


@dataclass(frozen=True)
class OcrBounds:
    """How pages are rendered for OCR (``dpi``) and how much is read: ``max_pages`` pages and
    ``time_limit`` seconds per file (None: no bound). Checked when made (PDFLoader's
    ``ocr_dpi``, ``max_ocr_pages`` and ``ocr_time_limit``)."""

    dpi: float = 200
    max_pages: int | None = 100
    time_limit: float | None = 600.0

    def __post_init__(self) -> None:
        if not 10 <= self.dpi <= 1200:
            raise ConfigurationError(f"ocr_dpi must be between 10 and 1200, got {self.dpi}")
        check_at_least("max_ocr_pages", self.max_pages, 0)
        if self.time_limit is not None and self.time_limit <= 0:
            raise ConfigurationError(f"ocr_time_limit must be > 0 or None, got {self.time_limit}")


class PdfOcr:
    """OCR of the pages of one PDF file, bounded in pages and time."""

    def __init__(
        self,
        name: str,
        password: str | None,
        engine: OcrEngine,
        bounds: OcrBounds,
        document: Any = None,
    ) -> None:
        """``document``: the file already open in pypdfium2 (its opener closes it), or None
        to open it on the first page read."""
        self.name = name
        self.password = password
        self.engine = engine
        self.dpi = bounds.dpi
        self.max_pages = bounds.max_pages
        self.time_limit = bounds.time_limit
        self.done = 0
        self.over_pages: list[int] = []
        self.over_time: list[int] = []
        self._started: float | None = None
        self._document: Any = document
        self._owned = document is None

    def _open(self) -> Any:
        if self._document is None:
            try:
                import pypdfium2
            except ImportError:
                raise LoaderError(
                    f"{self.name}: rendering pages for OCR needs pypdfium2: pip install 'ragkit[ocr]'",
                    self.name,
                ) from None
            with _PDFIUM_LOCK:
                try:
                    self._document = pypdfium2.PdfDocument(self.name, password=self.password)
                except Exception as e:
                    raise LoaderError(
                        f"{self.name}: pypdfium2 cannot open the file to render it: {e}", self.name
                    ) from e
        return self._document

    def read(self, index: int) -> tuple[str, float | None] | None:
        """The OCR text of page ``index`` and its mean confidence, or ``None`` past a bound."""
        if self.max_pages is not None and self.done >= self.max_pages:
            self.over_pages.append(index)
            return None
        now = time.monotonic()
        if self._started is None:
            self._started = now
        elif self.time_limit is not None and now - self._started > self.time_limit:
            self.over_time.append(index)
            return None
        self.done += 1
        image = render_page(self._open(), index, self.dpi)
        low, high = image.convert("L").getextrema()
        if low == high:  # a blank page: nothing to read
            return "", None
        lines = self.engine.read(image)
        del image
        return join_lines(lines), mean_confidence(lines)

    def skipped_reasons(self) -> list[str]:
        """One message per bound that left pages unread (empty when none did)."""
        out = []
        if self.over_pages:
            out.append(
                f"{_pages(self.over_pages)} without a text layer not read by "
                f"OCR: over max_ocr_pages={self.max_pages} (raise it to read them)"
            )
        if self.over_time:
            out.append(
                f"{_pages(self.over_time)} without a text layer not read by "
                f"OCR: OCR of this file passed ocr_time_limit={self.time_limit:g} s "
                "(raise it to read them)"
            )
        return out

    def close(self) -> None:
        if self._document is not None and self._owned:
            with _PDFIUM_LOCK:
                self._document.close()
        self._document = None
