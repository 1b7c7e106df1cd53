"""One parsed e-mail message as Documents: headers in metadata, the body as text, attachments.

Shared by :class:`~ragkit.loaders.email_loader.EmailLoader` (``.eml``) and
:class:`~ragkit.loaders.mbox.MboxLoader`. The body is the ``text/plain`` part, else the
``text/html`` part as text (the HTML loader's extraction). A part's bytes are decoded with
its declared charset when that charset exists and fits the bytes (``iso-8859-1`` and
``us-ascii`` read as cp1252, as mail clients do), else with ragkit's detection (BOMs,
UTF-8, UTF-16/32, legacy charsets), so a wrong or unknown declaration costs nothing.

Example:
    >>> from email import message_from_bytes, policy
    >>> raw = b"Subject: Hi\\nFrom: a@example.com\\nDate: Tue, 3 Mar 2026 10:00:00 +0100\\n\\nHello"
    >>> meta = header_metadata(message_from_bytes(raw, policy=policy.default))
    >>> meta["subject"], meta["date"]
    ('Hi', '2026-03-03T10:00:00+01:00')
"""

from __future__ import annotations

import codecs
import mimetypes
from collections.abc import Iterator
from email.message import EmailMessage, Message
from email.utils import parsedate_to_datetime
from typing import Any

from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._decode import decode_bytes, universal_newlines
from ragkit.loaders._mail import Attachments, MailLoader
from ragkit.loaders.base import LoadFailure

HEADERS = (("subject", "subject"), ("from", "from"), ("to", "to"), ("cc", "cc"))
_AS_CP1252 = frozenset(("iso-8859-1", "iso8859-1", "latin-1", "latin1", "us-ascii", "ascii"))


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # a header too broken for the parser's policy
        raw = msg.get_all(name, failobj=[]) if hasattr(msg, "get_all") else []
        value = " ".join(str(v) for v in raw)
    return " ".join(str(value).split()) if value is not None else ""


def iso_date(value: str) -> str:
    """An RFC 2822 date as ISO 8601 (the text itself when it does not parse)."""
    if not value:
        return ""
    try:
        return parsedate_to_datetime(value).isoformat()
    except (TypeError, ValueError, IndexError):
        return value


def with_headers(body: str, meta: dict[str, Any]) -> str:
    """``body`` after a block of the message's ``Subject``, ``From``, ``To``, ``Cc`` and ``Date``
    lines (those that are set), so a search finds a message by what its headers say.

    Example:
        >>> print(with_headers("Hi.", {"subject": "Tyres", "from": "ana@example.com", "to": ""}))
        Subject: Tyres
        From: ana@example.com
        <BLANKLINE>
        Hi.
    """
    lines = [
        f"{label}: {meta[key]}"
        for key, label in (
            ("subject", "Subject"),
            ("from", "From"),
            ("to", "To"),
            ("cc", "Cc"),
            ("date", "Date"),
        )
        if meta.get(key)
    ]
    return "\n".join(lines) + "\n\n" + body if lines else body


def header_metadata(msg: Message) -> dict[str, Any]:
    """``subject``, ``from``, ``to``, ``cc``, ``date`` (ISO 8601) and ``message_id`` ("" when absent)."""
    meta = {key: _header(msg, name) for key, name in HEADERS}
    meta["date"] = iso_date(_header(msg, "date"))
    meta["message_id"] = _header(msg, "message-id")
    return meta


def decode_part(data: bytes, charset: str | None, label: str) -> str:
    """The text of a MIME part's bytes (declared charset if it fits, else detection)."""
    if charset:
        name = charset.strip().strip('"').lower()
        name = "cp1252" if name in _AS_CP1252 else name
        try:
            codecs.lookup(name)
            return universal_newlines(data.decode(name))
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return universal_newlines(decode_bytes(data, label)[0])
    except LoaderError:
        return universal_newlines(data.decode("utf-8", errors="replace"))


def part_bytes(part: Message) -> bytes:
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def body_text(msg: Message, label: str) -> str:
    """The plain-text body, else the HTML body as text ("" when the message has neither)."""
    body: Message | None = None
    if isinstance(msg, EmailMessage):
        body = msg.get_body(preferencelist=("plain", "html"))
    elif not msg.is_multipart():
        body = msg
    if body is None or body.get_content_maintype() != "text":
        return ""
    text = decode_part(part_bytes(body), body.get_content_charset(), label)
    if body.get_content_subtype() == "html":
        from ragkit.loaders.html_loader import html_text

        return html_text(text)[0].strip()
    return text


def _attachments(msg: Message) -> Iterator[tuple[str, Message]]:
    """``(file name, part)`` of each attachment (a name made up when the part has none)."""
    if not isinstance(msg, EmailMessage) or not msg.is_multipart():
        return
    for index, part in enumerate(msg.iter_attachments(), 1):
        ctype = part.get_content_type()
        name = part.get_filename()
        if not name and ctype == "message/rfc822":
            name = f"attachment-{index}.eml"
        elif not name:
            ext = mimetypes.guess_extension(ctype) or ".bin"
            name = f"attachment-{index}{'.txt' if ctype == 'text/plain' else ext}"
        yield name, part


def attachment_names(msg: Message) -> list[str]:
    """The file names of the message's attachments, none of them decoded."""
    return [name for name, _part in _attachments(msg)]


def attachment_parts(msg: Message) -> Iterator[tuple[str, bytes]]:
    """``(file name, bytes)`` of each attachment; an attached message is given as ``.eml``."""
    for name, part in _attachments(msg):
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()
            inner_msg = inner[0] if isinstance(inner, list) and inner else None
            data = inner_msg.as_bytes() if isinstance(inner_msg, Message) else part_bytes(part)
            yield name, data
            continue
        yield name, part_bytes(part)


def message_documents(
    msg: Message, source: str, label: str, loader: MailLoader, extra: dict[str, Any] | None = None
) -> tuple[list[Document], list[LoadFailure]]:
    """The message's Document, then its attachments' Documents, and the failures on the way.

    ``source`` goes in the message's metadata; ``label`` prefixes the attachments' sources
    (``label/report.csv``); ``loader`` says whether attachments are read (within its
    ``nesting``) and whether the header block (:func:`with_headers`) comes before the body.
    Attachments not read are listed by name in ``metadata["attachments"]``.
    """
    meta: dict[str, Any] = {"source": source, **(extra or {}), **header_metadata(msg)}
    if not loader.process_attachments:
        meta["attachments"] = attachment_names(msg)
    body = body_text(msg, label)
    docs = [Document(with_headers(body, meta) if loader.headers else body, metadata=meta)]
    if not loader.process_attachments:
        return docs, []
    limits = loader.nesting.limits
    found = Attachments(label, source, meta["message_id"], loader.nesting, limits, docs)
    for count, (name, data) in enumerate(attachment_parts(msg), 1):
        if not found.room_for(count):
            break
        found.add_data(name, data)
    return found.docs, found.failures
