"""examples/rag_chat.py runs offline end to end, in a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rag_chat.py"


def run_example(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GOOGLE_API_KEY"}
    env.pop("PYTHONPATH", None)  # the example must find ragkit by itself
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr
    return done


def test_demo_conversation_runs_offline_and_keeps_history(tmp_path: Path):
    history = tmp_path / "chat.json"
    out = run_example("--history", str(history)).stdout
    assert "Model: FakeChatModel (offline" in out
    assert out.count("\nQ: ") == 3
    assert "[1] green_tea.md: Green tea is made" in out
    assert "steamed in Japan [1]." in out
    assert "cited [1] -> green_tea.md" in out and "cited [1] -> storage.md" in out
    saved = json.loads(history.read_text())
    assert [m["type"] for m in saved] == ["human", "ai"] * 3
    assert saved[2]["data"]["content"] == "What temperature should I brew it at?"

    again = run_example("--history", str(history), "--offline", "-q", "Is oolong oxidised?").stdout
    assert "Q: Is oolong oxidised?" in again and "(8 messages)" in again


def test_interactive_mode_reads_questions_until_an_empty_line(tmp_path: Path):
    out = run_example(
        "--offline",
        "--history",
        str(tmp_path / "h.json"),
        "--interactive",
        stdin="How is black tea made?\n\n",
    ).stdout
    assert out.count("\nQ: ") == 1 and "black_tea.md" in out and "(2 messages)" in out
