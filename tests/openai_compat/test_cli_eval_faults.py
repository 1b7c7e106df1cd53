"""`ragkit eval --answers --model openai:NAME --judge openai:NAME --base-url URL` end to end
against the emulator (answers, verdicts, a nonsense judge, a judge the server does not know),
and bad servers seen through the commands: `ragkit ask` after a server's 500s and 429s, and
`ragkit serve`'s streamed /ask when the model's stream is cut (an error event, never a short
answer; the client gets a plain 500, the server's log names the model's server). The key comes from the
environment or --model-key-file and is never in the output or the log."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.cli.helpers import ragkit
from tests.openai_compat.conftest import API_KEY
from tests.openai_compat.emulator import OpenAIEmulator
from tests.serve.helpers import cli_server

pytestmark = pytest.mark.integration

QUESTION = "how often should sealant be topped up?"


@pytest.fixture(scope="module")
def root(index: Path) -> Path:
    """The folder of the index (``root / "idx"``), with questions and a key file beside it."""
    root = index.parent
    (root / "questions.jsonl").write_text(
        json.dumps({"question": QUESTION, "reference": "every three months"}) + "\n"
    )
    key = root / "model.key"
    key.write_text(API_KEY + "\n")
    key.chmod(0o600)
    return root


def _eval(root: Path, judge: str, metrics: str, *more: object, **env: str):  # type: ignore[no-untyped-def]
    return ragkit(
        "eval", "--index", root / "idx", "--answers", root / "questions.jsonl",
        "--model", "openai:gpt-4o-mini", "--judge", judge, "--metrics", metrics, *more, **env,
    )  # fmt: skip


def _verdict(value: int) -> dict[str, str]:
    return {"role": "assistant", "content": json.dumps({"reason": "r", "verdict": value})}


def test_eval_answers_with_an_openai_model_and_judge(root: Path, emulator: OpenAIEmulator) -> None:
    emulator.reply("chat", {"role": "assistant", "content": "Every three months [1]."})
    emulator.reply("chat", _verdict(1))  # the first passage (manual.md) was useful
    emulator.reply("chat", _verdict(0))
    out = _eval(
        root, "openai:gpt-4o", "context_precision,exact_match,citations_retrieved",
        "--base-url", emulator.base_url, "--model-key-file", root / "model.key",
        "--max-concurrency", "1", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["samples"][0]["response"] == "Every three months [1]."
    summary = data["summary"]
    assert summary["context_precision"]["mean"] == 1.0 and data["failures"] == []
    assert summary["exact_match"]["mean"] == 1.0 and summary["citations_retrieved"]["mean"] == 1.0
    bodies = emulator.bodies("chat")
    assert [b["model"] for b in bodies] == ["gpt-4o-mini", "gpt-4o", "gpt-4o"]
    assert QUESTION in bodies[0]["messages"][-1]["content"]
    assert "context was useful" in bodies[1]["messages"][-1]["content"]
    assert API_KEY not in out.stdout + out.stderr


def test_a_judge_answering_nonsense_is_recorded_not_a_zero(
    root: Path, emulator: OpenAIEmulator
) -> None:
    out = _eval(
        root, "openai:gpt-4o", "faithfulness,context_precision,exact_match", "--json",
        OPENAI_API_KEY=API_KEY, RAGKIT_BASE_URL=emulator.base_url,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for metric in ("faithfulness", "context_precision"):
        assert data["summary"][metric]["mean"] is None and data["summary"][metric]["failed"] == 1
    assert {f["metric"] for f in data["failures"]} == {"faithfulness", "context_precision"}
    assert all(f["detail"].startswith("nonsense:") for f in data["failures"])
    assert data["samples"][0]["response"].startswith("You said: Passages:")
    assert API_KEY not in out.stdout + out.stderr


def test_a_judge_the_server_does_not_know_is_a_failure_naming_the_server(
    root: Path, emulator: OpenAIEmulator
) -> None:
    out = _eval(
        root, "openai:gpt-4o-judge", "context_precision,exact_match",
        "--base-url", emulator.base_url, "--model-key-file", root / "model.key",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "| context_precision | - | - | 0 | 1 | 0 |" in out.stdout
    assert "| exact_match |" in out.stdout
    assert f"chat completion at {emulator.base_url}: HTTP 404" in out.stderr
    assert "Traceback" not in out.stderr and API_KEY not in out.stdout + out.stderr


@pytest.mark.parametrize("status", [500, 429])
def test_ask_fails_naming_the_server_after_the_retries(
    root: Path, emulator: OpenAIEmulator, status: int
) -> None:
    emulator.fail("chat", times=3, status=status, retry_after="0.01", message="Server trouble")
    out = ragkit(
        "ask", root / "idx", QUESTION, "--model", "openai:gpt-4o-mini",
        "--base-url", emulator.base_url, OPENAI_API_KEY=API_KEY,
    )  # fmt: skip
    assert out.returncode != 0
    assert emulator.base_url in out.stderr and "Server trouble" in out.stderr
    assert "after the configured retries" in out.stderr and "Traceback" not in out.stderr
    assert [r.status for r in emulator.requests("chat")] == [status] * 3  # 2 retries
    assert API_KEY not in out.stdout + out.stderr


def test_serve_a_cut_stream_is_an_error_event_not_a_short_answer(
    root: Path, tmp_path: Path, emulator: OpenAIEmulator
) -> None:
    log = tmp_path / "serve.log"
    with cli_server(
        root / "idx", "--model", "openai:gpt-4o-mini", "--base-url", emulator.base_url,
        "--model-key-file", root / "model.key", "--log-level", "debug", log=log,
    ) as (url, _proc):  # fmt: skip
        emulator.fail("chat", times=3, cut_after=3)
        streamed = httpx.post(url + "/ask", json={"question": QUESTION}, timeout=60).text
    events = [line.split(": ", 1)[1] for line in streamed.splitlines() if line.startswith("event:")]
    assert "error" in events and "end" not in events, streamed
    tokens = [line for line in streamed.splitlines() if line.startswith('data: {"text"')]
    assert 0 < len(tokens) < len("You said: ".split()) + len(QUESTION.split())
    # the client gets a plain 500 (details are never sent); the log names the model's server
    assert '"status_code":500' in streamed and emulator.base_url not in streamed
    logged = log.read_text()
    assert "cut off" in logged and emulator.base_url in logged
    assert API_KEY not in streamed + logged
