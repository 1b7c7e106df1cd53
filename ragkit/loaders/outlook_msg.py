"""OutlookMessageLoader: an Outlook ``.msg`` file as a Document, its attachments as their own.

A ``.msg`` is an OLE2 compound file of MAPI properties ([MS-OXMSG]); it is read with
``olefile`` (BSD licence; ``pip install 'ragkit[documents]'``), not extract-msg (GPL).
String properties are the ``__substg1.0_XXXX001F`` (UTF-16) or ``XXXX001E`` (8-bit, in the
message's code page) streams: subject ``0037``, plain body ``1000``, HTML body ``1013``
(used when there is no plain body), sender ``0C1A``/``0C1F``, to ``0E04``, cc ``0E03``,
the Internet headers ``007D`` (their ``Date`` and ``Message-ID``) and ``1035`` (the
message id); the date otherwise comes from the client-submit time in the
``__properties_version1.0`` stream. Attachments are the ``__attach_version1.0_#N``
storages (``3707`` long file name, ``3701`` data); an attached Outlook message is read
as a message of its own. With ``process_attachments=False`` only the name streams are read
(``metadata["attachments"]``), as LangChain's loader, which skips attachments. Metadata as :class:`~ragkit.loaders.email_loader.EmailLoader`
(``subject``, ``from``, ``to``, ``cc``, ``date``, ``message_id``) plus LangChain's
``sender``. A body kept only as compressed RTF is not read (an empty body).

Example:
    >>> OutlookMessageLoader("missing.msg").lazy_load().__next__()
    Traceback (most recent call last):
    ...
    ragkit.errors.LoaderError: missing.msg does not exist (was it removed while loading?)
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import struct
from collections.abc import Callable, Iterator
from email import policy
from email.parser import HeaderParser
from typing import Any

from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._archive_limits import Nesting
from ragkit.loaders._files import check_regular
from ragkit.loaders._mail import Attachments, Loaded, MailLoader
from ragkit.loaders._mime import decode_part, iso_date, with_headers

_SUBSTG = "__substg1.0_"
_ATTACH = "__attach_version1.0_#"
_PROPS = "__properties_version1.0"
_SUBMIT_TIME = 0x0039
_CODEPAGES = (0x3FDE, 0x3FFD)  # PR_INTERNET_CPID, PR_MESSAGE_CODEPAGE


def _olefile() -> Any:
    try:
        import olefile
    except ImportError as e:
        raise ImportError(
            "OutlookMessageLoader needs olefile: pip install 'ragkit[documents]'"
        ) from e
    return olefile


class _Message:
    """The MAPI properties of one message (the root, or an attached message's storage)."""

    def __init__(self, ole: Any, prefix: list[str], name: str, header_size: int) -> None:
        # the properties stream's header: 32 bytes for the file's message, 24 for an
        # attached message, 8 for an attachment or a recipient
        self.ole, self.prefix, self.name = ole, prefix, name
        self.header_size = header_size

    @functools.cached_property
    def fixed(self) -> dict[int, Any]:
        """Property id -> value of the 8-byte properties (read when first needed)."""
        return self._fixed_properties()

    @functools.cached_property
    def codepage(self) -> str | None:
        """The code page of the 8-bit string properties (read when one is)."""
        cp = next((self.fixed[c] for c in _CODEPAGES if c in self.fixed), None)
        codepage = f"cp{cp & 0xFFFF}" if isinstance(cp, int) and cp & 0xFFFF else None
        return "utf-8" if codepage == "cp65001" else codepage

    def _stream(self, path: list[str]) -> bytes | None:
        full = self.prefix + path
        if not self.ole.exists("/".join(full)):
            return None
        with self.ole.openstream(full) as stream:
            data: bytes = stream.read()
        return data

    def _fixed_properties(self) -> dict[int, Any]:
        """Property id -> value of the 8-byte properties (integers, times)."""
        data = self._stream([_PROPS]) or b""
        out: dict[int, Any] = {}
        for offset in range(self.header_size, len(data) - 15, 16):
            tag, _flags, value = struct.unpack_from("<IIQ", data, offset)
            prop, kind = tag >> 16, tag & 0xFFFF
            if kind == 0x0040:  # PT_SYSTIME: 100 ns since 1601
                try:
                    out[prop] = dt.datetime(1601, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(
                        microseconds=value // 10
                    )
                except OverflowError:
                    continue
            elif kind == 0x0003:
                out[prop] = value & 0xFFFFFFFF
        return out

    def string(self, prop: int) -> str:
        """A string property ("" when absent)."""
        wide = self._stream([f"{_SUBSTG}{prop:04X}001F"])
        if wide is not None:
            return wide.decode("utf-16-le", errors="replace").rstrip("\x00")
        narrow = self._stream([f"{_SUBSTG}{prop:04X}001E"])
        if narrow is not None:
            return decode_part(narrow.rstrip(b"\x00"), self.codepage, self.name)
        return ""

    def binary(self, prop: int) -> bytes | None:
        return self._stream([f"{_SUBSTG}{prop:04X}0102"])

    def body(self) -> str:
        text = self.string(0x1000)
        if text.strip():
            return text.replace("\r\n", "\n")
        html = self.binary(0x1013)
        html_text = decode_part(html, self.codepage, self.name) if html else self.string(0x1013)
        if html_text.strip():
            from ragkit.loaders.html_loader import html_text as to_text

            return to_text(html_text)[0].strip()
        return ""

    def metadata(self) -> dict[str, Any]:
        headers = HeaderParser(policy=policy.compat32).parsestr(self.string(0x007D) or "\n")
        sender = self.string(0x0C1A)
        address = self.string(0x0C1F) or self.string(0x5D01)
        if address and "@" in address and address not in sender:
            sender = f"{sender} <{address}>" if sender else address
        date = iso_date(str(headers.get("Date") or ""))
        if not date and isinstance(self.fixed.get(_SUBMIT_TIME), dt.datetime):
            date = self.fixed[_SUBMIT_TIME].isoformat()
        return {
            "subject": self.string(0x0037),
            "from": sender or " ".join(str(headers.get("From") or "").split()),
            "to": self.string(0x0E04),
            "cc": self.string(0x0E03),
            "date": date,
            "message_id": self.string(0x1035) or str(headers.get("Message-ID") or "").strip(),
        }

    def attachments(self) -> Iterator[tuple[str, list[str]]]:
        """``(storage name, storage path)`` of each attachment."""
        seen = set()
        for entry in self.ole.listdir(streams=False, storages=True):
            if entry[: len(self.prefix)] != self.prefix or len(entry) != len(self.prefix) + 1:
                continue
            storage = entry[-1]
            if storage.startswith(_ATTACH) and storage not in seen:
                seen.add(storage)
                yield storage, [*self.prefix, storage]

    def attachment_name(self, count: int) -> str:
        """This attachment's file name (long, short or display name; made up when none)."""
        name = self.string(0x3707) or self.string(0x3704) or self.string(0x3001)
        return name or f"attachment-{count}"


class OutlookMessageLoader(MailLoader):
    """Load an Outlook ``.msg`` file: the message, then (``process_attachments=True``, the
    default) its attachments.

    ``OutlookMessageLoader(file_path)`` is LangChain's signature; the arguments are
    :class:`~ragkit.loaders._mail.MailLoader`'s, and the text is the body alone unless
    ``headers=True``. LangChain's loader reads no attachment; ``process_attachments=False``
    does the same (only their names are read, into ``metadata["attachments"]``).
    """

    headers_by_default = False

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        check_regular(name, self.max_file_size)
        olefile = _olefile()
        if not olefile.isOleFile(name):
            raise LoaderError(f"{name} is not an Outlook .msg file (not an OLE2 file)", name)
        try:
            ole = olefile.OleFileIO(name)
        except Exception as e:  # olefile raises assorted errors on damaged files
            raise LoaderError(f"{name} is a damaged .msg file: {e}", name) from e
        try:
            docs, failures = self._message(ole, [], name, name, self.nesting)
        except LoaderError:
            raise
        except Exception as e:
            raise LoaderError(f"{name} is a damaged .msg file: {e}", name) from e
        finally:
            ole.close()
        self._record_all(failures)
        yield from docs

    def _message(
        self, ole: Any, prefix: list[str], source: str, label: str, nesting: Nesting
    ) -> Loaded:
        msg = _Message(ole, prefix, label, 24 if prefix else 32)
        meta = {"source": source, **msg.metadata()}
        meta["sender"] = meta["from"]
        if not self.process_attachments:  # their names only: no data stream is opened
            meta["attachments"] = [
                _Message(ole, path, label, 8).attachment_name(count)
                for count, (_storage, path) in enumerate(msg.attachments(), 1)
            ]
        body = msg.body()
        docs = [Document(with_headers(body, meta) if self.headers else body, metadata=meta)]
        if not self.process_attachments:
            return docs, []
        found = Attachments(label, source, meta["message_id"], nesting, self.limits, docs)
        for count, (_storage, path) in enumerate(msg.attachments(), 1):
            if not found.room_for(count):
                break
            part = _Message(ole, path, label, 8)
            file_name = part.attachment_name(count)
            if ole.exists("/".join([*path, f"{_SUBSTG}3701000D"])):
                found.add(file_name, self._attached_message(ole, path, found, file_name))
            else:
                found.add(file_name, self._attached_file(part, found, file_name))
        return found.docs, found.failures

    def _attached_message(
        self, ole: Any, path: list[str], found: Attachments, file_name: str
    ) -> Callable[[], Loaded]:
        def load() -> Loaded:
            where = f"{found.label}/{file_name}"
            inner = found.nesting.deeper()
            if inner.too_deep():
                raise LoaderError(
                    f"{where} is a message nested deeper than max_depth="
                    f"{self.limits.max_depth}; not opened",
                    where,
                )
            docs, failures = self._message(ole, [*path, f"{_SUBSTG}3701000D"], where, where, inner)
            for doc in docs:
                for key, value in found.metadata(file_name).items():
                    doc.metadata.setdefault(key, value)
            return docs, failures

        return load

    @staticmethod
    def _attached_file(part: _Message, found: Attachments, file_name: str) -> Callable[[], Loaded]:
        def load() -> Loaded:
            data = part.binary(0x3701)
            if data is None:
                where = f"{found.label}/{file_name}"
                raise LoaderError(f"{where}: the attachment has no data (a link?)", where)
            return found.embedded(file_name, data)

        return load
