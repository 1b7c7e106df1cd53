"""Reading text files whose encoding is not known: BOMs, UTF-8, UTF-16/32, detected charsets, cp1252.

The order: a UTF-8/16/32 byte-order mark; UTF-8; BOM-less UTF-32 and UTF-16 (NUL bytes
in the places ASCII text in those encodings has them); binary content refused; then
charset-normalizer (installed with ``ragkit[documents]``, and with most environments)
picks the encoding of legacy text. Its guess is taken when it is a multi-byte encoding
(Shift JIS, GB18030, Big5, EUC-KR ...) or a non-Latin single-byte one (cp1251, KOI8-R,
Greek, Hebrew, Arabic, Thai); Western text, where many single-byte code pages fit the
bytes equally well, is read as cp1252 (latin-1 for the bytes cp1252 leaves undefined).

Example:
    >>> decode_bytes(b"caf\\xe9", "x.txt")
    ('café', 'cp1252')
    >>> decode_bytes("日本語のテキストです。これはテストです。".encode("shift_jis"), "x.txt")[1]
    'cp932'
"""

from __future__ import annotations

import codecs
import os
import re

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.errors import LoaderError, UnsupportedFileError
from ragkit.loaders._files import read_bytes

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le'/'utf-16-be' when NUL bytes sit at every other position (mostly-ASCII UTF-16)."""
    sample = data[:4096]
    if len(sample) < 2 or len(sample) % 2:
        return None
    even, odd = sample[0::2], sample[1::2]
    half = len(sample) // 2
    if odd.count(0) > 0.6 * half and even.count(0) < 0.1 * half:
        return "utf-16-le"
    if even.count(0) > 0.6 * half and odd.count(0) < 0.1 * half:
        return "utf-16-be"
    return None


def _utf32_without_bom(data: bytes) -> str | None:
    """'utf-32-le'/'utf-32-be' when the two high bytes of (nearly) every code unit are NUL."""
    sample = data[:4096]
    if len(sample) < 8 or len(sample) % 4:
        return None
    quarter = len(sample) // 4
    lanes = [sample[i::4].count(0) for i in range(4)]
    full = 0.95 * quarter
    if lanes[3] == quarter and lanes[2] >= full and lanes[0] < 0.1 * quarter:
        return "utf-32-le"
    if lanes[0] == quarter and lanes[1] >= full and lanes[3] < 0.1 * quarter:
        return "utf-32-be"
    return None


# charset-normalizer guesses taken (see the module docstring): multi-byte encodings, and
# non-Latin single-byte ones when most letters are non-ASCII (a Western text with a few
# accents fits cp1251 as well as cp1252: its letters are mostly ASCII)
_MULTI_BYTE = re.compile(r"cp932|shift_jis.*|euc_.*|iso2022.*|gb.*|hz|big5.*|cp949|cp950|johab")
_NON_LATIN = re.compile(
    r"cp1251|cp1253|cp1255|cp1256|cp874|koi8.*|mac_cyrillic|mac_greek|iso8859_[5678]|tis_620|"
    r"cp866|cp855"
)
_ASCII_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))
_HIGH = bytes(range(128, 256))


def detect_legacy(data: bytes) -> str | None:
    """The encoding charset-normalizer finds for non-UTF text when it is one to trust, else None."""
    try:
        from charset_normalizer import from_bytes
    except ImportError:
        return None
    sample = data[:262144]
    high = len(sample) - len(sample.translate(None, _HIGH))
    if high < 4:
        return None
    best = from_bytes(sample).best()
    if best is None:
        return None
    if not _MULTI_BYTE.fullmatch(best.encoding):
        letters = len(sample) - len(sample.translate(None, _ASCII_LETTERS))
        if not (_NON_LATIN.fullmatch(best.encoding) and high > letters):
            return None
    try:
        data.decode(best.encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    return str(best.encoding)


def universal_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` as ``\\n``, as Python's text mode (and LangChain's loaders) read them."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = text.replace("\r", "\n")
    return text


def decode_bytes(
    data: bytes, path: str, encoding: str | None = None, autodetect: bool = True
) -> tuple[str, str]:
    """Decode ``data`` (read from ``path``): returns ``(text, encoding used)``.

    Raises:
        UnsupportedFileError: the bytes look binary (NUL bytes in a non-UTF-16 file).
        LoaderError: ``encoding`` (or UTF-8 without ``autodetect``) does not decode the file.
    """
    if encoding is not None:
        try:
            return data.decode(encoding), encoding
        except (UnicodeDecodeError, LookupError) as e:
            raise LoaderError(
                f"{path} is not valid {encoding} ({e}); pass the right encoding= or encoding=None "
                "to detect it",
                path,
            ) from e
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(name), name
            except UnicodeDecodeError as e:
                raise LoaderError(
                    f"{path} starts with a {name} byte-order mark but does not decode: {e}", path
                ) from e
    try:
        text: str | None = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if not autodetect:
            raise LoaderError(
                f"{path} is not valid UTF-8 ({e}); pass encoding= or autodetect_encoding=True", path
            ) from e
        text = None
    if text is not None and b"\x00" not in data:
        return text, "utf-8"
    for wide in (_utf32_without_bom(data), _utf16_without_bom(data)):
        if wide is not None:
            try:
                return data.decode(wide), wide
            except UnicodeDecodeError:
                pass
    if _looks_binary(data[:8192]):
        raise UnsupportedFileError(
            f"{path} looks like a binary file, not text; it was not loaded", path
        )
    if text is not None:
        return text, "utf-8"
    legacy = detect_legacy(data)
    if legacy is not None:
        return data.decode(legacy), legacy
    for name in ("cp1252", "latin-1"):
        try:
            return data.decode(name), name
        except UnicodeDecodeError:
            continue
    raise LoaderError(f"{path}: no encoding fits", path)  # unreachable: latin-1 decodes anything


_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13))


def _looks_binary(sample: bytes) -> bool:
    """NUL bytes, or more than 10% control characters, in the first bytes."""
    if b"\x00" in sample:
        return True
    controls = len(sample) - len(sample.translate(None, _CONTROL))
    return controls > 0.1 * max(len(sample), 1)


def refuse_binary_head(head: bytes, path: str) -> None:
    """Raise UnsupportedFileError if the first bytes of a file already show it is binary.

    Mirrors :func:`decode_bytes` (same BOM, UTF-16 and NUL-byte rules on the same first
    8 KiB), so a file refused here is one ``decode_bytes`` would refuse after reading it all.
    """
    if b"\x00" not in head or any(head.startswith(bom) for bom, _ in _BOMS):
        return
    if _utf16_without_bom(head) is not None or _utf32_without_bom(head) is not None:
        return
    raise UnsupportedFileError(
        f"{path} looks like a binary file, not text; it was not loaded", path
    )


def read_and_decode(
    path: str | os.PathLike[str],
    encoding: str | None = None,
    autodetect: bool = True,
    max_size: int | None = DEFAULT_MAX_FILE_SIZE,
) -> tuple[str, str]:
    """Read and decode a text file: ``(text, encoding used)``.

    Binary content is refused from the first 8 KiB (when the encoding is detected), and a file
    over ``max_size`` bytes before it is read.
    """
    name = os.fspath(path)
    sniff = None if encoding is not None else (lambda head: refuse_binary_head(head, name))
    return decode_bytes(read_bytes(name, max_size, sniff), name, encoding, autodetect)
