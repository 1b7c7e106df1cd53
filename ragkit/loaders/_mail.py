"""What the e-mail loaders share: their constructor and the reading of a message's attachments.

:class:`MailLoader` is the base of :class:`~ragkit.loaders.email_loader.EmailLoader`,
:class:`~ragkit.loaders.mbox.MboxLoader` and
:class:`~ragkit.loaders.outlook_msg.OutlookMessageLoader`: the file, whether attachments are
loaded (``process_attachments``, LangChain's name; ``attachments`` is the same switch), their
bounds (:class:`~ragkit.loaders._archive_limits.ArchiveLimits`), whether the text starts with
the header block, and the largest file. :class:`Attachments` collects the
Documents and failures of one message's attachments, whatever the format that holds them:
each one is counted against ``max_attachments`` and the shared budget, and a failure is
recorded while the others still load (a bound of the whole container is raised).

Example:
    >>> from ragkit.loaders._archive_limits import ArchiveLimits, Nesting
    >>> found = Attachments("mail.eml", "mail.eml", "<1@x>", Nesting(), ArchiveLimits())
    >>> found.add_data("rows.csv", b"a,b\\n1,2\\n")
    >>> found.docs[0].metadata["source"], found.docs[0].metadata["attachment"], found.failures
    ('mail.eml/rows.csv', 'rows.csv', [])
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._archive_limits import (
    ArchiveLimits,
    Nesting,
    is_container_bound,
    member_too_large,
)
from ragkit.loaders._embedded import Member, load_embedded
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders.base import LoadFailure

Loaded = tuple[list[Document], list[LoadFailure]]


class MailLoader(FileLoader):
    """Base of the e-mail loaders: the message file and how its messages are read.

    Args:
        file_path: The file.
        attachments: Load the attachments as their own Documents (the same switch as
            ``process_attachments``; None: True).
        limits: Bounds on attachments (count, size, nesting), shared by the file's messages.
        headers: Start each message's text with its Subject, From, To, Cc and Date lines
            (None: the loader's default, :attr:`headers_by_default`).
        max_file_size: Largest file, in bytes (None: no limit).
        process_attachments: LangChain's name for ``attachments`` (None: True). When False,
            no attachment is read or parsed: the message's Document lists their file names
            in ``metadata["attachments"]`` and nothing else is done with them.

    Example:
        >>> from ragkit.loaders import EmailLoader
        >>> EmailLoader("a.eml", process_attachments=False).process_attachments
        False
        >>> EmailLoader("a.eml", attachments=True, process_attachments=False)
        Traceback (most recent call last):
        ...
        ragkit.errors.ConfigurationError: attachments=True and process_attachments=False disagree...
    """

    headers_by_default: ClassVar[bool] = True

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        attachments: bool | None = None,
        limits: ArchiveLimits | None = None,
        *,
        headers: bool | None = None,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        process_attachments: bool | None = None,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        if attachments is not None and process_attachments is not None:
            if bool(attachments) != bool(process_attachments):
                raise ConfigurationError(
                    f"attachments={attachments} and process_attachments={process_attachments} "
                    "disagree; pass one of them"
                )
        chosen = process_attachments if process_attachments is not None else attachments
        self.process_attachments = True if chosen is None else bool(chosen)
        self.headers = self.headers_by_default if headers is None else headers
        self.limits = limits or ArchiveLimits()
        self.nesting = Nesting(self.limits)

    @property
    def attachments(self) -> bool:
        """The same as :attr:`process_attachments` (ragkit's earlier name)."""
        return self.process_attachments

    def _record_all(self, failures: Iterable[LoadFailure]) -> None:
        for failure in failures:
            self._record(failure.path, failure.reason, failure.exception)


@dataclass
class Attachments:
    """The Documents and failures of one message's attachments.

    ``label`` names the message (attachments are ``label/name``); each attachment's Documents
    get ``parent_source`` (the message's ``source``), ``attachment`` (the file name) and the
    message's ``message_id`` in metadata (:meth:`metadata`).
    """

    label: str
    source: str
    message_id: str
    nesting: Nesting
    limits: ArchiveLimits
    docs: list[Document] = field(default_factory=list)
    failures: list[LoadFailure] = field(default_factory=list)

    def metadata(self, name: str) -> dict[str, Any]:
        """What the Documents of attachment ``name`` get in metadata (unless they have it)."""
        return {"parent_source": self.source, "attachment": name, "message_id": self.message_id}

    def room_for(self, count: int) -> bool:
        """Whether the ``count``-th attachment may be read (if not, the failure is recorded)."""
        if count <= self.limits.max_attachments:
            return True
        reason = (
            f"{self.label} has more than {self.limits.max_attachments} attachments "
            "(max_attachments); the rest were not read"
        )
        self.failures.append(LoadFailure(self.label, reason))
        return False

    def add(self, name: str, load: Callable[[], Loaded]) -> None:
        """Count attachment ``name`` and keep what ``load()`` gives; its LoaderError is a failure."""
        try:
            self.nesting.budget.add_member(self.label, name)
            docs, failures = load()
        except LoaderError as e:
            if is_container_bound(e):
                raise
            self.failures.append(LoadFailure(f"{self.label}/{name}", str(e), e))
            return
        self.docs.extend(docs)
        self.failures.extend(failures)

    def add_data(self, name: str, data: bytes) -> None:
        """:meth:`add` the attachment ``name`` whose bytes are ``data``."""
        self.add(name, lambda: self.embedded(name, data))

    def embedded(self, name: str, data: bytes) -> Loaded:
        """The Documents of attachment ``name`` holding ``data`` (within the size bounds)."""
        limit = self.limits.max_member_size
        if limit and len(data) > limit:
            raise member_too_large(self.label, name, limit)
        self.nesting.budget.add_bytes(self.label, len(data))
        member = Member(data, name, f"{self.label}/{name}", self.metadata(name))
        return load_embedded(member, self.nesting, limit)
