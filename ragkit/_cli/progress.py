"""Progress of ``ragkit index``: a bar on a terminal, periodic lines on stderr otherwise.

On a terminal (stderr is a TTY) a rich progress bar shows files done out of
files to check, chunks, embedding rate, elapsed time and ETA. When stderr is a
file or a pipe (a log, CI, ``nohup``), a plain line is written when the stage
changes and then every ``RAGKIT_PROGRESS_INTERVAL`` seconds (default 10), so a
long run is never silent. Either way stdout is untouched (``--json`` stays one
document) and ``--quiet`` turns it off.

Example:
    >>> import io
    >>> from ragkit.indexing.writer import Progress
    >>> out = io.StringIO()
    >>> with ProgressLines(out, interval=3600) as view:
    ...     view(Progress(files_total=4, files_done=1, chunks=7, embedded=7, stage="index"))
    >>> out.getvalue().startswith("progress: index: files 1/4")
    True
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ragkit.indexing.writer import Progress

DEFAULT_INTERVAL = 10.0


def interval_from_env() -> float:
    """Seconds between two progress lines: ``RAGKIT_PROGRESS_INTERVAL`` or 10."""
    from ragkit.errors import ConfigurationError

    raw = os.environ.get("RAGKIT_PROGRESS_INTERVAL")
    if raw is None or not raw.strip():
        return DEFAULT_INTERVAL
    try:
        value = float(raw)
    except ValueError as err:
        raise ConfigurationError(
            f"RAGKIT_PROGRESS_INTERVAL={raw!r}: expected a number of seconds, e.g. 10"
        ) from err
    if value <= 0:
        raise ConfigurationError(f"RAGKIT_PROGRESS_INTERVAL={raw!r}: must be above 0 seconds")
    return value


def describe(p: Progress, now: float | None = None) -> str:
    """One line: stage, files, chunks, embedding rate, elapsed time and ETA."""
    now = time.monotonic() if now is None else now
    elapsed = max(now - p.started, 1e-6)
    rate = p.embedded / elapsed
    parts = [f"{p.stage}: files {p.files_done}/{p.files_total}"]
    if p.files_total:
        parts[0] += f" ({100.0 * p.files_done / p.files_total:.0f}%)"
    parts += [f"chunks {p.chunks}", f"embedded {p.embedded} ({rate:.1f}/s)"]
    parts.append(f"elapsed {elapsed:.0f}s")
    if p.stage == "index" and 0 < p.files_done < p.files_total:
        eta = (p.files_total - p.files_done) * elapsed / p.files_done
        parts.append(f"ETA {eta:.0f}s")
    return ", ".join(parts)


class ProgressLines:
    """Writes a progress line on each stage change and every ``interval`` seconds in between.

    A background thread does the periodic writing, so a line appears even while one long
    embedding batch or the final save runs.
    """

    def __init__(self, stream: TextIO, interval: float = DEFAULT_INTERVAL) -> None:
        self.stream = stream
        self.interval = interval
        self._state: Progress | None = None
        self._stage = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ProgressLines:
        self._thread = threading.Thread(target=self._tick, name="ragkit-progress", daemon=True)
        self._thread.start()
        return self

    def __call__(self, p: Progress) -> None:
        with self._lock:
            self._state = p
            if p.stage != self._stage:
                self._stage = p.stage
                self._write(p)

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                if self._state is not None:
                    self._write(self._state)

    def _write(self, p: Progress) -> None:
        self.stream.write(f"progress: {describe(p)}\n")
        self.stream.flush()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


class ProgressBar:
    """A rich progress bar on the terminal (files), with chunks and the embedding rate."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._task: Any = None
        self._last = 0.0

    def __enter__(self) -> ProgressBar:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files  {task.fields[detail]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._bar.__enter__()
        self._task = self._bar.add_task("scan", total=None, detail="")
        return self

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if now - self._last < 0.1 and p.stage == self._bar.tasks[0].description:
            return
        self._last = now
        rate = p.embedded / max(now - p.started, 1e-6)
        self._bar.update(
            self._task,
            description=p.stage,
            total=p.files_total or None,
            completed=p.files_done,
            detail=f"chunks {p.chunks}  embedded {p.embedded} ({rate:.0f}/s)",
        )

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)


class Silent:
    """No progress (``--quiet``)."""

    def __enter__(self) -> Silent:
        return self

    def __call__(self, p: Progress) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def progress_view(quiet: bool) -> ProgressBar | ProgressLines | Silent:
    """The view for this run: nothing if ``quiet``, a bar on a terminal, else periodic lines."""
    if quiet:
        return Silent()
    if bool(getattr(sys.stderr, "isatty", lambda: False)()):
        return ProgressBar()
    return ProgressLines(sys.stderr, interval_from_env())
