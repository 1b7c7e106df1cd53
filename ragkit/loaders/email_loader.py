"""EmailLoader: an ``.eml`` message as a Document, its attachments as their own Documents.

The message's Document holds a block of its ``Subject``, ``From``, ``To``, ``Cc`` and
``Date`` lines (``headers=False`` leaves it out), then the plain-text body (else the HTML body
as text), and ``subject``, ``from``, ``to``, ``cc``, ``date`` (ISO 8601) and ``message_id`` in metadata.
Each attachment is read by the loader for its own type (a CSV as rows, a PDF as pages, an
attached ``.eml`` as a message, a zip as its members) into Documents with
``source="mail.eml/report.csv"``, ``parent_source`` (the message's file), ``attachment``
(its file name) and ``message_id``. Attachments are bounded in count, size and nesting by
:class:`~ragkit.loaders._archive_limits.ArchiveLimits`; one that fails is recorded on
``loader.errors`` and the others still load. ``process_attachments=False`` (LangChain's
name; ``attachments=False`` is the same) reads none of them, not even to decode it: their
file names are listed in the message's ``metadata["attachments"]``. Every charset is read (see
:mod:`ragkit.loaders._mime`), UTF-16 and broken declarations included.

:class:`UnstructuredEmailLoader` has LangChain's signature (``mode="single"``,
``process_attachments=False``) and needs no ``unstructured``.

Example:
    >>> import os, tempfile
    >>> from email.message import EmailMessage
    >>> msg = EmailMessage()
    >>> msg["Subject"], msg["From"], msg["To"] = "Tyres", "ana@example.com", "bo@example.com"
    >>> msg.set_content("Pump to 4 bar.")
    >>> msg.add_attachment(b"size,psi\\n28,60\\n", maintype="text", subtype="csv", filename="p.csv")
    >>> path = os.path.join(tempfile.mkdtemp(), "tyres.eml")
    >>> _ = open(path, "wb").write(msg.as_bytes())
    >>> docs = EmailLoader(path).load()
    >>> docs[0].page_content.splitlines()[0], docs[0].page_content.splitlines()[-1]
    ('Subject: Tyres', 'Pump to 4 bar.')
    >>> docs[1].page_content, docs[1].metadata["attachment"], docs[1].metadata["source"][-15:]
    ('size: 28\\npsi: 60', 'p.csv', 'tyres.eml/p.csv')
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from email import policy
from email.parser import BytesParser
from typing import Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._files import read_bytes
from ragkit.loaders._mail import MailLoader
from ragkit.loaders._mime import message_documents

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def parse_message(data: bytes, name: str) -> Any:
    """An :class:`email.message.EmailMessage` (the stdlib parser recovers from most damage)."""
    try:
        return BytesParser(policy=policy.default).parsebytes(data)
    except Exception as e:  # the parser records defects; this is for what it cannot
        raise LoaderError(f"{name} is not a readable e-mail message: {e}", name) from e


class EmailLoader(MailLoader):
    """Load an ``.eml`` file: the message, then (``process_attachments=True``) its attachments.

    An Outlook ``.msg`` given to it is read by :class:`OutlookMessageLoader`, as LangChain's
    ``UnstructuredEmailLoader`` takes both.

    Args:
        file_path: The message (RFC 822 / MIME).
        attachments: Load the attachments as their own Documents (``process_attachments``).
        limits: Bounds on attachments (count, size, nesting).
        headers: Start the text with the Subject, From, To, Cc and Date lines (default True).
        max_file_size: Largest message file, in bytes (None: no limit).
        process_attachments: LangChain's name for ``attachments`` (default True in ragkit).
            False reads no attachment: their names are in ``metadata["attachments"]``.
    """

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        data = read_bytes(name, self.max_file_size)
        if data.startswith(OLE_MAGIC):  # an Outlook .msg (LangChain's loader takes both)
            from ragkit.loaders.outlook_msg import OutlookMessageLoader

            loader = OutlookMessageLoader(
                name,
                limits=self.limits,
                headers=self.headers,
                max_file_size=self.max_file_size,
                process_attachments=self.process_attachments,
            )
            loader.nesting = self.nesting
            yield from loader.lazy_load()
            self._record_all(loader.errors)
            return
        if not data.strip():
            raise LoaderError(f"{name} is empty, not an e-mail message", name)
        msg = parse_message(data, name)
        if not msg.keys():
            raise LoaderError(f"{name} is not an e-mail message (it has no headers)", name)
        docs, failures = message_documents(msg, name, name, self)
        self._record_all(failures)
        yield from docs


class UnstructuredEmailLoader(EmailLoader):
    """LangChain's ``UnstructuredEmailLoader(file_path, mode="single", **unstructured_kwargs)``.

    Only ``mode="single"`` (one Document for the message) is offered; ``process_attachments``
    (default False, as LangChain's) loads the attachments as their own Documents. The text is
    the body alone, as LangChain's (the headers are in metadata).
    """

    def __init__(
        self, file_path: str | os.PathLike[str], mode: str = "single", **unstructured_kwargs: Any
    ) -> None:
        if mode != "single":
            raise ConfigurationError(
                f"UnstructuredEmailLoader: mode={mode!r} is not offered by ragkit; use "
                "mode='single' (one Document per message, attachments as their own Documents)"
            )
        process = bool(unstructured_kwargs.pop("process_attachments", False))
        unstructured_kwargs.pop("attachment_partitioner", None)
        if unstructured_kwargs:
            raise ConfigurationError(
                f"UnstructuredEmailLoader: unsupported arguments {sorted(unstructured_kwargs)}"
            )
        super().__init__(file_path, headers=False, process_attachments=process)
        self.mode = mode
