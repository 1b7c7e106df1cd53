"""What ``ragkit index`` was told: its flags in one frozen object, turned into a write.

Click hands the command its options one keyword each; :class:`IndexFlags` holds them (the
names are the command's parameters) and says what they mean: the engine
(:meth:`IndexFlags.engine_choice`) and the write options, each unset one taken from the
index's ``defaults``, else the built-in default (:meth:`IndexFlags.write_options`).

:func:`reading_options` adds the options of how documents are read
(:class:`~ragkit.loaders.ReadOptions`): ``--password-file`` (the password of encrypted PDF and
Office files; else the ``RAGKIT_DOCUMENT_PASSWORD`` environment variable; never an argument,
never shown), ``--max-ocr-pages``, ``--ocr-time-limit``, ``--max-image-pixels`` and ``--ocr
never`` (also ``RAGKIT_OCR=never``: no OCR at all, each image and scanned page listed instead),
``--no-attachments`` (e-mail attachments not read).

Example:
    >>> flags = IndexFlags(workers=4)
    >>> options = flags.write_options({"glob": ["**/*.md"], "workers": 1}, progress=None)
    >>> options.glob, options.workers, options.cleanup
    (('**/*.md',), 4, 'incremental')
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from ragkit._cli.settings import resolve

if TYPE_CHECKING:
    from ragkit.indexing.options import WriteOptions
    from ragkit.loaders.read_options import ReadOptions


def reading_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Adds ``--password-file``, ``--max-ocr-pages``, ``--ocr-time-limit``, ``--max-image-pixels``,
    ``--ocr`` and ``--attachments/--no-attachments``."""
    fn = click.option(
        "--attachments/--no-attachments",
        default=None,
        help="--no-attachments: e-mail attachments are not read (each message lists their "
        "names in its metadata) [read, as Documents of their own].",
    )(fn)
    fn = click.option(
        "--ocr",
        type=click.Choice(["auto", "never"], case_sensitive=False),
        envvar="RAGKIT_OCR",
        help="never: no OCR (images and PDF pages without text are listed, not read) [auto].",
    )(fn)
    fn = click.option(
        "--max-image-pixels",
        type=click.IntRange(min=1),
        envvar="RAGKIT_MAX_IMAGE_PIXELS",
        help="Images over this many pixels are refused before they are decoded [89478485].",
    )(fn)
    fn = click.option(
        "--ocr-time-limit",
        type=click.FloatRange(min=0, min_open=True),
        envvar="RAGKIT_OCR_TIME_LIMIT",
        help="Seconds of OCR per PDF file; the pages left are listed in the report [600].",
    )(fn)
    fn = click.option(
        "--max-ocr-pages",
        type=click.IntRange(min=1),
        envvar="RAGKIT_MAX_OCR_PAGES",
        help="Pages read by OCR per file (scanned PDF pages, TIFF pages); the others are "
        "listed in the report [100].",
    )(fn)
    fn = click.option(
        "--password-file",
        envvar="RAGKIT_PASSWORD_FILE",
        type=click.Path(dir_okay=False),
        help="A file holding the password of encrypted PDF and Word/Excel/PowerPoint files "
        "(else RAGKIT_DOCUMENT_PASSWORD); never shown.",
    )(fn)
    return fn


@dataclass(frozen=True)
class IndexFlags:
    """The options of ``ragkit index`` (``None``: not given on the command line)."""

    glob: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    splitter: str | None = None
    chunk_size: int | None = None
    chunk_overlap: int | None = None
    embedding: str | None = None
    cleanup: str | None = None
    workers: int | None = None
    rebuild: bool = False
    lock_timeout: float = 30.0
    max_file_size: str | None = None
    batch_size: int | None = None
    engine: str = "local"
    address: str | None = None
    actors: int = 1
    gpus_per_actor: float = 0.0
    cpus_per_actor: float | None = None
    as_json: bool = False
    dry_run: bool = False
    quiet: bool = False
    contextualize: str | None = None
    password_file: str | None = None
    max_ocr_pages: int | None = None
    ocr_time_limit: float | None = None
    max_image_pixels: int | None = None
    ocr: str | None = None
    attachments: bool | None = None

    def reading(self) -> ReadOptions | None:
        """The password (read from ``--password-file``, else ``RAGKIT_DOCUMENT_PASSWORD``) and
        the OCR bounds; ``None`` when none is given."""
        from ragkit.loaders.read_options import (
            PASSWORD_VARIABLE,
            ReadOptions,
            read_password_file,
        )

        if self.password_file:
            password: str | None = read_password_file(self.password_file)
        else:
            password = os.environ.get(PASSWORD_VARIABLE) or None
        bounds = (self.max_ocr_pages, self.ocr_time_limit, self.max_image_pixels)
        never = (self.ocr or "").lower() == "never"
        given = (password, *bounds, self.attachments)
        if all(value is None for value in given) and not never:
            return None
        return ReadOptions(
            password, *bounds, ocr="never" if never else None, attachments=self.attachments
        )

    def engine_choice(self) -> Any:
        """``"local"``, or a :class:`~ragkit.indexing.RayEngine` made from the Ray flags."""
        if self.engine != "ray":
            return self.engine
        from ragkit.indexing.ray.engine import RayEngine

        return RayEngine(
            self.address,
            actors=self.actors,
            gpus_per_actor=self.gpus_per_actor,
            cpus_per_actor=self.cpus_per_actor,
        )

    def write_options(
        self,
        defaults: dict[str, Any],
        progress: Callable[..., None] | None,
        engine: Any = "local",
    ) -> WriteOptions:
        """The write's options: a flag, else the index's ``defaults``, else built in."""
        from ragkit.indexing.options import WriteOptions

        return WriteOptions(
            glob=resolve(self.glob, defaults, "glob", ()),
            exclude=resolve(self.exclude, defaults, "exclude", ()),
            cleanup=resolve(self.cleanup, defaults, "cleanup", "incremental"),
            workers=int(resolve(self.workers, defaults, "workers", 2)),
            rebuild=self.rebuild,
            lock_timeout=self.lock_timeout,
            progress=progress,
            max_file_size=resolve(self.max_file_size, defaults, "max_file_size", "100MiB"),
            batch_size=self.batch_size or 512,
            engine=engine,
            reading=self.reading(),
        )
