"""One core per vector search in a server: concurrent requests already use every core.

FAISS searches with OpenMP, by default on every core for each search. A library caller
searching once at a time gains from that on a large index; a server answering many requests
at once does not: each search's threads compete with the other requests' (and with the
embedding model's), and OpenMP's waiting threads spin. ``ragkit serve`` therefore sets
``OMP_NUM_THREADS=1`` before FAISS is loaded, unless the environment already sets it (set it
yourself, e.g. to 2, for a very large flat index served to few clients). Measured on the
SciFact serving index (14,806 vectors, 2 cores): one flat search costs 0.99 ms of CPU on one
thread against 2.7 ms on two; with ``wrk`` (32 clients, hybrid search, four pairs of 20 s
runs, alternating) 0 to 12% more requests/s (mean 7%), p99 from 16% lower to 3% higher
(docs/benchmarks.md, "Serving over HTTP").

OpenMP reads the variable once, when the library loads, and a thread's own setting
(``faiss.omp_set_num_threads``) does not reach threads made later; so the variable has to be
set before the first ``import faiss`` of the process, as the command does.

Example:
    >>> env = {}
    >>> one_thread_per_search(env), env
    (True, {'OMP_NUM_THREADS': '1'})
    >>> one_thread_per_search({"OMP_NUM_THREADS": "2"})
    False
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

VARIABLE = "OMP_NUM_THREADS"


def one_thread_per_search(environ: MutableMapping[str, str] | None = None) -> bool:
    """Set ``OMP_NUM_THREADS=1`` in ``environ`` (default: this process's) unless it is set;
    returns whether it set it. Call it before anything imports FAISS."""
    env = os.environ if environ is None else environ
    if env.get(VARIABLE):
        return False
    env[VARIABLE] = "1"
    return True


__all__ = ["VARIABLE", "one_thread_per_search"]
