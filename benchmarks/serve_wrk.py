"""The external load generator of benchmarks/serve.py: Debian's ``wrk`` (a C program).

Measured beside the benchmark's own asyncio client, so a figure does not depend on a load
generator written in the language of the server it measures. ``wrk`` keeps ``clients``
connections open over ``threads`` threads and sends POST requests back to back, the bodies
(one JSON document a line, in a file) taken in turn by a small Lua script, which also prints
the run's counts and latency percentiles as one JSON line. Bounded by time only (a warm-up
run first, not counted); a reply with a status of 400 or more counts as an error.

Install: ``apt-get install wrk`` (``make bench`` installs it when it is missing).

Example:
    >>> summary_of({"requests": 100, "duration_us": 2e6, "connect": 0, "read": 0, "write": 0,
    ...             "status": 1, "timeout": 0, "p50_us": 1500.0, "p99_us": 9000.0})["rps"]
    50.0
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

SCRIPT = r"""
local bodies = {}
local counter = 0
local threads = 0

setup = function(thread)
  thread:set("start", threads * 97)
  threads = threads + 1
end

init = function(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  counter = start or 0
end

request = function()
  counter = counter % #bodies + 1
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, bodies[counter])
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests": %d, "duration_us": %.0f, "connect": %d, "read": %d, "write": %d, ' ..
    '"status": %d, "timeout": %d, "p50_us": %.1f, "p99_us": %.1f}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""

ERRORS = ("connect", "read", "write", "status", "timeout")


def find_wrk() -> str:
    """The ``wrk`` executable, or exit with how to install it."""
    path = shutil.which("wrk")
    if path is None:
        raise SystemExit(
            "wrk is not installed: apt-get install wrk (make bench installs it), "
            "or run with --load own"
        )
    return path


def run_wrk(
    port: int,
    path: str,
    bodies: list[bytes],
    clients: int,
    duration: float,
    warmup: float,
    threads: int = 2,
) -> dict[str, Any]:
    """A warm-up run, then a measured one of ``duration`` seconds; the measured run's summary
    (the keys of ``serve_load.summary``)."""
    wrk = find_wrk()
    url = f"http://127.0.0.1:{port}{path}"
    with tempfile.TemporaryDirectory(prefix="ragkit-wrk-") as folder:
        script, lines = Path(folder) / "post.lua", Path(folder) / "bodies.jsonl"
        script.write_text(SCRIPT, encoding="utf-8")
        lines.write_bytes(b"\n".join(b.replace(b"\n", b" ") for b in bodies) + b"\n")

        def once(seconds: float) -> dict[str, Any]:
            cmd = [
                wrk,
                f"-t{max(1, min(threads, clients))}",
                f"-c{clients}",
                f"-d{max(1, round(seconds))}s",
                "--timeout",
                "30s",
                "-s",
                str(script),
                url,
                "--",
                str(lines),
            ]
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120)
            found = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
            if out.returncode != 0 or not found:
                raise SystemExit(f"wrk failed ({out.returncode}): {out.stderr or out.stdout}")
            return json.loads(found[-1].removeprefix("RESULT "))

        if warmup > 0:
            once(warmup)
        return summary_of(once(duration))


def summary_of(result: dict[str, Any]) -> dict[str, Any]:
    """``wrk``'s counts as ``serve_load.summary`` gives them (requests/s, p50, p99, errors)."""
    seconds = float(result["duration_us"]) / 1e6
    kinds = {kind: int(result[kind]) for kind in ERRORS if int(result[kind])}
    requests = int(result["requests"])
    return {
        "requests": requests,
        "errors": sum(kinds.values()),
        "error_kinds": kinds,
        "rps": requests / seconds if seconds > 0 else 0.0,
        "p50_ms": float(result["p50_us"]) / 1000,
        "p99_ms": float(result["p99_us"]) / 1000,
    }
