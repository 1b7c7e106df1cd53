"""PDFPlumberLoader: a PDF's pages with pdfplumber, tables as Markdown tables on request.

LangChain's name and arguments (``text_kwargs`` go to ``Page.extract_text``,
``dedupe`` drops duplicated characters, ``extract_images`` reads the page's
images by OCR with the ``ocr`` extra) and metadata: ``source``, ``file_path``,
``page`` (0-based), ``total_pages`` and the PDF's string and integer info
fields (``Title``, ``Author``, ``Producer`` ...). Needs the ``documents`` extra.

``extract_tables="markdown"`` writes each table pdfplumber finds (ruled tables by
default; ``table_settings`` go to ``Page.find_tables``) as a Markdown table
*in place*: the page's text is cut at each table's top edge, the table's own
characters are left out of the text (so no cell is written twice), and the
table goes where it stood. The first row is the header row; an empty or merged
cell is an empty cell; ``|`` in a cell is escaped and line breaks become
spaces. Text beside a table comes after it.

Unlike LangChain's loader, ``page_content`` has no trailing newline (LangChain
appends ``"\\n"`` and then the images' text to every page).

Example:
    >>> markdown_table([["Part", "Price"], ["chain", None], ["a|b", "2\\nEUR"]])
    '| Part | Price |\\n| --- | --- |\\n| chain |  |\\n| a\\\\|b | 2 EUR |'
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, EncryptedFileError, LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import check_regular
from ragkit.loaders.ocr import (
    INSTALL_HINT,
    OCR_OFF,
    OcrEngine,
    join_lines,
    ocr_available,
    ocr_switched_off,
    shared_engine,
)


def _cell(value: Any) -> str:
    text = "" if value is None else " ".join(str(value).split())
    return text.replace("|", "\\|")


def markdown_table(rows: Sequence[Sequence[Any]]) -> str:
    """``rows`` (the first is the header) as a Markdown table; ``None`` cells are empty."""
    width = max((len(r) for r in rows), default=0)
    if not width:
        return ""
    padded = [[_cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(padded[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(r) + " |" for r in padded[1:]]
    return "\n".join(lines)


def _pdfplumber() -> Any:
    try:
        import pdfplumber
    except ImportError:
        raise ConfigurationError(
            "PDFPlumberLoader needs pdfplumber: pip install 'ragkit[documents]'"
        ) from None
    return pdfplumber


class PDFPlumberLoader(FileLoader):
    """Load a PDF with pdfplumber, one Document per page (tables as Markdown on request)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        text_kwargs: Mapping[str, Any] | None = None,
        dedupe: bool = False,
        headers: dict[str, str] | None = None,
        extract_images: bool = False,
        *,
        extract_tables: Literal["markdown"] | None = None,
        table_settings: Mapping[str, Any] | None = None,
        password: str | None = None,
        ocr_engine: OcrEngine | None = None,
        ocr_threads: int | None = None,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        if str(file_path).startswith(("http://", "https://")):
            raise ConfigurationError(
                f"PDFPlumberLoader reads local files; download {file_path} first "
                "(headers= is accepted for LangChain's signature only)"
            )
        if extract_tables not in (None, "markdown"):
            raise ConfigurationError(
                f"extract_tables must be None or 'markdown', got {extract_tables!r}"
            )
        self.text_kwargs = dict(text_kwargs or {})
        self.dedupe = dedupe
        self.headers = headers
        self.extract_images = extract_images
        self.extract_tables = extract_tables
        self.table_settings = dict(table_settings or {})
        self.password = password
        self.ocr_engine = ocr_engine
        self.ocr_threads = ocr_threads

    def _open(self, name: str) -> Any:
        pdfplumber = _pdfplumber()
        check_regular(name, self.max_file_size)
        with self.reading("PDF (truncated or damaged?)"):
            try:
                return pdfplumber.open(name, password=self.password or "")
            except Exception as e:  # pdfminer raises many kinds on damaged or encrypted files
                if "password" in type(e).__name__.lower() or "PDFPassword" in repr(e):
                    if self.password is None:
                        raise EncryptedFileError(
                            f"{name} is encrypted; pass password= to PDFPlumberLoader", name
                        ) from e
                    raise EncryptedFileError(
                        f"{name}: the password does not open this PDF", name
                    ) from e
                raise

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        pdf = self._open(name)
        try:
            try:
                total = len(pdf.pages)
            except Exception as e:
                raise LoaderError(f"{name} has no readable page tree: {e}", name) from e
            info = {k: v for k, v in (pdf.metadata or {}).items() if type(v) in (str, int)}
            base = {"source": str(self.file_path), "file_path": str(self.file_path)}
            for index, page in enumerate(pdf.pages):
                try:
                    text = self._page_text(page, name, index)
                except Exception as e:  # one broken page must not lose the others
                    self._record(name, f"page {index}: {type(e).__name__}: {e}", e)
                    text = ""
                finally:
                    page.close()  # drop the page's cached objects: memory stays one page
                meta = {**base, "page": index, "total_pages": total, **info}
                yield Document(text, metadata=meta)
        finally:
            pdf.close()

    def _page_text(self, page: Any, name: str, index: int) -> str:
        if self.dedupe:
            page = page.dedupe_chars()
        text = self._tables_in_place(page) if self.extract_tables else self._text(page)
        if self.extract_images:
            images = self._images_text(page, name, index)
            if images:
                text = f"{text}\n{images}" if text else images
        return text

    def _text(self, page: Any) -> str:
        return str(page.extract_text(**self.text_kwargs) or "")

    def _tables_in_place(self, page: Any) -> str:
        tables = sorted(page.find_tables(self.table_settings), key=lambda t: t.bbox[1])
        if not tables:
            return self._text(page)
        boxes = [t.bbox for t in tables]

        def outside(obj: dict[str, Any]) -> bool:
            x = (obj["x0"] + obj["x1"]) / 2
            y = (obj["top"] + obj["bottom"]) / 2
            return not any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)

        free = page.filter(lambda o: o.get("object_type") != "char" or outside(o))
        cuts = [float("-inf")] + [t.bbox[1] for t in tables] + [float("inf")]
        parts: list[str] = []
        for i in range(len(cuts) - 1):
            low, high = cuts[i], cuts[i + 1]

            def in_band(obj: dict[str, Any], low: float = low, high: float = high) -> bool:
                if obj.get("object_type") != "char":
                    return True
                return low <= (obj["top"] + obj["bottom"]) / 2 < high

            band = str(free.filter(in_band).extract_text(**self.text_kwargs) or "").strip("\n")
            if band:
                parts.append(band)
            if i < len(tables):
                table = markdown_table(tables[i].extract())
                if table:
                    parts.append(table)
        return "\n\n".join(parts)

    def _images_text(self, page: Any, name: str, index: int) -> str:
        if not page.images:
            return ""
        if ocr_switched_off():
            self._record(name, f"page {index}: images not read: {OCR_OFF}")
            return ""
        if not ocr_available():
            self._record(
                name, f"page {index}: images not read: extract_images needs OCR: {INSTALL_HINT}"
            )
            return ""
        engine = self.ocr_engine or shared_engine(self.ocr_threads)
        texts = []
        for image in page.images:
            box = (
                max(image["x0"], 0),
                max(image["top"], 0),
                min(image["x1"], page.width),
                min(image["bottom"], page.height),
            )
            if box[2] - box[0] < 1 or box[3] - box[1] < 1:
                continue
            rendered = page.crop(box).to_image(resolution=200).original
            text = join_lines(engine.read(rendered))
            if text:
                texts.append(text)
        return "\n".join(texts)
