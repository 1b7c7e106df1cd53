"""FileChatMessageHistory: one conversation in a JSON file, safe under concurrent writers.

The file holds a JSON list of ``{"type", "data"}`` messages (LangChain's
layout, so files move between the two). Every append takes an exclusive lock
on ``<file>.lock``, reads the current list, and replaces the file atomically
(temp file, fsync, rename), so concurrent writers, in threads or processes,
never lose a message and readers never see a half-written file.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "chat.json")
    >>> h = FileChatMessageHistory(path)
    >>> h.add_user_message("hi")
    >>> FileChatMessageHistory(path).messages[0].content
    'hi'
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from ragkit.chains.history.base import BaseChatMessageHistory, _checked
from ragkit.errors import ChatHistoryError
from ragkit.messages import BaseMessage, messages_from_dict, messages_to_dict


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive inter-process lock held on ``path`` (created if missing)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` atomically (temp file in the same folder, fsync, rename)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # not every platform can fsync a folder
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


class FileChatMessageHistory(BaseChatMessageHistory):
    """A conversation stored as a JSON list in ``file_path`` (created, with ``[]``, if missing)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        encoding: str | None = None,
        ensure_ascii: bool = True,
    ) -> None:
        self.file_path = Path(file_path)
        self.encoding = encoding or "utf-8"
        self.ensure_ascii = ensure_ascii
        if not self.file_path.parent.is_dir():
            raise ChatHistoryError(
                f"Chat history folder {str(self.file_path.parent)!r} does not exist; create it first"
            )
        self._lock_path = self.file_path.with_name(self.file_path.name + ".lock")
        if not self.file_path.exists():
            with file_lock(self._lock_path):
                if not self.file_path.exists():
                    atomic_write_text(self.file_path, "[]", self.encoding)

    def _read(self) -> list[BaseMessage]:
        try:
            raw = self.file_path.read_text(encoding=self.encoding)
        except FileNotFoundError:
            return []
        if not raw.strip():
            return []
        try:
            items = json.loads(raw)
            if not isinstance(items, list):
                raise ValueError(f"expected a JSON list, found {type(items).__name__}")
            return messages_from_dict(items)
        except (ValueError, TypeError) as e:
            raise ChatHistoryError(
                f"Chat history file {str(self.file_path)!r} is not a JSON list of messages ({e}); "
                "fix or delete the file"
            ) from e

    @property
    def messages(self) -> list[BaseMessage]:
        return self._read()

    def _write(self, messages: Sequence[BaseMessage]) -> None:
        text = json.dumps(messages_to_dict(messages), ensure_ascii=self.ensure_ascii)
        atomic_write_text(self.file_path, text, self.encoding)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        new = _checked(messages)
        with file_lock(self._lock_path):
            self._write([*self._read(), *new])

    def clear(self) -> None:
        with file_lock(self._lock_path):
            self._write([])
