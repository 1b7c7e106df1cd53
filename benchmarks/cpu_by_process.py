"""CPU seconds each kind of process used while a command ran: where a Ray run's CPU goes.

Samples every process's cumulative CPU time (``/proc/PID/stat``: user + system) once a second
while COMMAND runs, keeps each process's last value and sums them by kind: Ray's embedding
actors, the benchmark's driver (a ``--child`` process), Ray's other workers and services, and
everything else started meanwhile. On a machine whose cores the run saturates, wall time
follows total CPU, so comparing the totals of two runs explains their time ratio.

Run:  python benchmarks/cpu_by_process.py -- python benchmarks/distributed.py --size-mb 5 \\
          --configs ray-1 --out /tmp/ray-1.md
      python benchmarks/cpu_by_process.py -- python benchmarks/distributed.py --size-mb 5 \\
          --configs local --out /tmp/local.md
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def snapshot() -> dict[int, tuple[float, str]]:
    """{pid: (CPU seconds so far, command line)} of every process readable now."""
    out: dict[int, tuple[float, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        out[int(entry.name)] = ((int(fields[11]) + int(fields[12])) / TICKS, cmd.strip())
    return out


def kind(cmd: str) -> str:
    if "MapWorker" in cmd or "_Embed" in cmd:
        return "embedding actors"
    if "--child" in cmd:
        return "driver (the benchmark's child process)"
    if "ray::" in cmd or "/ray/" in cmd or "raylet" in cmd or "gcs_server" in cmd:
        return "Ray's other workers, tasks and services"
    return "other processes started during the run"


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    before = set(snapshot())
    seen: dict[int, tuple[float, str]] = {}
    proc = subprocess.Popen(args)
    began = time.perf_counter()
    while proc.poll() is None:
        for pid, (cpu, cmd) in snapshot().items():
            if pid not in before and pid != os.getpid():
                old = seen.get(pid, (0.0, ""))
                seen[pid] = (max(cpu, old[0]), cmd if "ray::" in cmd or not old[1] else old[1])
        time.sleep(1.0)
    wall = time.perf_counter() - began
    totals: collections.Counter[str] = collections.Counter()
    for cpu, cmd in seen.values():
        totals[kind(cmd)] += cpu
    print(f"\nwall {wall:.1f} s (includes start-up); CPU seconds by kind of process:")
    for name, cpu in totals.most_common():
        print(f"  {cpu:8.1f}  {name}")
    print(f"  {sum(totals.values()):8.1f}  total")
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
