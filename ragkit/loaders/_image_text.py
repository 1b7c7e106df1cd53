"""The words an image file carries besides its pixels: title, description, comment ...

A photo has no text for OCR to find, but its file often says what it shows: PNG text
chunks (``tEXt``, ``zTXt``, ``iTXt``: ``Title``, ``Description``, ``Comment`` ...),
the comment of a JPEG or GIF, and EXIF tags (``ImageDescription``, ``Artist``, the
Exif ``UserComment`` and Windows' ``XPTitle``, ``XPComment``, ``XPSubject``,
``XPKeywords``, ``XPAuthor``). :func:`image_fields` gathers them by field name (two
different values of one field are joined by ``; ``; a value already seen is dropped),
and :func:`fields_text` writes them as ``Title: ...`` lines. ``author`` is kept for
metadata only; technical tags (camera, software, dates, raw profiles) are not read, nor
is a comment that only names the program that wrote the file (``File written by Adobe
Photoshop 4.0``, ``Created with GIMP``, ``CREATOR: gd-jpeg v1.0``), nor XMP.

Example:
    >>> import io
    >>> from PIL import Image, PngImagePlugin
    >>> info = PngImagePlugin.PngInfo()
    >>> info.add_text("Title", "Harbour at dawn")
    >>> info.add_itxt("Description", "Fishing boats, Ålesund", lang="en")
    >>> info.add_text("Software", "GIMP 2.10")
    >>> buffer = io.BytesIO()
    >>> Image.new("RGB", (8, 8)).save(buffer, "PNG", pnginfo=info)
    >>> fields = image_fields(Image.open(buffer))
    >>> fields
    {'title': 'Harbour at dawn', 'description': 'Fishing boats, Ålesund'}
    >>> print(fields_text(fields))
    Title: Harbour at dawn
    Description: Fishing boats, Ålesund
"""

from __future__ import annotations

import re
from typing import Any

TEXT_FIELDS = ("title", "subject", "description", "comment", "keywords")
"""The fields written as text, in this order (``author`` is metadata only)."""

_INFO_KEYS = {
    "title": "title",
    "subject": "subject",
    "description": "description",
    "comment": "comment",
    "keywords": "keywords",
    "author": "author",
}
_IFD0_TAGS = {
    0x010E: "description",  # ImageDescription
    0x013B: "author",  # Artist
    0x9C9B: "title",  # XPTitle (UTF-16LE)
    0x9C9C: "comment",  # XPComment
    0x9C9D: "author",  # XPAuthor
    0x9C9E: "keywords",  # XPKeywords
    0x9C9F: "subject",  # XPSubject
}
_XP_TAGS = frozenset(range(0x9C9B, 0x9CA0))
_EXIF_IFD = 0x8769
_USER_COMMENT = 0x9286
_MAX_CHARS = 10_000
_SIGNATURE = re.compile(
    r"^(file\s+)?(written|created|generated|made|saved|edited|produced)\s+(by|with|using)\s"
    r"|^creator:\s",
    re.IGNORECASE,
)


def image_fields(image: Any) -> dict[str, str]:
    """``{field: text}`` from an open Pillow image's text chunks, comment and EXIF tags."""
    found: dict[str, str] = {}
    for key, value in image.info.items():
        field = _INFO_KEYS.get(str(key).strip().lower())
        if field:
            _add(found, field, _decode(value))
    try:
        exif = image.getexif()
        endian = getattr(exif, "endian", None) or "<"
        for tag, field in _IFD0_TAGS.items():
            if tag in exif:
                value = exif[tag]
                _add(found, field, _xp(value) if tag in _XP_TAGS else _decode(value))
        user_comment = exif.get_ifd(_EXIF_IFD).get(_USER_COMMENT)
        if user_comment is not None:
            _add(found, "comment", _user_comment(user_comment, endian))
    except Exception:  # damaged EXIF: the text chunks still count, the pixels are still read
        pass
    return found


def fields_text(fields: dict[str, str]) -> str:
    """The text fields as ``Title: ...`` lines ("" when there are none)."""
    return "\n".join(f"{f.capitalize()}: {fields[f]}" for f in TEXT_FIELDS if f in fields)


def _add(found: dict[str, str], field: str, text: str) -> None:
    text = " ".join(text.replace("\x00", " ").split())[:_MAX_CHARS]
    if not text or any(text == v or text in v.split("; ") for v in found.values()):
        return
    if sum(c.isprintable() for c in text) < 0.95 * len(text):
        return  # binary rubbish in a text tag
    if _SIGNATURE.match(text) and len(text) < 80:
        return  # the writing program's signature, not words about the picture
    found[field] = f"{found[field]}; {text}" if field in found else text


def _decode(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(value).decode("cp1252", errors="replace")
    return ""


def _xp(value: Any) -> str:
    """Windows' XP tags: UTF-16LE bytes (Pillow gives bytes or a tuple of byte values)."""
    if isinstance(value, tuple):
        value = bytes(v for v in value if isinstance(v, int) and 0 <= v < 256)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-16-le", errors="replace")
    return _decode(value)


def _user_comment(value: Any, endian: str) -> str:
    """Exif's UserComment: an 8-byte character-code prefix, then the text."""
    if isinstance(value, str):
        return value
    if not isinstance(value, (bytes, bytearray)) or len(value) < 8:
        return ""
    code, body = bytes(value[:8]), bytes(value[8:])
    if code.startswith(b"UNICODE"):
        return body.decode(_utf16(body, endian), errors="replace")
    if code.startswith(b"JIS"):
        return body.decode("iso2022_jp", errors="replace")
    return _decode(body)  # ASCII, or undefined (often UTF-8 or zeros)


def _utf16(body: bytes, endian: str) -> str:
    """The UTF-16 byte order of ``body``: the file's own order, unless the zero bytes of
    Latin text say the writer used the other one (many do).
    """
    even, odd = body[0::2].count(0), body[1::2].count(0)
    if odd > even:
        return "utf-16-le"
    if even > odd:
        return "utf-16-be"
    return "utf-16-be" if endian == ">" else "utf-16-le"
