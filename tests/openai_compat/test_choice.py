"""ModelChoice: the model, server and key file every command and the server share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragkit.errors import ConfigurationError
from ragkit.models import ChatGoogleGenerativeAI, ChatOpenAI
from ragkit.models.choice import ModelChoice

KEY = "sk-file-key-0123456789abcdef"


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("openai:qwen2.5:7b", ("openai", "qwen2.5:7b")),
        ("gpt-4o", ("openai", "gpt-4o")),
        ("gemini:gemini-2.0-flash", ("google_genai", "gemini-2.0-flash")),
        ("google_genai:gemini-1.5-pro", ("google_genai", "gemini-1.5-pro")),
        ("gemini-2.0-flash", ("google_genai", "gemini-2.0-flash")),
        ("tunedModels/my-model", ("google_genai", "tunedModels/my-model")),
    ],
)
def test_provider_and_name(model: str, expected: tuple[str, str]) -> None:
    assert ModelChoice(model).provider_and_name() == expected


def test_unknown_provider_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="unknown provider 'ollama'"):
        ModelChoice("ollama:llama3").provider_and_name()


def test_key_file_builds_either_provider_and_never_travels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    key_file = tmp_path / "key"
    key_file.write_text(f"  {KEY}\r\n")
    url = "http://127.0.0.1:9/v1"
    openai = ModelChoice("openai:m", base_url=url, key_file=str(key_file), timeout=3.0)
    llm = openai.build()
    assert isinstance(llm, ChatOpenAI) and llm.openai_api_key.get_secret_value() == KEY
    assert llm.openai_api_base == url and llm.request_timeout == 3.0
    gemini = ModelChoice(
        "gemini:gemini-2.0-flash", base_url="http://127.0.0.1:9", key_file=str(key_file)
    )
    chat = gemini.build()
    assert isinstance(chat, ChatGoogleGenerativeAI)
    assert chat.client_options == {"api_endpoint": "http://127.0.0.1:9"}
    assert gemini.has_key() and not ModelChoice("openai:m").has_key()
    travelled = json.dumps(openai.to_dict())
    assert KEY not in travelled and ModelChoice.from_dict(json.loads(travelled)) == openai


def test_bad_key_files_name_the_file_not_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="missing.key"):
        ModelChoice("openai:m", key_file=str(tmp_path / "missing.key")).build()
    two_lines = tmp_path / "two.key"
    two_lines.write_text(f"{KEY}\nsecond-line-0123456789\n")
    with pytest.raises(ConfigurationError) as info:
        ModelChoice("openai:m", key_file=str(two_lines)).build()
    assert "two.key" in str(info.value) and KEY not in str(info.value)
