"""`ragkit ask` and `ragkit serve` with --model openai:NAME --base-url URL against the emulator;
the key from the environment or --model-key-file, never in argv, output or logs."""

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


def _key_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.key"
    path.write_text(API_KEY + "\n")
    path.chmod(0o600)
    return path


@pytest.mark.slow
def test_ask_with_a_key_file(index: Path, tmp_path: Path, emulator: OpenAIEmulator) -> None:
    key_file = _key_file(tmp_path)
    out = ragkit(
        "ask", index, QUESTION, "--model", "openai:gpt-4o-mini",
        "--base-url", emulator.base_url, "--model-key-file", key_file,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("You said: Passages:") and "Sources:" in out.stdout
    (body,) = emulator.bodies("chat")
    assert body["model"] == "gpt-4o-mini"
    assert (
        "[1] (" in body["messages"][-1]["content"] and QUESTION in body["messages"][-1]["content"]
    )
    assert API_KEY not in out.stdout + out.stderr


def test_ask_with_the_key_in_the_environment(index: Path, emulator: OpenAIEmulator) -> None:
    out = ragkit(
        "ask", index, QUESTION, "--model", "openai:gpt-4o-mini", OPENAI_API_KEY=API_KEY,
        RAGKIT_BASE_URL=emulator.base_url,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("You said:") and len(emulator.bodies("chat")) == 1


def test_ask_without_a_key_names_the_variable(index: Path, emulator: OpenAIEmulator) -> None:
    out = ragkit(
        "ask", index, QUESTION, "--model", "openai:gpt-4o-mini", "--base-url", emulator.base_url
    )
    assert out.returncode == 0 and "OPENAI_API_KEY" in out.stderr and "manual.md" in out.stdout
    assert emulator.bodies("chat") == []


def test_ask_failure_names_the_server_not_the_key(
    index: Path, tmp_path: Path, emulator: OpenAIEmulator
) -> None:
    out = ragkit(
        "ask", index, QUESTION, "--model", "openai:no-such-model",
        "--base-url", emulator.base_url, "--model-key-file", _key_file(tmp_path),
    )  # fmt: skip
    assert out.returncode != 0
    assert emulator.base_url in out.stderr and "no-such-model" in out.stderr
    assert API_KEY not in out.stdout + out.stderr


def test_unreadable_key_file_and_unknown_provider(index: Path, tmp_path: Path) -> None:
    missing = ragkit(
        "ask", index, QUESTION, "--model", "openai:m", "--model-key-file", tmp_path / "none.key",
    )  # fmt: skip
    assert missing.returncode != 0 and "none.key" in missing.stderr
    unknown = ragkit("ask", index, QUESTION, "--model", "anthropic:claude", OPENAI_API_KEY=API_KEY)
    assert unknown.returncode != 0 and "unknown provider 'anthropic'" in unknown.stderr


def test_serve_answers_with_the_openai_model(
    index: Path, tmp_path: Path, emulator: OpenAIEmulator
) -> None:
    log = tmp_path / "serve.log"
    with cli_server(
        index, "--model", "openai:gpt-4o-mini", "--base-url", emulator.base_url,
        "--model-key-file", _key_file(tmp_path), "--log-level", "debug", log=log,
    ) as (url, _proc):  # fmt: skip
        reply = httpx.post(url + "/ask", json={"question": QUESTION, "stream": False}, timeout=30)
        data = reply.json()
        assert reply.status_code == 200, data
        assert data["answer"].startswith("You said:") and data["sources"]
        streamed = httpx.post(url + "/ask", json={"question": QUESTION}, timeout=30).text
        assert "You said" in streamed.replace('"', "")
    assert [b["model"] for b in emulator.bodies("chat")] == ["gpt-4o-mini", "gpt-4o-mini"]
    assert emulator.bodies("chat")[1]["stream"] is True
    assert API_KEY not in log.read_text()


@pytest.mark.slow  # over 5 s on an idle machine (8.6-12 s in a loaded full run)
def test_index_contextualize_with_an_openai_model(tmp_path: Path, emulator: OpenAIEmulator) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Pump road tyres to six bar before a ride.\n")
    emulator.reply("chat", {"role": "assistant", "content": "quokkaword: the tyre care guide"})
    args = ("index", docs, "--index", tmp_path / "idx", "--embedding", "hash")
    env = {"OPENAI_API_KEY": API_KEY, "RAGKIT_BASE_URL": emulator.base_url}  # from the environment
    out = ragkit(*args, "--contextualize", "openai:gpt-4o-mini", **env)
    assert out.returncode == 0, out.stderr
    [body] = emulator.bodies("chat")
    assert body["model"] == "gpt-4o-mini" and "six bar" in body["messages"][-1]["content"]
    found = ragkit("query", tmp_path / "idx", "quokkaword", "--retriever", "bm25", "--json")
    [hit] = json.loads(found.stdout)["results"]  # found through its context only
    assert hit["text"] == "Pump road tyres to six bar before a ride."
    again = ragkit(*args, "--contextualize", "openai:gpt-4o-mini", "--rebuild", **env)
    assert again.returncode == 0 and len(emulator.bodies("chat")) == 1  # cached
    assert API_KEY not in out.stdout + out.stderr + again.stdout + again.stderr

    emulator.reply("chat", {"role": "assistant", "content": "wombatword: the tyre care guide"})
    flags = ("--base-url", emulator.base_url, "--model-key-file", _key_file(tmp_path))
    other = ("index", docs, "--index", tmp_path / "idx2", "--embedding", "hash")
    flagged = ragkit(*other, "--contextualize", "openai:gpt-4o-mini", *flags)
    assert flagged.returncode == 0, flagged.stderr
    assert len(emulator.bodies("chat")) == 2 and API_KEY not in flagged.stdout + flagged.stderr
    found = ragkit("query", tmp_path / "idx2", "wombatword", "--retriever", "bm25", "--json")
    assert [r["text"] for r in json.loads(found.stdout)["results"]] == [
        "Pump road tyres to six bar before a ride."
    ]
