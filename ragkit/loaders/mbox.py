"""MboxLoader: every message of a Unix mbox file, one after another (streamed).

The file is read line by line; a message starts at a ``From `` line that follows a blank
line (or the start of the file), and ``>From `` quoting (mboxo/mboxrd) is undone. Each
message is loaded as :class:`~ragkit.loaders.email_loader.EmailLoader` loads an ``.eml``,
with ``source`` = the mbox file and ``message_index`` (0-based) in metadata; attachments'
sources are ``box.mbox/<index>/<name>``. The file is only read (never locked or rewritten,
unlike :class:`mailbox.mbox`, which opens it for writing).

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "box.mbox")
    >>> _ = open(path, "wb").write(
    ...     b"From a@x Tue Mar  3 10:00:00 2026\\nSubject: one\\n\\nFirst\\n>From here\\n\\n"
    ...     b"From b@x Tue Mar  3 11:00:00 2026\\nSubject: two\\n\\nSecond\\n")
    >>> [(d.metadata["message_index"], d.metadata["subject"], d.page_content.strip())
    ...  for d in MboxLoader(path, headers=False).load()]
    [(0, 'one', 'First\\nFrom here'), (1, 'two', 'Second')]
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._files import check_regular
from ragkit.loaders._mail import MailLoader
from ragkit.loaders._mime import message_documents
from ragkit.loaders.email_loader import parse_message

_QUOTED_FROM = re.compile(rb"^>+From ")


_HEADER = re.compile(rb"^[A-Za-z0-9-]+:[ \t]")


def iter_mbox(path: str) -> Iterator[bytes]:
    """The raw bytes of each message in the mbox file ``path`` (a file that starts with a
    header line instead of ``From `` is one message)."""
    lines: list[bytes] = []
    previous_blank = True
    started = False
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"From ") and previous_blank:
                if started and lines:
                    yield b"".join(lines)
                lines, started = [], True
                previous_blank = False
                continue
            if not started:
                if _HEADER.match(line):  # one message saved without its 'From ' line
                    yield line + f.read()
                    return
                if line.strip():
                    raise LoaderError(f"{path} is not an mbox file (no 'From ' line first)", path)
                continue
            previous_blank = not line.strip()
            lines.append(line[1:] if _QUOTED_FROM.match(line) else line)
    if lines:
        yield b"".join(lines)


class MboxLoader(MailLoader):
    """Load each message of an mbox file (and its attachments) as :class:`EmailLoader` does.

    Args:
        file_path: The mbox file.
        attachments: Load the attachments as their own Documents (``process_attachments``).
        headers: Start each message's text with its Subject, From, To, Cc and Date lines
            (default True).
        limits: Bounds on attachments (shared by all the messages of the file).
        max_file_size: Largest mbox file, in bytes (None: no limit).
        process_attachments: LangChain's name for ``attachments`` (default True). False
            reads no attachment; each message lists their names in ``metadata["attachments"]``.
    """

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        check_regular(name, self.max_file_size)
        try:
            for index, raw in enumerate(iter_mbox(name)):
                msg = parse_message(raw, f"{name} (message {index})")
                docs, failures = message_documents(
                    msg, name, f"{name}/{index}", self, {"message_index": index}
                )
                self._record_all(failures)
                yield from docs
        except OSError as e:
            raise LoaderError(f"{name} cannot be read: {e.strerror or e}", name) from e
