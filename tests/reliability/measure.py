"""Running Python in a child process and reading that child's own peak memory.

``ru_maxrss`` (from ``wait4`` or ``getrusage``) is no good here: Linux carries it across
``exec``, so a child forked from a large test process reports the parent's size. The child
instead reads its ``VmHWM`` (the high-water mark of the memory map ``exec`` gave it) from
``/proc/self/status`` at exit and leaves it in a file.

Example:
    >>> run = run_python(["-c", "print('hi')"])
    >>> run.returncode, run.stdout, 0 < run.peak_rss_kb < 1_000_000
    (0, 'hi\\n', True)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_WRAPPER = """
import atexit, os, runpy, sys
_out = os.environ.pop("MEASURE_HWM_FILE")
def _hwm():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                with open(_out, "w") as fh:
                    fh.write(line.split()[1])
atexit.register(_hwm)
_mode, _target, *_rest = sys.argv[1:]
if _mode == "-m":
    sys.argv = [_target, *_rest]
    runpy.run_module(_target, run_name="__main__", alter_sys=True)
else:
    sys.argv = ["-c", *_rest]
    exec(compile(_target, "<string>", "exec"), {"__name__": "__main__"})
"""


@dataclass
class Measured:
    returncode: int
    stdout: str
    stderr: str
    peak_rss_kb: int
    seconds: float


def run_python(
    args: Sequence[str],
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
    cwd: str | None = None,
    timeout: float = 900,
) -> Measured:
    """Run ``python -m MODULE ...`` or ``python -c CODE ...`` (``args`` after ``python``);
    its exit code, output, peak RSS in KiB (0 if it died before exiting) and wall time."""
    if not args or args[0] not in ("-m", "-c"):
        raise ValueError("args must start with -m MODULE or -c CODE")
    with tempfile.TemporaryDirectory() as tmp:
        mark = os.path.join(tmp, "hwm")
        child_env = {**(os.environ if env is None else env), "MEASURE_HWM_FILE": mark}
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-c", _WRAPPER, *args],
            capture_output=True,
            text=True,
            env=child_env,
            preexec_fn=preexec_fn,
            cwd=cwd,
            timeout=timeout,
        )
        seconds = time.monotonic() - start
        peak = int(open(mark).read()) if os.path.exists(mark) else 0
    return Measured(proc.returncode, proc.stdout, proc.stderr, peak, seconds)
