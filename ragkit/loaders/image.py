"""ImageLoader: the text of an image by OCR (the ``ocr`` extra), one Document per page.

Reads ``.png``, ``.jpg``/``.jpeg``, ``.tif``/``.tiff``, ``.bmp``, ``.gif`` and
``.webp`` with Pillow and reads their text with :class:`~ragkit.loaders.ocr.OcrEngine`.
A multi-page TIFF gives one Document per page (``page`` is 0-based, with
``total_pages``), up to ``max_pages``; the pages beyond are recorded on
``loader.errors``. Of an animated GIF or WebP only the first frame is read. Metadata:
``source``, ``page``, ``total_pages``, ``width``, ``height`` (pixels) and
``ocr_confidence`` (the mean confidence of the lines read; absent when none were).

The words the file itself carries (PNG text chunks, a JPEG/GIF comment, EXIF
``ImageDescription``, ``UserComment``, ``XPTitle`` ...: see ``_image_text``) are in
metadata as ``title``, ``subject``, ``description``, ``comment``, ``keywords`` and
``author``. Where OCR finds no text (a photo), they are the text instead, as
``Title: ...`` lines, and the Document says ``text_source="metadata"``.

Bounds: an image (or TIFF page) over ``max_pixels`` pixels (default: Pillow's
own limit, 89,478,485, e.g. 9,459 x 9,459) is refused with a
:class:`~ragkit.errors.LoaderError` before it is decoded, so a 20,000 x 20,000
image costs nothing; Pillow's decompression-bomb warning never passes silently.

OCR off (``ocr="never"``, or ``RAGKIT_OCR=never`` in the environment for the whole
process): the image is not opened and loading raises a :class:`~ragkit.errors.LoaderError`
that says so (:class:`~ragkit.loaders.DirectoryLoader` records it as the file's reason).

``UnstructuredImageLoader`` is the same loader under LangChain's name and
defaults (``mode="single"``: one Document per file; ``"paged"``; ``"elements"``:
one Document per line of text, with its ``box`` and ``confidence``).

Example:
    >>> import tempfile, os
    >>> from PIL import Image
    >>> path = os.path.join(tempfile.mkdtemp(), "big.png")
    >>> Image.new("1", (3000, 2000)).save(path)
    >>> ImageLoader(path, max_pixels=1_000_000).load()
    Traceback (most recent call last):
    ...
    ragkit.errors.LoaderError: ...big.png is 3000 x 2000 = 6,000,000 pixels, over max_pixels=1,000,000; not read. ...
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from typing import Any, Literal

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._files import check_regular
from ragkit.loaders._image_text import fields_text, image_fields
from ragkit.loaders._modes import check_at_least, check_choice, check_mode
from ragkit.loaders.ocr import (
    INSTALL_HINT,
    OCR_OFF,
    OcrEngine,
    join_lines,
    mean_confidence,
    ocr_available,
    ocr_switched_off,
    shared_engine,
)

IMAGE_EXTENSIONS = frozenset((".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp"))
DEFAULT_MAX_PIXELS = 89_478_485
"""Pillow's own default limit (``PIL.Image.MAX_IMAGE_PIXELS``)."""
_MULTI_PAGE_FORMATS = frozenset(("TIFF",))


class ImageLoader(FileLoader):
    """Load the text of an image file by OCR (``mode="page"``, ``"single"`` or ``"elements"``)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Literal["page", "single", "elements"] = "page",
        *,
        max_pixels: int | None = DEFAULT_MAX_PIXELS,
        max_pages: int | None = 100,
        pages_delimiter: str = "\n\f",
        ocr_engine: OcrEngine | None = None,
        ocr_threads: int | None = None,
        ocr: Literal["auto", "never"] = "auto",
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        check_mode("ImageLoader", mode, ("page", "single", "elements"))
        check_choice("ImageLoader ocr", ocr, ("auto", "never"))
        self.ocr = ocr
        check_at_least("max_pixels", max_pixels, 1)
        check_at_least("max_pages", max_pages, 1)
        self.mode = mode
        self.max_pixels = max_pixels
        self.max_pages = max_pages
        self.pages_delimiter = pages_delimiter
        self.ocr_engine = ocr_engine
        self.ocr_threads = ocr_threads

    def _engine(self) -> OcrEngine:
        return self.ocr_engine or shared_engine(self.ocr_threads)

    def _check_pixels(self, name: str, size: tuple[int, int], page: int, pages: int) -> None:
        pixels = size[0] * size[1]
        if self.max_pixels is not None and pixels > self.max_pixels:
            where = f"{name} page {page}" if pages > 1 else name
            raise LoaderError(
                f"{where} is {size[0]} x {size[1]} = {pixels:,} pixels, over "
                f"max_pixels={self.max_pixels:,}; not read. Raise max_pixels= (decoding costs "
                "about 3 bytes a pixel) or downscale the image",
                name,
            )

    def _open(self, name: str) -> Any:
        from PIL import Image

        # UnidentifiedImageError, truncated headers, ...
        with self.reading("image (damaged, or not an image?)"):
            try:
                with warnings.catch_warnings():
                    # Pillow only warns between its limit and twice it; ragkit checks max_pixels
                    warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                    return Image.open(name)
            except Image.DecompressionBombError as e:
                raise LoaderError(
                    f"{name} is too large to decode (over max_pixels="
                    f"{self.max_pixels or 0:,} and Pillow's decompression-bomb limit: {e}); not "
                    "read. Raise max_pixels= and PIL.Image.MAX_IMAGE_PIXELS, or downscale the image",
                    name,
                ) from e

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        check_regular(name, self.max_file_size)
        if self.ocr == "never" or ocr_switched_off():
            why = "OCR is off (ocr='never')" if self.ocr == "never" else OCR_OFF
            raise LoaderError(f"{name} is an image: its text is read by OCR, and {why}", name)
        if not ocr_available():
            raise LoaderError(
                f"{name} is an image: reading its text needs OCR: {INSTALL_HINT}", name
            )
        engine = self._engine()
        with self._open(name) as image:
            frames = getattr(image, "n_frames", 1) if image.format in _MULTI_PAGE_FORMATS else 1
            pages = frames if self.max_pages is None else min(frames, self.max_pages)
            if pages < frames:
                unread = f"page {pages}" if pages == frames - 1 else f"pages {pages}-{frames - 1}"
                self._record(
                    name,
                    f"{unread} not read: the image has {frames} pages, over "
                    f"max_pages={self.max_pages} (raise it to read them)",
                )
            base: dict[str, Any] = {"source": str(self.file_path), "total_pages": frames}
            texts: list[str] = []
            lines_all: list[Any] = []
            described = ""
            for page in range(pages):
                if page:
                    try:
                        image.seek(page)
                    except Exception as e:  # a damaged page table: keep the pages read so far
                        self._record(name, f"page {page}: {type(e).__name__}: {e}", e)
                        break
                self._check_pixels(name, image.size, page, frames)
                try:
                    rgb = image.convert("RGB")
                    lines = engine.read(rgb)
                except LoaderError:
                    raise
                except Exception as e:  # one damaged page must not lose the others
                    self._record(name, f"page {page}: {type(e).__name__}: {e}", e)
                    lines = []
                if page == 0:  # text chunks after the pixels are known once they are read
                    fields = image_fields(image)
                    base.update(fields)
                    described = fields_text(fields)
                size = {"width": image.size[0], "height": image.size[1]}
                if self.mode == "elements":
                    lines_all.extend(lines)
                    for line in lines:
                        meta = {**base, "page": page, **size, "category": "UncategorizedText"}
                        meta.update(box=[list(p) for p in line.box], confidence=line.confidence)
                        yield Document(line.text, metadata=meta)
                    continue
                if self.mode == "single":
                    texts.append(join_lines(lines))
                    lines_all.extend(lines)
                    continue
                meta = {**base, "page": page, **size}
                confidence = mean_confidence(lines)
                if confidence is not None:
                    meta["ocr_confidence"] = confidence
                text = join_lines(lines)
                if page == 0 and described and not text.strip():
                    text, meta["text_source"] = described, "metadata"
                yield Document(text, metadata=meta)
            if self.mode == "single":
                meta = {**base, "width": image.size[0], "height": image.size[1]}
                confidence = mean_confidence(lines_all)
                if confidence is not None:
                    meta["ocr_confidence"] = confidence
                text = self.pages_delimiter.join(texts)
                if described and not text.strip():
                    text, meta["text_source"] = described, "metadata"
                yield Document(text, metadata=meta)
            elif self.mode == "elements" and described and not lines_all:
                meta = {**base, "page": 0, "category": "UncategorizedText"}
                yield Document(described, metadata={**meta, "text_source": "metadata"})


_MODES = {"single": "single", "paged": "page", "page": "page", "elements": "elements"}


class UnstructuredImageLoader(ImageLoader):
    """:class:`ImageLoader` with LangChain's name and ``mode="single"`` default (no Unstructured).

    ``mode``: ``"single"`` (one Document per file), ``"paged"`` (one per page) or
    ``"elements"`` (one per line of text). Unstructured's own keyword arguments
    (``strategy=`` ...) have no meaning here and are refused by name; ragkit's
    (``max_pixels=``, ``ocr_threads=`` ...) are accepted.
    """

    def __init__(
        self, file_path: str | os.PathLike[str], mode: str = "single", **kwargs: Any
    ) -> None:
        if mode not in _MODES:
            raise ConfigurationError(
                f"UnstructuredImageLoader mode must be 'single', 'paged' or 'elements', got {mode!r}"
            )
        allowed = {"max_pixels", "max_pages", "pages_delimiter", "ocr_engine", "ocr_threads", "ocr"}
        unknown = sorted(set(kwargs) - allowed - {"max_file_size"})
        if unknown:
            raise ConfigurationError(
                f"UnstructuredImageLoader does not take {', '.join(unknown)} (Unstructured's "
                f"options); it reads images with ragkit's OCR and takes {', '.join(sorted(allowed))}"
            )
        super().__init__(file_path, _MODES[mode], **kwargs)  # type: ignore[arg-type]
