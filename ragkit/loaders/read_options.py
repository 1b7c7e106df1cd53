"""ReadOptions: the document-loading options of one indexing run, applied to each file's loader.

The registry builds every file's loader with its defaults (:mod:`ragkit.loaders.registry`);
``ragkit index`` and :meth:`ragkit.Index.add` may also need a password for encrypted files
and tighter (or looser) OCR bounds. :meth:`ReadOptions.apply` takes the loader the registry
chose and returns it with these options:

- ``password``: opens an encrypted PDF (:class:`~ragkit.loaders.PDFLoader`'s ``password``)
  and a password-protected ``.docx``/``.xlsx``/``.pptx`` (read through
  :class:`~ragkit.loaders.OfficePasswordLoader`). It is never in a repr, a message or a log.
- ``max_ocr_pages`` and ``ocr_time_limit``: how many pages of a PDF without a text layer are
  read by OCR, and for how many seconds per file (the pages beyond are listed in the
  report); ``max_ocr_pages`` also bounds the pages of a multi-page TIFF.
- ``max_pixels``: an image over this many pixels is refused before it is decoded.
- ``ocr``: ``"never"`` reads no image and no PDF page by OCR (each is listed with the reason
  instead); ``"auto"`` or ``None`` leaves it to the loaders. ``RAGKIT_OCR=never`` in the
  environment (:data:`~ragkit.loaders.ocr.OCR_VARIABLE`) does the same for every loader of
  the process, archive members and e-mail attachments included, whatever is set here.
- ``attachments``: ``False`` reads no e-mail attachment (``.eml``, ``.mbox``, ``.msg``: the
  loaders' ``process_attachments=False``; each message keeps their file names in its
  ``attachments`` metadata); ``None`` or ``True`` leaves the loaders' default, which reads
  them as Documents of their own.

``None`` leaves a loader's own default (100 pages, 600 s, Pillow's 89,478,485 pixels).
Archive members and e-mail attachments are read with the defaults.

Example:
    >>> options = ReadOptions(password="s3cret", max_ocr_pages=5)
    >>> options
    ReadOptions(password=***, max_ocr_pages=5, ocr_time_limit=None, max_pixels=None, ocr=None, attachments=None)
    >>> from ragkit.loaders.pdf import PDFLoader
    >>> loader = options.apply(PDFLoader("scan.pdf"))
    >>> loader.ocr_bounds.max_pages, loader.password == "s3cret"
    (5, True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ragkit.errors import ConfigurationError
from ragkit.loaders._modes import check_at_least, check_choice
from ragkit.loaders.base import BaseLoader

PASSWORD_VARIABLE = "RAGKIT_DOCUMENT_PASSWORD"
"""The environment variable ``ragkit index`` reads a document password from."""


def read_password_file(path: str) -> str:
    """The password in ``path`` (its final line break removed); errors name the file only."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise ConfigurationError(f"cannot read the password file {path}: {reason}") from None
    password = text.rstrip("\r\n")
    if not password:
        raise ConfigurationError(f"the password file {path} is empty")
    return password


@dataclass(frozen=True)
class ReadOptions:
    """A password for encrypted files, the OCR bounds and e-mail attachments (see the module
    doc); checked when made."""

    password: str | None = field(default=None, repr=False)
    max_ocr_pages: int | None = None
    ocr_time_limit: float | None = None
    max_pixels: int | None = None
    ocr: Literal["auto", "never"] | None = None
    attachments: bool | None = None

    def __post_init__(self) -> None:
        if self.ocr is not None:
            check_choice("ReadOptions ocr", self.ocr, ("auto", "never"))
        check_at_least("max_ocr_pages", self.max_ocr_pages, 1)
        check_at_least("max_pixels", self.max_pixels, 1)
        if self.ocr_time_limit is not None and not self.ocr_time_limit > 0:
            raise ConfigurationError(f"ocr_time_limit must be > 0, got {self.ocr_time_limit}")

    def __repr__(self) -> str:
        shown = "***" if self.password is not None else "None"
        return (
            f"ReadOptions(password={shown}, max_ocr_pages={self.max_ocr_pages}, "
            f"ocr_time_limit={self.ocr_time_limit}, max_pixels={self.max_pixels}, "
            f"ocr={self.ocr!r}, attachments={self.attachments})"
        )

    def apply(self, loader: BaseLoader) -> BaseLoader:
        """``loader`` (made by the registry for one file) with these options."""
        from ragkit.loaders._mail import MailLoader
        from ragkit.loaders.image import ImageLoader
        from ragkit.loaders.pdf import PDFLoader

        if isinstance(loader, MailLoader):
            if self.attachments is False:
                loader.process_attachments = False
        elif isinstance(loader, PDFLoader):
            if self.password is not None and loader.password is None:
                loader.password = self.password
            bounds = loader.ocr_bounds
            loader.ocr_bounds = replace(
                bounds,
                max_pages=self.max_ocr_pages or bounds.max_pages,
                time_limit=self.ocr_time_limit or bounds.time_limit,
            )
            if self.ocr == "never":
                loader.ocr = "never"
        elif isinstance(loader, ImageLoader):
            loader.max_pixels = self.max_pixels or loader.max_pixels
            loader.max_pages = self.max_ocr_pages or loader.max_pages
            if self.ocr == "never":
                loader.ocr = "never"
        elif self.password is not None:
            return self._office(loader)
        return loader

    def _office(self, loader: BaseLoader) -> BaseLoader:
        from ragkit.loaders.office_password import (
            SUPPORTED,
            OfficePasswordLoader,
            is_encrypted_office,
        )
        from ragkit.loaders.registry import file_extension

        path = getattr(loader, "file_path", None)
        if path is None or file_extension(os.fspath(path)) not in SUPPORTED:
            return loader
        name = os.fspath(path)
        if not is_encrypted_office(name):
            return loader
        password = self.password or ""
        size = getattr(loader, "max_file_size", None)
        return OfficePasswordLoader(name, password, max_file_size=size)


__all__ = ["PASSWORD_VARIABLE", "ReadOptions", "read_password_file"]
