"""The load generator of benchmarks/serve.py: keep-alive HTTP/1.1 clients on asyncio.

Each client holds one connection and sends POST requests back to back (bodies taken in
turn), timing each from the first byte written to the last byte read. Plain asyncio
streams instead of an HTTP library: a few tens of microseconds per request, so the
clients measure the server, not themselves. Bounded by time (warm-up + duration, and 30 s
per reply at most) and by a request budget (measured requests, errors included, never more
than ``max_requests``).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Load:
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def _read_reply(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {
        k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)
    }
    if "content-length" in headers:
        return status, await reader.readexactly(int(headers["content-length"]))
    body = b""
    while True:  # chunked
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return status, body
        body += chunk[:-2]


async def _client(
    port: int,
    path: str,
    bodies: list[bytes],
    start_at: int,
    until: float,
    measure_from: float,
    budget: list[int],
    load: Load,
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i = start_at
    try:
        while time.perf_counter() < until and budget[0] > 0:
            body = bodies[i % len(bodies)]
            i += 1
            request = (
                f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode() + body
            sent = time.perf_counter()
            measured = sent >= measure_from
            if measured:  # the slot is taken before sending: never more than the budget
                budget[0] -= 1
            try:
                writer.write(request)
                status, reply = await asyncio.wait_for(_read_reply(reader), 30)
            except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError) as err:
                load.error(type(err).__name__)
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            done = time.perf_counter()
            if not measured:
                continue  # warm-up
            if status != 200 or not reply:
                load.error(f"HTTP {status}")
            else:
                load.latencies.append(done - sent)
    finally:
        writer.close()


def run_load(
    port: int,
    path: str,
    bodies: list[bytes],
    clients: int,
    duration: float,
    warmup: float,
    max_requests: int,
) -> Load:
    load = Load()

    async def main() -> None:
        now = time.perf_counter()
        measure_from, until = now + warmup, now + warmup + duration
        budget = [max_requests]
        step = max(1, len(bodies) // clients)
        await asyncio.gather(
            *(
                _client(port, path, bodies, c * step, until, measure_from, budget, load)
                for c in range(clients)
            )
        )
        load.seconds = min(time.perf_counter(), until) - measure_from

    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())
    return load


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
        if ordered
        else float("nan")
    )


def summary(load: Load) -> dict[str, Any]:
    n = len(load.latencies)
    return {
        "requests": n,
        "errors": sum(load.errors.values()),
        "error_kinds": dict(load.errors),
        "rps": n / load.seconds if load.seconds > 0 else 0.0,
        "p50_ms": percentile(load.latencies, 0.50) * 1000,
        "p99_ms": percentile(load.latencies, 0.99) * 1000,
    }
