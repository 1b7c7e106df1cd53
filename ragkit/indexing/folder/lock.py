"""WriterLock: one writer at a time per index, across processes.

An advisory OS lock (``flock`` on POSIX, ``msvcrt.locking`` on Windows) on a
small lock file. The OS drops it when the holder exits, even on ``kill -9``, so
a crashed writer never leaves a stale lock behind. A second writer waits up to
``timeout`` seconds and then raises :class:`~ragkit.errors.IndexLockedError`
naming the lock file.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "index.lock")
    >>> with WriterLock(path, timeout=1.0):
    ...     pass
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

from ragkit.errors import IndexingError, IndexLockedError

_POLL_SECONDS = 0.05


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


class WriterLock:
    """An exclusive, re-entrant-per-instance lock on ``path`` (created if missing).

    ``timeout=None`` waits forever; ``0`` fails at once when the lock is taken.
    """

    def __init__(
        self, path: str | os.PathLike[str], timeout: float | None = 30.0, what: str | None = None
    ) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.what = what or str(self.path.parent)
        self._fd: int | None = None
        self._depth = 0

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            self._depth += 1
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o644)
        except OSError as err:
            raise IndexingError(
                f"cannot open the lock file {self.path} of {self.what} ({err.strerror or err}); "
                "it must be a regular file the index's writer can write"
            ) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise IndexingError(
                f"the lock file {self.path} of {self.what} is not a regular file; move it away "
                "(ragkit makes a new one)"
            )
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while not _try_lock(fd):
            if deadline is not None and time.monotonic() >= deadline:
                os.close(fd)
                raise IndexLockedError(
                    f"{self.what} is being written by another process (lock file {self.path}); "
                    f"waited {self.timeout:g} s. Wait for the other `ragkit index` to finish, "
                    "or pass a longer lock timeout."
                )
            time.sleep(_POLL_SECONDS)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass  # the pid is informational only
        self._fd = fd
        self._depth = 1

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
