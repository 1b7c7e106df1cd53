"""The text of a fetched web page: its encoding found as a browser finds it.

In order: the ``encoding`` the caller gave; a byte-order mark; the ``charset`` of
the ``Content-Type`` header; with ``autoset_encoding`` a ``<meta charset>`` (or
``http-equiv``) or XML declaration in the first 4 KiB, else ragkit's detection for
files (UTF-8, BOM-less UTF-16, cp1252; binary content is refused). As in
browsers, the labels ``iso-8859-1``, ``latin-1`` and ``us-ascii`` read as
windows-1252. Bytes that do not fit a declared encoding become U+FFFD instead of
failing the page.

Example:
    >>> decode_page("caf\\u00e9".encode("cp1252"), "u", "text/html; charset=ISO-8859-1")
    ('café', 'cp1252')
    >>> decode_page(b'<meta charset="utf-8"><p>\\xc3\\xa9t\\xc3\\xa9', "u", "text/html")[0][-3:]
    'été'
"""

from __future__ import annotations

import codecs
import re

from ragkit.errors import ConfigurationError
from ragkit.loaders._decode import decode_bytes

_META = re.compile(rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML = re.compile(rb"""^\s*<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""")
_CHARSET = re.compile(r"""charset\s*=\s*["']?([^"';\s]+)""", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_AS_CP1252 = frozenset(("iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "us-ascii", "ascii"))


def _codec(label: str | bytes | None) -> str | None:
    """Python's codec name for a charset label, or None when Python does not know it."""
    if not label:
        return None
    name = label.decode("ascii", "replace") if isinstance(label, bytes) else label
    name = name.strip().lower()
    if name in _AS_CP1252:
        return "cp1252"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_page(
    content: bytes,
    url: str,
    content_type: str,
    encoding: str | None = None,
    autoset_encoding: bool = True,
) -> tuple[str, str]:
    """``(text, encoding used)`` of a page's bytes (see the module docstring for the order)."""
    if encoding is not None:
        try:
            return content.decode(encoding, errors="replace"), encoding
        except LookupError:
            raise ConfigurationError(
                f"encoding={encoding!r} is not an encoding Python knows"
            ) from None
    for bom, name in _BOMS:
        if content.startswith(bom):
            return content.decode(name, errors="replace"), name
    header = _CHARSET.search(content_type or "")
    declared = _codec(header.group(1)) if header else None
    if declared is None and autoset_encoding:
        head = content[:4096]
        found = _META.search(head) or _XML.search(head)
        declared = _codec(found.group(1)) if found else None
    if declared is not None:
        return content.decode(declared, errors="replace"), declared
    if not autoset_encoding:
        return content.decode("utf-8", errors="replace"), "utf-8"
    return decode_bytes(content, url)
