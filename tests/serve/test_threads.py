"""ragkit serve runs each FAISS search on one core (OMP_NUM_THREADS=1 unless it is set), in
every thread of the process, because the variable is set before FAISS loads."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import sys, threading
if sys.argv[1] == "call":
    from ragkit.serve.threads import one_thread_per_search
    one_thread_per_search()
import faiss
seen = []
worker = threading.Thread(target=lambda: seen.append(faiss.omp_get_max_threads()))
worker.start(); worker.join()
print(seen[0])
"""


def threads_in_a_worker(mode: str, **env: str) -> int:
    environ = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"} | env
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], env=environ, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


def test_searches_in_other_threads_use_one_core_unless_the_variable_is_set() -> None:
    cores = len(os.sched_getaffinity(0))
    assert threads_in_a_worker("none") == cores  # OpenMP's default: every core, every search
    assert threads_in_a_worker("call") == 1
    assert threads_in_a_worker("call", OMP_NUM_THREADS="2") == 2  # the user's choice stays


def test_the_serve_command_module_does_not_load_faiss_before_it_sets_the_variable() -> None:
    code = (
        "import sys\nfrom ragkit import cli\nfrom ragkit._cli import serve_command\n"
        "print('faiss' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
