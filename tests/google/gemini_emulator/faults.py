"""Fault injection: scripted failures the emulator serves before (or instead of) a normal reply."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, replace


@dataclass
class Fault:
    """One injected failure; ``rpc`` "*" matches every call.

    - ``status``: answer with this HTTP status and a Google error body (``retry_delay`` adds
      a ``google.rpc.RetryInfo`` detail, ``retry_after`` a ``Retry-After`` header);
    - ``delay``: sleep this many seconds before answering (to trip client timeouts);
    - ``malformed``: answer 200 with a body that is not JSON;
    - ``drop``: close the connection without answering;
    - ``stream_error_after``: in a stream, send this many pieces, then an ``{"error": ...}`` object;
    - ``stall_after``: in a stream, send this many pieces, then sleep ``delay`` seconds;
    - ``after``: let this many matching calls through untouched first;
    - ``commit``: with ``status``, carry the request out first and answer the error anyway
      (a reply lost on the way back: the client retries something that already happened).
    """

    rpc: str
    status: int | None = None
    message: str | None = None
    retry_delay: str | None = None
    retry_after: str | None = None
    delay: float = 0.0
    malformed: bool = False
    drop: bool = False
    stream_error_after: int | None = None
    stall_after: int | None = None
    after: int = 0
    commit: bool = False


class FaultQueue:
    """Faults waiting to be served, in order, per RPC name."""

    def __init__(self) -> None:
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()

    def add(self, fault: Fault, times: int = 1) -> None:
        with self._lock:
            self._faults.extend(replace(fault) for _ in range(times))

    def take(self, rpc: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.rpc in (rpc, "*"):
                    if fault.after > 0:
                        fault.after -= 1
                        return None
                    self._faults.remove(fault)
                    return fault
        return None

    def pending(self) -> int:
        with self._lock:
            return len(self._faults)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
