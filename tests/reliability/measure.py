"""Running a command in a child process and reading that child's own peak memory (``wait4``).

``resource.getrusage(RUSAGE_CHILDREN)`` is the maximum over every child so far; ``os.wait4``
gives the resource usage of the one child waited for.

Example:
    >>> import sys
    >>> run = run_measured([sys.executable, "-c", "print('hi')"])
    >>> run.returncode, run.stdout, run.peak_rss_kb > 0
    (0, 'hi\\n', True)
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass
class Measured:
    returncode: int
    stdout: str
    stderr: str
    peak_rss_kb: int
    seconds: float


def run_measured(
    cmd: Sequence[str],
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
    cwd: str | None = None,
) -> Measured:
    """Run ``cmd`` to completion; its exit code, output, peak RSS (KiB) and wall time."""
    import time

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            list(cmd), stdout=out, stderr=err, env=env, preexec_fn=preexec_fn, cwd=cwd
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            int(usage.ru_maxrss),
            seconds,
        )
