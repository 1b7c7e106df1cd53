"""Shared steps of the Office loaders: the extra's import, a guarded open, LibreOffice conversion.

:func:`load_office` opens an Office Open XML file only after
:func:`~ragkit.loaders._zip_guard.open_zip` (zip-bomb bounds, encrypted or legacy
OLE files refused) and :func:`~ragkit.loaders._zip_guard.check_xml_members` (no
entity declarations) have passed, then hands the path to the format library and
turns whatever it raises into a :class:`~ragkit.errors.LoaderError` naming the file;
:func:`load_office_zip` hands the checked, open zip instead (the Word loader reads its parts
from it and checks each XML part it reads).

:func:`convert_with_soffice` turns a legacy ``.doc``/``.ppt`` into ``.docx``/``.pptx``
with LibreOffice (``soffice --headless --convert-to``) in a temporary folder, with a
timeout; without LibreOffice it raises a LoaderError that says how to install it.

Example:
    >>> import_extra("json", "json").__name__
    'json'
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._zip_guard import ZipLimits, check_xml_members, open_zip

EXTRA = "documents"


def import_extra(module: str, package: str, extra: str = EXTRA) -> Any:
    """Import ``module`` or raise a ConfigurationError naming ``pip install 'ragkit[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ConfigurationError(
            f"this loader needs the {package!r} package: pip install 'ragkit[{extra}]'"
        ) from e


def load_office(
    name: str, kind: str, opener: Callable[[str], Any], max_file_size: int | None, limits: ZipLimits
) -> Any:
    """``opener(name)`` after the safety checks; any failure is a LoaderError naming ``name``."""
    with open_zip(name, kind=kind, limits=limits, max_file_size=max_file_size) as zf:
        check_xml_members(zf, name)
    with _damage_named(name, kind):
        return opener(name)


def load_office_zip(
    name: str,
    kind: str,
    opener: Callable[[zipfile.ZipFile], Any],
    max_file_size: int | None,
    limits: ZipLimits,
) -> Any:
    """:func:`load_office` for a library read through the zip ragkit opened: ``opener(zf)``
    after :func:`~ragkit.loaders._zip_guard.open_zip`'s checks. The opener checks each XML
    member it reads (:func:`~ragkit.loaders._zip_guard.check_xml_bytes`) instead of
    :func:`~ragkit.loaders._zip_guard.check_xml_members` reading every one first."""
    with open_zip(name, kind=kind, limits=limits, max_file_size=max_file_size) as zf:
        with _damage_named(name, kind):
            return opener(zf)


@contextmanager
def _damage_named(name: str, kind: str) -> Iterator[None]:
    """Whatever a format library raises becomes a LoaderError naming ``name`` (ours pass)."""
    try:
        yield
    except LoaderError:
        raise
    except Exception as e:  # the libraries raise KeyError, ValueError, lxml errors ... on damage
        raise LoaderError(
            f"{name} is not a readable {kind} file (damaged or truncated?): {type(e).__name__}: {e}",
            name,
        ) from e


SOFFICE_TIMEOUT = 120.0
"""Seconds a LibreOffice conversion may take before it is stopped."""


def soffice_path() -> str | None:
    """LibreOffice's ``soffice`` (or ``libreoffice``) on PATH, or None."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def convert_with_soffice(
    name: str, target: str, out_dir: str, timeout: float = SOFFICE_TIMEOUT
) -> str:
    """Convert ``name`` to format ``target`` (``"docx"``, ``"pptx"``) in ``out_dir``; the new path.

    Raises:
        LoaderError: LibreOffice is not installed (says how to install it), timed out,
            or could not convert the file.
    """
    soffice = soffice_path()
    ext = os.path.splitext(name)[1].lower()
    if soffice is None:
        raise LoaderError(
            f"{name}: a legacy {ext} file is read by converting it with LibreOffice, which is "
            "not installed (no 'soffice' on PATH). Install it (e.g. apt-get install "
            f"libreoffice-writer-nogui libreoffice-impress-nogui), or save the file as .{target} "
            "and load that",
            name,
        )
    profile = tempfile.mkdtemp(prefix="ragkit-soffice-profile-")
    try:
        command = [
            soffice,
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--norestore",
            "--convert-to",
            target,
            "--outdir",
            out_dir,
            os.path.abspath(name),
        ]
        try:
            done = subprocess.run(
                command, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired as e:
            raise LoaderError(
                f"{name}: LibreOffice did not convert it within {timeout:g} s; not read", name
            ) from e
        except OSError as e:
            raise LoaderError(f"{name}: LibreOffice could not be started: {e}", name) from e
        stem = os.path.splitext(os.path.basename(name))[0]
        converted = os.path.join(out_dir, f"{stem}.{target}")
        if done.returncode != 0 or not os.path.isfile(converted):
            detail = done.stderr.decode("utf-8", "replace").strip()[-300:]
            raise LoaderError(
                f"{name}: LibreOffice could not convert it to .{target} (damaged?): {detail}", name
            )
        return converted
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def check_timeout(timeout: float) -> float:
    """A positive timeout, or a ConfigurationError."""
    if timeout <= 0:
        raise ConfigurationError(f"timeout must be > 0 seconds, got {timeout}")
    return timeout
