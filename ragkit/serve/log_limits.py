"""Quiet logs under repeated failures: one line per failure, a traceback now and then.

While a PostgreSQL index's server is down, every request fails the same way; logging each
one's traceback (about 45 lines) filled 3.2 MB in 6 s. :class:`TracebackBudget` writes every
failure as one line and adds the traceback at most once per ``every`` seconds for each kind
of failure, saying so on the line.

Example:
    >>> import logging
    >>> budget = TracebackBudget(every=60.0)
    >>> err = ConnectionError("server closed the connection")
    >>> budget.log(logging.getLogger("demo"), logging.WARNING, "503 database_unavailable", err)
    True
    >>> budget.log(logging.getLogger("demo"), logging.WARNING, "503 database_unavailable", err)
    False
"""

from __future__ import annotations

import logging
import threading
import time


class TracebackBudget:
    """Logs failures in one line each, with a traceback at most once per ``every`` seconds for
    each (message, exception type)."""

    def __init__(self, every: float = 60.0) -> None:
        self.every = every
        self._last: dict[tuple[str, type[BaseException]], float] = {}
        self._lock = threading.Lock()

    def log(self, logger: logging.Logger, level: int, message: str, exc: BaseException) -> bool:
        """Log ``message: <exception in one line>``; returns whether the traceback went too."""
        key = (message, type(exc))
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            traced = last is None or now - last >= self.every
            if traced:
                self._last[key] = now
        line = f"{message}: {one_line(exc)}"
        if traced:
            logger.log(
                level,
                "%s (traceback follows; the same failure is logged in one line for %g s)",
                line,
                self.every,
                exc_info=exc,
            )
        else:
            logger.log(level, "%s", line)
        return traced


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most 300 characters)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}".rstrip(": ")
