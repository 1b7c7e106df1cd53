"""Shared helpers for the LLMChain tests (scripts for FakeChatModel, recording tools)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

from ragkit.messages import AIMessage
from ragkit.tools import Tool, tool


def calls(*specs: tuple[str, dict[str, Any]], content: str = "") -> AIMessage:
    """An AIMessage asking for the tool calls ``(name, args)`` with ids c0, c1, ..."""
    return AIMessage(
        content=content,
        tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(specs)],
    )


class Recorder:
    """Thread-safe record of (name, start, end) intervals and call counts."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.intervals: list[tuple[str, float, float]] = []
        self.counts: dict[str, int] = {}

    def count(self, name: str) -> int:
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + 1
            return self.counts[name]

    def record(self, name: str, start: float) -> None:
        with self.lock:
            self.intervals.append((name, start, time.perf_counter()))


ROOT = Path(__file__).resolve().parents[2]


def run_python(
    code: str, *args: str, wait: bool = True
) -> subprocess.Popen | subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", textwrap.dedent(code), *args]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    if not wait:
        return subprocess.Popen(
            cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def three_tools(rec: Recorder, *, async_upper: bool = False) -> list[Tool]:
    """``add``, ``upper`` (async with ``async_upper``) and ``flaky`` (fails on its first call), counted in ``rec``."""

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        rec.count("add")
        return a + b

    def upper(text: str) -> str:
        """Upper-case a text."""
        rec.count("upper")
        return text.upper()

    async def aupper(text: str) -> str:
        return upper(text)

    @tool
    def flaky(n: int) -> str:
        """Fails on its first call."""
        if rec.count("flaky") == 1:
            raise RuntimeError("backend busy")
        return f"ok {n}"

    upper_tool = tool("upper", description="Upper-case a text.")(aupper if async_upper else upper)
    return [add, upper_tool, flaky]
