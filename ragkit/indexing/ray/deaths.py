"""Bounding what a file that kills its Ray worker costs: a few reads, then a failure.

Ray Data retries a task whose worker process died, without end by default, and restarts a
dead actor without end: a file whose loader crashes the process (a native library's
segfault, the kernel's out-of-memory killer) was read, and killed a worker, for ever.

Here each read of a file is recorded in a small :class:`DeathLedger` actor of the run: a read
begins (``begin``) and ends (``end``, whether it succeeded or raised). A read that never ended
means its worker died. When a file's reads have died :data:`READ_ATTEMPTS` times, the next
task to reach it does not read it again: the file fails, with that reason, in the run's
report, and the run goes on with the others. Ray's own retries are bounded too
(:func:`task_retries`, :data:`ACTOR_RESTARTS`), so a death outside any read (a lost node)
ends the run with an error rather than a loop.

Example:
    >>> ledger = DeathLedger()
    >>> ledger.begin("/d/a.pdf"), ledger.begin("/d/a.pdf")   # the first read's worker died
    (0, 1)
    >>> ledger.end("/d/a.pdf"); ledger.begin("/d/a.pdf")
    0
    >>> task_retries(files_per_task=4)
    15
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from ragkit.errors import LoaderError

READ_ATTEMPTS = 3
"""Reads of one file that may end in a dead worker before the file is reported failed."""
ACTOR_RESTARTS = 3
"""Restarts of an embedding actor (and retries of its batch) before the run fails."""


class DeathLedger:
    """Ray actor body: per file, how many of its reads began and never ended."""

    def __init__(self) -> None:
        self.unfinished: dict[str, int] = {}

    def begin(self, path: str) -> int:
        """Record a read of ``path``; returns how many earlier reads of it died."""
        died = self.unfinished.get(path, 0)
        self.unfinished[path] = died + 1
        return died

    def end(self, path: str) -> None:
        """The read of ``path`` ended in its process (with chunks or with an error)."""
        self.unfinished.pop(path, None)


def task_retries(files_per_task: int) -> int:
    """Ray's ``max_retries`` for a read task of up to ``files_per_task`` files: each of them
    may kill :data:`READ_ATTEMPTS` workers before it is skipped, plus as many deaths again
    outside any read."""
    return READ_ATTEMPTS * (max(1, files_per_task) + 1)


@contextlib.contextmanager
def retry_bounds_allowed() -> Iterator[None]:
    """Around the Dataset calls given ``max_retries`` / ``max_restarts``: Ray 2.60 warns that
    such keyword arguments go in Ray 2.64 but has no named parameter for them yet (a Ray
    without them fails the tests of ``tests/distributed/test_ray_deaths.py``)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`ray_remote_args` is deprecated")
        yield


def start_ledger(ray: Any) -> Any:
    """A :class:`DeathLedger` actor for one run (no CPU held; kill it with ``ray.kill``)."""
    return ray.remote(num_cpus=0, max_restarts=0)(DeathLedger).remote()


class Deaths:
    """What a read task holds: the run's ledger, asked before each file is read."""

    def __init__(self, ledger: Any) -> None:
        self.ledger = ledger

    @contextlib.contextmanager
    def reading(self, path: str) -> Iterator[None]:
        """Around one read of ``path``; raises :class:`~ragkit.errors.LoaderError` instead
        when earlier reads of it killed their workers :data:`READ_ATTEMPTS` times."""
        import ray

        died = ray.get(self.ledger.begin.remote(path))
        if died >= READ_ATTEMPTS:
            raise LoaderError(
                f"the worker reading it died {died} times (its loader crashed the process, "
                "or the process ran out of memory); not read again"
            )
        try:
            yield
        finally:  # waited for: a death right after must not be put on this file
            ray.get(self.ledger.end.remote(path))
