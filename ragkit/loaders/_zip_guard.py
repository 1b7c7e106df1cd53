"""Opening zip containers safely: zip-bomb bounds, no entity-declaring XML, clear errors.

Every zip-based format (``.docx``, ``.xlsx``, ``.pptx``, ``.odt``/``.ods``/``.odp``,
``.epub``) and ``.zip`` archives are checked here before any parser sees them:

- :func:`check_zip` reads only the zip's central directory and refuses a file whose
  members would expand past :attr:`ZipLimits.max_total_size`, whose members are
  more than :attr:`ZipLimits.max_members`, or one of whose members is compressed
  more than :attr:`ZipLimits.max_ratio` times (members under
  :attr:`ZipLimits.ratio_floor` bytes are not ratio-checked: a small run of spaces
  compresses a thousandfold harmlessly). Python's :mod:`zipfile` never outputs more
  than a member's declared size, so the directory's sizes bound what is read.
- :func:`check_xml_prolog` reads the start of an XML member up to its root element
  and refuses a DOCTYPE with an internal subset (entity declarations: "billion
  laughs" and external entities); a DOCTYPE naming only a public DTD (as EPUB's
  XHTML does) is allowed, since no parser here ever loads a DTD.
- :func:`open_zip` does both (plus the file checks of every loader) and returns an
  open :class:`zipfile.ZipFile`; :func:`read_member` reads one member under a size cap.

Every refusal is a :class:`~ragkit.errors.LoaderError` that names the file and the
bound, and says which option raises it.

Example:
    >>> import io, os, tempfile, zipfile
    >>> path = os.path.join(tempfile.mkdtemp(), "bomb.zip")
    >>> with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("zeros.txt", b"0" * 50_000_000)
    >>> check_zip(path, ZipLimits(max_ratio=100))
    Traceback (most recent call last):
    ...
    ragkit.errors.LoaderError: ...bomb.zip: member 'zeros.txt' expands ... times its compressed size ...
    >>> len(check_zip(path, ZipLimits(max_ratio=0)))  # 0: no ratio bound
    1
"""

from __future__ import annotations

import codecs
import os
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE, format_size
from ragkit.errors import EncryptedFileError, LoaderError
from ragkit.loaders._files import check_regular

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The first bytes of an OLE compound file: legacy ``.doc``/``.xls``/``.ppt``, and encrypted OOXML."""


@dataclass(frozen=True)
class ZipLimits:
    """Bounds for one zip container (``0`` or ``None`` switches a bound off).

    Attributes:
        max_total_size: the sum of the members' uncompressed sizes (default 1 GiB).
        max_ratio: the largest uncompressed/compressed ratio of one member (default 200;
            real Office XML compresses 5-50 times, a deflate bomb about 1000 times).
        ratio_floor: members smaller than this (default 1 MiB) are not ratio-checked.
        max_members: the number of members (default 10,000).
    """

    max_total_size: int | None = 1 << 30
    max_ratio: float | None = 200.0
    ratio_floor: int = 1 << 20
    max_members: int | None = 10_000


DEFAULT_ZIP_LIMITS = ZipLimits()


DAMAGED_MEMBER = (
    zipfile.BadZipFile,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
    zlib.error,  # a deflate stream that does not decompress (not a BadZipFile)
)
"""What reading a damaged zip member raises."""


def check_zip(
    source: str | os.PathLike[str] | zipfile.ZipFile,
    limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    name: str | None = None,
) -> list[zipfile.ZipInfo]:
    """The members of a zip, after checking ``limits`` against its central directory.

    ``source`` is a path or an open :class:`zipfile.ZipFile`; ``name`` is the name used
    in messages (default: the path). Nothing is decompressed.

    Raises:
        LoaderError: the file is not a zip, or a bound is passed (the message names it).
    """
    if isinstance(source, zipfile.ZipFile):
        label = name or str(source.filename)
        infos = source.infolist()
    else:
        label = name or os.fspath(source)
        try:
            with zipfile.ZipFile(source) as zf:
                infos = zf.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as e:
            raise LoaderError(f"{label} is not a readable zip container: {e}", label) from e
        except OSError as e:
            raise LoaderError(f"{label} cannot be read: {e.strerror or e}", label) from e
    if limits.max_members and len(infos) > limits.max_members:
        raise LoaderError(
            f"{label} holds {len(infos):,} members, over the bound of {limits.max_members:,}; "
            "not read (a zip bomb?). Raise ZipLimits(max_members=...) to load it",
            label,
        )
    total = 0
    for info in infos:
        total += info.file_size
        if limits.max_total_size and total > limits.max_total_size:
            raise LoaderError(
                f"{label} expands to more than {format_size(limits.max_total_size)} "
                "(the sum of its members' sizes); not read (a zip bomb?). "
                "Raise ZipLimits(max_total_size=...) to load it",
                label,
            )
        if limits.max_ratio and info.file_size >= limits.ratio_floor:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_ratio:
                raise LoaderError(
                    f"{label}: member {info.filename!r} expands {ratio:,.0f} times its "
                    f"compressed size ({format_size(info.file_size)}), over the bound of "
                    f"{limits.max_ratio:g}; not read (a zip bomb?). "
                    "Raise ZipLimits(max_ratio=...) to load it",
                    label,
                )
    return infos


def refuse_ole(path: str, head: bytes, kind: str) -> None:
    """Raise the right error when a file that should be a zip (``kind``: "Word") is OLE.

    An OOXML file encrypted with a password is an OLE compound file holding an
    ``EncryptedPackage`` stream; any other OLE file is a legacy binary document.
    """
    if not head.startswith(OLE_MAGIC):
        return
    with open(path, "rb") as f:
        data = f.read(64 << 20)
    if "EncryptedPackage".encode("utf-16-le") in data:
        raise EncryptedFileError(
            f"{path} is a password-protected (encrypted) {kind} file; it is read only with its "
            "password: OfficePasswordLoader(path, password) (ragkit.loaders), `ragkit index "
            "--password-file FILE`, or remove the password in the application that wrote it",
            path,
        )
    raise LoaderError(
        f"{path} is a legacy binary (OLE) {kind} file, not Office Open XML; give it its legacy "
        "extension (.doc, .xls, .ppt) so it is converted through LibreOffice",
        path,
    )


def open_zip(
    path: str | os.PathLike[str],
    *,
    kind: str = "zip",
    limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> zipfile.ZipFile:
    """An open, checked :class:`zipfile.ZipFile` for ``path`` (close it, or use ``with``).

    Checks that ``path`` is a regular file within ``max_file_size``, that it is not an
    encrypted or legacy OLE document (``kind`` names the format in messages, e.g.
    ``"Word"``), that it is a zip, and :func:`check_zip`'s ``limits``. Members that
    are themselves encrypted are refused with :class:`~ragkit.errors.EncryptedFileError`.
    """
    name = os.fspath(path)
    check_regular(name, max_file_size)
    try:
        with open(name, "rb") as f:
            head = f.read(8)
    except OSError as e:
        raise LoaderError(f"{name} cannot be read: {e.strerror or e}", name) from e
    refuse_ole(name, head, kind)
    try:
        zf = zipfile.ZipFile(name)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as e:
        what = "zip archive" if kind == "zip" else f"{kind} file"
        raise LoaderError(
            f"{name} is not a readable {what} (damaged or truncated?): {e}", name
        ) from e
    except OSError as e:
        raise LoaderError(f"{name} cannot be read: {e.strerror or e}", name) from e
    try:
        infos = check_zip(zf, limits, name)
        if any(info.flag_bits & 0x1 for info in infos):
            raise EncryptedFileError(f"{name} has password-protected members; not read", name)
    except BaseException:
        zf.close()
        raise
    return zf


def read_member(zf: zipfile.ZipFile, member: str, name: str, max_size: int | None = None) -> bytes:
    """The bytes of ``member`` (at most ``max_size``), or a LoaderError naming ``name``."""
    try:
        info = zf.getinfo(member)
    except KeyError as e:
        raise LoaderError(
            f"{name} has no member {member!r} (damaged or not this format?)", name
        ) from e
    if max_size and info.file_size > max_size:
        raise LoaderError(
            f"{name}: member {member!r} is {format_size(info.file_size)}, over {format_size(max_size)}",
            name,
        )
    try:
        return zf.read(info)
    except DAMAGED_MEMBER as e:
        raise LoaderError(f"{name}: member {member!r} cannot be read (damaged?): {e}", name) from e


_PROLOG_FIRST = 1 << 10
_PROLOG_READ = 1 << 14


def check_xml_prolog(zf: zipfile.ZipFile, member: str, name: str) -> None:
    """Refuse ``member`` if its prolog has a DOCTYPE with an internal subset (entity declarations).

    Only the prolog is read (the XML declaration, comments and processing instructions
    before the root element), so the cost is a few bytes per member.
    """
    try:
        with zf.open(member) as f:
            declares = _declares_entities(f.read(_PROLOG_FIRST), lambda: f.read(_PROLOG_READ))
    except DAMAGED_MEMBER as e:
        raise LoaderError(f"{name}: member {member!r} cannot be read (damaged?): {e}", name) from e
    if declares:
        raise _entities_refused(name, member)


def check_xml_bytes(data: bytes, member: str, name: str) -> None:
    """:func:`check_xml_prolog` on a member's bytes already read (``data``).

    Example:
        >>> check_xml_bytes(b'<?xml version="1.0"?><w:document/>', "word/document.xml", "a.docx")
        >>> check_xml_bytes(b'<!DOCTYPE d [<!ENTITY x "y">]><d>&x;</d>', "d.xml", "a.docx")
        Traceback (most recent call last):
        ...
        ragkit.errors.LoaderError: a.docx: d.xml declares XML entities (a DOCTYPE with an internal subset); refused: entity expansion and external entities are an attack (billion laughs, XXE)
    """
    chunks = iter(range(_PROLOG_FIRST, len(data), _PROLOG_READ))

    def more() -> bytes:
        start = next(chunks, None)
        return b"" if start is None else data[start : start + _PROLOG_READ]

    if _declares_entities(data[:_PROLOG_FIRST], more):
        raise _entities_refused(name, member)


def _declares_entities(start: bytes, more: Callable[[], bytes]) -> bool:
    """Whether the prolog starting with ``start`` (``more()`` gives the next bytes, ``b""`` at
    the end) has a DOCTYPE with an internal subset."""
    decoder: codecs.IncrementalDecoder
    if start.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or b"\x00" in start[:4]:
        decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    else:  # the markup of the prolog is ASCII in every ASCII-compatible encoding
        decoder = codecs.getincrementaldecoder("latin-1")()
    text = decoder.decode(start)
    while True:
        verdict = _prolog_verdict(text)
        if verdict is not None:
            return verdict
        chunk = more()
        if not chunk:
            return False
        text += decoder.decode(chunk)


def _entities_refused(name: str, member: str) -> LoaderError:
    return LoaderError(
        f"{name}: {member} declares XML entities (a DOCTYPE with an internal subset); "
        "refused: entity expansion and external entities are an attack (billion laughs, XXE)",
        name,
    )


def _prolog_verdict(text: str) -> bool | None:
    """True: an internal DTD subset; False: the root element starts first; None: read more."""
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in "\ufeff \t\r\n":
            i += 1
        if i >= n:
            return None
        if text.startswith("<?", i):
            end, skip = text.find("?>", i), 2
        elif text.startswith("<!--", i):
            end, skip = text.find("-->", i), 3
        elif text.startswith("<!DOCTYPE", i) or text.startswith("<!doctype", i):
            end = text.find(">", i)
            bracket = text.find("[", i)
            if bracket != -1 and (end == -1 or bracket < end):
                return True
            if end == -1:
                return None
            i = end + 1
            continue
        elif text.startswith("<", i) and i + 1 < n:
            return False
        elif i + 1 >= n:
            return None
        else:  # text before the root: not XML, the parser will say so
            return False
        if end == -1:
            return None
        i = end + skip


def check_xml_members(
    zf: zipfile.ZipFile,
    name: str,
    suffixes: Iterable[str] = (".xml", ".rels", ".xhtml", ".html", ".htm", ".opf", ".ncx"),
) -> None:
    """:func:`check_xml_prolog` on every member whose name ends with one of ``suffixes``."""
    ends = tuple(suffixes)
    for info in zf.infolist():
        if info.filename.lower().endswith(ends) and not info.is_dir():
            check_xml_prolog(zf, info.filename, name)
