"""One function reads every model spec string."""

from __future__ import annotations

import json

import pytest

from ragkit._cli.model_spec import ModelSettings, chat_model_from_spec, split_spec
from ragkit.errors import ConfigurationError


def test_specs_name_the_provider_and_model():
    assert split_spec("gemini:gemini-2.0-flash") == ("google_genai", "gemini-2.0-flash")
    assert split_spec("gemini-2.0-flash") == ("google_genai", "gemini-2.0-flash")
    assert split_spec("openai:gpt-4o-mini") == ("openai", "gpt-4o-mini")


def test_fake_replays_the_file_and_bad_files_are_named(tmp_path):
    good = tmp_path / "r.json"
    good.write_text(json.dumps(["one", "two"]))
    model = chat_model_from_spec(f"fake:{good}")
    assert [model.invoke("x").content for _ in range(3)] == ["one", "two", "one"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1}')
    with pytest.raises(ConfigurationError, match="bad.json: expected a JSON list"):
        chat_model_from_spec(f"fake:{bad}")


def test_gemini_specs_carry_endpoint_and_timeout(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key-not-real")
    model = chat_model_from_spec("gemini:gemini-2.0-flash", ModelSettings("http://127.0.0.1:9", 5))
    assert model.model.endswith("gemini-2.0-flash") and model.timeout == 5


def test_openai_specs_build_chat_openai(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real-0123")
    model = chat_model_from_spec("openai:llama3.1", ModelSettings(timeout=7))
    assert type(model).__name__ == "ChatOpenAI" and model.model_name == "llama3.1"


def test_unknown_providers_are_errors():
    with pytest.raises(ConfigurationError, match="unknown provider 'x'"):
        chat_model_from_spec("x:y")
