"""Faults the OpenAI emulator serves before (or instead of) a normal reply.

The queue is the Gemini emulator's (:class:`tests.google.gemini_emulator.faults.FaultQueue`);
the kinds of failure are those an OpenAI-compatible server shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.google.gemini_emulator.faults import FaultQueue


@dataclass
class Fault:
    """One injected failure; ``rpc`` ("chat", "completions", "embeddings" or "*") picks the calls.

    - ``status``: answer with this HTTP status and an OpenAI error body (``retry_after`` adds
      a ``Retry-After`` header);
    - ``delay``: sleep this many seconds before answering (to trip client timeouts);
    - ``malformed``: answer 200 with a body that is not JSON;
    - ``cut_after``: in a stream, send this many chunks, then close the connection in the
      middle of the next event (no ``[DONE]``);
    - ``after``: let this many matching calls through untouched first.
    """

    rpc: str
    status: int | None = None
    message: str | None = None
    retry_after: str | None = None
    delay: float = 0.0
    malformed: bool = False
    cut_after: int | None = None
    after: int = 0


__all__ = ["Fault", "FaultQueue"]
