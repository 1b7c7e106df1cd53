"""init_chat_model: LangChain's ways to name a model, for OpenAI-compatible servers and Gemini."""

from __future__ import annotations

import pytest

from ragkit.errors import ConfigurationError
from ragkit.models import ChatGoogleGenerativeAI, ChatOpenAI, init_chat_model
from ragkit.models.init_model import split_model
from tests.openai_compat.emulator import OpenAIEmulator


@pytest.mark.parametrize(
    ("model", "provider", "expected"),
    [
        ("openai:gpt-4o-mini", None, ("openai", "gpt-4o-mini")),
        ("gpt-4o-mini", None, ("openai", "gpt-4o-mini")),
        ("o3-mini", None, ("openai", "o3-mini")),
        ("llama3.1:8b", "openai", ("openai", "llama3.1:8b")),
        ("openai:llama3.1:8b", None, ("openai", "llama3.1:8b")),
        ("google_genai:gemini-2.0-flash", None, ("google_genai", "gemini-2.0-flash")),
        ("google-genai:gemini-2.0-flash", None, ("google_genai", "gemini-2.0-flash")),
        ("gemini-2.0-flash", "Google_GenAI", ("google_genai", "gemini-2.0-flash")),
    ],
)
def test_split_model(model: str, provider: str | None, expected: tuple[str, str]) -> None:
    assert split_model(model, provider) == expected


def test_unknown_names_and_providers_are_clear_errors() -> None:
    with pytest.raises(ConfigurationError, match="Unable to infer the model provider"):
        split_model("llama3")
    with pytest.raises(ConfigurationError, match="Unsupported model_provider='anthropic'"):
        split_model("claude-3", "anthropic")


def test_builds_the_provider_class_with_kwargs(emulator: OpenAIEmulator) -> None:
    llm = init_chat_model(
        "openai:gpt-4o-mini", base_url=emulator.base_url, api_key=emulator.api_key, temperature=0
    )
    assert isinstance(llm, ChatOpenAI) and llm.temperature == 0
    assert llm.invoke("hi").content == "You said: hi"
    gemini = init_chat_model("gemini-2.0-flash", google_api_key="g-key-0123456789")
    assert isinstance(gemini, ChatGoogleGenerativeAI) and gemini.model == "gemini-2.0-flash"


def test_configurable_model_picks_per_call(emulator: OpenAIEmulator) -> None:
    llm = init_chat_model(base_url=emulator.base_url, api_key=emulator.api_key)
    config = {"configurable": {"model": "openai:gpt-4o"}}
    assert llm.invoke("hi", config=config).content == "You said: hi"
    assert emulator.bodies("chat")[0]["model"] == "gpt-4o"
    prefixed = init_chat_model(
        "gpt-4o-mini",
        configurable_fields=("model", "temperature"),
        config_prefix="judge",
        base_url=emulator.base_url,
        api_key=emulator.api_key,
    )
    chosen = prefixed.model_for({"configurable": {"judge_temperature": 0.5, "temperature": 9}})
    assert chosen.model_name == "gpt-4o-mini" and chosen.temperature == 0.5
    with pytest.raises(ConfigurationError, match="needs config"):
        init_chat_model().invoke("hi")


@pytest.mark.parametrize(
    "name", ["gpt-4o-mini", "openai:gpt-4o", "o3-mini", "GPT-4o", "chatgpt-4o-latest"]
)
def test_same_choice_as_langchain(emulator: OpenAIEmulator, name: str) -> None:
    from langchain.chat_models import init_chat_model as lc_init_chat_model

    kwargs = {"base_url": emulator.base_url, "api_key": emulator.api_key, "temperature": 0.2}
    ours, theirs = init_chat_model(name, **kwargs), lc_init_chat_model(name, **kwargs)
    assert type(ours).__name__ == type(theirs).__name__ == "ChatOpenAI"
    assert ours.model_name == theirs.model_name and ours.temperature == theirs.temperature
    emulator.models.add(ours.model_name)
    ours.invoke("hi")
    theirs.invoke("hi")
    first, second = emulator.bodies("chat")
    assert first == second
