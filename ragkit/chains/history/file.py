"""FileChatMessageHistory: one conversation in a JSON file, safe under concurrent writers.

The file holds a JSON list of ``{"type", "data"}`` messages (LangChain's
layout, so files move between the two). Every append takes an exclusive lock
on ``<file>.lock``, reads the current list, and replaces the file atomically
(temp file, fsync, rename), so concurrent writers, in threads or processes,
never lose a message and readers never see a half-written file.

A path reached through a symlink is resolved first, so the link stays a link
and every writer locks the same file. Temp files left by a writer that was
killed are removed when the history is opened. A damaged file (not UTF-8, not
JSON, nested too deeply, not a list, a folder, a FIFO) raises a
:class:`~ragkit.errors.ChatHistoryError` naming the file; a bad message names
its position too, or with ``on_error="skip"`` is left out and listed in
``history.skipped``.

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
import glob
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ragkit.chains.history.base import (
    BaseChatMessageHistory,
    OnError,
    _checked,
    check_on_error,
    decode_messages,
)
from ragkit.errors import ChatHistoryError
from ragkit.messages import BaseMessage, messages_to_dict


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


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` atomically (temp file in the same folder, fsync, rename)."""
    data = text.encode(encoding)  # before the temp file exists: an encoding error leaves nothing
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
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


def remove_stale_temp_files(path: Path) -> list[str]:
    """Delete the temp files of writers of ``path`` that died (call with the lock held)."""
    pattern = os.path.join(glob.escape(str(path.parent)), glob.escape(_temp_prefix(path)) + "*.tmp")
    removed = []
    for tmp in glob.glob(pattern):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
            removed.append(tmp)
    return removed


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_history_bytes(path: Path) -> bytes | None:
    """The bytes of a history file (None if it does not exist); never blocks on a FIFO."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ChatHistoryError(
            f"Chat history file {str(path)!r} cannot be opened: {e.strerror or e}"
        ) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a FIFO or device?)"
            raise ChatHistoryError(
                f"Chat history file {str(path)!r} is {kind}; point the history at a JSON file"
            )
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError as e:
        raise ChatHistoryError(
            f"Chat history file {str(path)!r} cannot be read: {e.strerror or e}"
        ) from None
    finally:
        os.close(fd)


class FileChatMessageHistory(BaseChatMessageHistory):
    """A conversation stored as a JSON list in ``file_path`` (created, with ``[]``, if missing).

    ``on_error="skip"`` leaves out messages that cannot be read (listed in ``skipped``) instead
    of raising; the file itself must still be a readable JSON list.
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        encoding: str | None = None,
        ensure_ascii: bool = True,
        on_error: OnError = "raise",
    ) -> None:
        self.file_path = Path(file_path)
        self.encoding = encoding or "utf-8"
        self.ensure_ascii = ensure_ascii
        self.on_error = check_on_error(on_error, "FileChatMessageHistory")
        self.skipped: list[str] = []
        # the real file: writes replace it, not a symlink leading to it, and every writer locks it
        self._path = Path(os.path.realpath(self.file_path))
        if not self._path.parent.is_dir():
            raise ChatHistoryError(
                f"Chat history folder {str(self.file_path.parent)!r} does not exist; create it first"
            )
        self._lock_path = self._path.with_name(self._path.name + ".lock")
        with file_lock(self._lock_path):
            remove_stale_temp_files(self._path)
            if not os.path.lexists(self._path):
                atomic_write_text(self._path, "[]", self.encoding)

    def _fix(self, where: str) -> str:
        return (
            f"fix or delete it in {str(self.file_path)!r}, or open the history with "
            "on_error='skip' to leave it out"
        )

    def _items(self) -> list[Any]:
        """The stored JSON list, as it is (a ChatHistoryError if the file is not one)."""
        name = repr(str(self.file_path))
        data = read_history_bytes(self._path)
        if data is None:
            return []
        try:
            raw = data.decode(self.encoding)
        except (UnicodeDecodeError, LookupError) as e:
            raise ChatHistoryError(
                f"Chat history file {name} is not valid {self.encoding} ({e}); fix or delete the file"
            ) from None
        if not raw.strip():
            return []
        try:
            items = json.loads(raw)
        except RecursionError:
            raise ChatHistoryError(
                f"Chat history file {name} is nested too deeply to be a chat history; fix or "
                "delete the file"
            ) from None
        except ValueError as e:
            raise ChatHistoryError(
                f"Chat history file {name} is not a JSON list of messages ({e}); fix or delete the file"
            ) from None
        if not isinstance(items, list):
            raise ChatHistoryError(
                f"Chat history file {name} is not a JSON list of messages (found a "
                f"{type(items).__name__}); fix or delete the file"
            )
        return items

    def _read(self) -> list[BaseMessage]:
        name = repr(str(self.file_path))
        self.skipped = []
        located = [(f"message {i} of {name}", item) for i, item in enumerate(self._items())]
        return decode_messages(located, self.on_error, self.skipped, self._fix)

    @property
    def messages(self) -> list[BaseMessage]:
        return self._read()

    def _write(self, items: list[Any]) -> None:
        text = json.dumps(items, ensure_ascii=self.ensure_ascii)
        try:
            atomic_write_text(self._path, text, self.encoding)
        except UnicodeEncodeError as e:
            raise ChatHistoryError(
                f"Chat history file {str(self.file_path)!r}: a message cannot be written as "
                f"{self.encoding} ({e.reason} at position {e.start}, e.g. a lone surrogate); "
                "nothing was written"
            ) from None

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append ``messages``; stored items are kept as they are (even ones that cannot be read)."""
        new = messages_to_dict(_checked(messages))
        with file_lock(self._lock_path):
            self._write([*self._items(), *new])

    def clear(self) -> None:
        with file_lock(self._lock_path):
            self._write([])
