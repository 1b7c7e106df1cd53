"""Fixtures of the OpenAI-compatible tests: a running emulator and settings pointing at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import ragkit
from tests.openai_compat.emulator import OpenAIEmulator

API_KEY = "sk-emulator-secret-0123456789abcdef"


@pytest.fixture
def emulator() -> Iterator[OpenAIEmulator]:
    emu = OpenAIEmulator(api_key=API_KEY).start()
    try:
        yield emu
    finally:
        emu.stop()


@pytest.fixture
def openai_kwargs(emulator: OpenAIEmulator) -> dict[str, Any]:
    """Keyword arguments that point any OpenAI class (ragkit's or LangChain's) at the emulator."""
    return {"base_url": emulator.base_url, "api_key": API_KEY, "timeout": 5.0}


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see only the keys and servers they set themselves."""
    for name in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "OPENAI_ORG_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index (hash embeddings) of two notes, one about sealant, for the command-line tests."""
    root = tmp_path_factory.mktemp("openai-cli")
    docs = root / "docs"
    docs.mkdir()
    (docs / "manual.md").write_text("Top up tubeless sealant every three months.\n")
    (docs / "notes.md").write_text("Check tyre pressure every week.\n")
    out = ragkit("index", docs, "--index", root / "idx", "--embedding", "hash")
    assert out.returncode == 0, out.stderr
    return root / "idx"
