"""B4: with_structured_output takes LangChain's three schema forms and three methods.

The bug: a ``TypedDict`` and a JSON-schema dict keyed by ``title`` (both in LangChain's
structured-output guide) raised before any call. The tool-calling path is checked against
langchain-core's own ``with_structured_output`` on scripted replies; the JSON methods
against the request the model receives.
"""

from __future__ import annotations

import warnings
from typing import Annotated

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage as LCAIMessage


class Joke(BaseModel):
    """Joke to tell user."""

    setup: str = Field(description="The setup of the joke")
    punchline: str = Field(description="The punchline to the joke")
    rating: int | None = Field(default=None, description="How funny the joke is, from 1 to 10")


class JokeDict(TypedDict):
    """Joke to tell user."""

    setup: Annotated[str, ..., "The setup of the joke"]
    punchline: Annotated[str, ..., "The punchline to the joke"]
    rating: Annotated[int | None, None, "How funny the joke is, from 1 to 10"]


JOKE_SCHEMA = {
    "title": "joke",
    "description": "Joke to tell user.",
    "type": "object",
    "properties": {
        "setup": {"type": "string", "description": "The setup of the joke"},
        "punchline": {"type": "string", "description": "The punchline to the joke"},
        "rating": {"type": "integer", "description": "How funny the joke is, from 1 to 10"},
    },
    "required": ["setup", "punchline"],
}
ARGS = {
    "setup": "Why did the cat sit on the computer?",
    "punchline": "To keep an eye on the mouse.",
}
SCHEMAS = [Joke, JokeDict, JOKE_SCHEMA]
NAMES = {Joke: "Joke", JokeDict: "JokeDict"}


def name_of(schema) -> str:
    return NAMES[schema] if isinstance(schema, type) else schema["title"]


class LCToolFake(GenericFakeChatModel):
    """langchain-core's scripted model with a bind_tools that keeps the script."""

    def bind_tools(self, tools, **kwargs):
        return self


def call(schema, args) -> dict:
    return {"name": name_of(schema), "args": args, "id": "call-1"}


@pytest.mark.parametrize("schema", SCHEMAS, ids=["pydantic", "typeddict", "json_schema"])
def test_B4_function_calling_same_output_as_langchain(schema) -> None:
    ours_model = FakeChatModel([AIMessage(content="", tool_calls=[call(schema, ARGS)])])
    theirs_model = LCToolFake(
        messages=iter([LCAIMessage(content="", tool_calls=[call(schema, ARGS)])] * 2)
    )
    ours = ours_model.with_structured_output(schema).invoke("tell me a joke")
    theirs = theirs_model.with_structured_output(schema).invoke("tell me a joke")
    if schema is Joke:
        assert isinstance(ours, Joke) and ours.model_dump() == theirs.model_dump()
    else:
        assert ours == theirs == ARGS
    sent = ours_model.call_kwargs[-1]
    assert sent["tool_choice"] == name_of(schema)
    tool = sent["tools"][0]
    assert tool["name"] == name_of(schema) and tool["description"] == "Joke to tell user."
    assert tool["parameters"]["required"] == ["setup", "punchline"]
    assert tool["parameters"]["properties"]["setup"]["description"] == "The setup of the joke"
    raw_ours = ours_model.with_structured_output(schema, include_raw=True).invoke("q")
    raw_theirs = theirs_model.with_structured_output(schema, include_raw=True).invoke("q")
    assert sorted(raw_ours) == sorted(raw_theirs) == ["parsed", "parsing_error", "raw"]
    assert raw_ours["parsing_error"] is raw_theirs["parsing_error"] is None


@pytest.mark.parametrize("method", ["json_mode", "json_schema"])
@pytest.mark.parametrize("schema", SCHEMAS, ids=["pydantic", "typeddict", "json_schema"])
def test_B4_json_methods_parse_the_reply_text(schema, method) -> None:
    import json

    model = FakeChatModel([f"```json\n{json.dumps(ARGS)}\n```"])
    out = model.with_structured_output(schema, method=method, strict=True).invoke("a joke")
    assert (out.model_dump(exclude_none=True) if schema is Joke else out) == ARGS
    sent = model.call_kwargs[-1]
    assert "tools" not in sent
    if method == "json_mode":
        assert sent["response_format"] == {"type": "json_object"}
    else:
        spec = sent["response_format"]["json_schema"]
        assert spec["name"] == name_of(schema) and spec["strict"] is True
        assert spec["schema"]["required"] == ["setup", "punchline"]


@pytest.mark.parametrize("schema", SCHEMAS, ids=["pydantic", "typeddict", "json_schema"])
def test_B4_a_mismatching_reply_raises_output_parser_exception_with_the_text(schema) -> None:
    bad_call = AIMessage(content="", tool_calls=[call(schema, {"setup": "only a setup"})])
    with pytest.raises(OutputParserException, match="punchline") as info:
        FakeChatModel([bad_call]).with_structured_output(schema).invoke("q")
    assert info.value.llm_output == '{"setup": "only a setup"}'
    assert isinstance(info.value, ValueError)  # LangChain raises a ValueError here too
    for reply in ('{"setup": "x", "punchline": 3}', "no JSON at all"):
        model = FakeChatModel([reply])
        with pytest.raises(OutputParserException) as info:
            model.with_structured_output(schema, method="json_schema").invoke("q")
        assert info.value.llm_output == reply
        out = model.with_structured_output(schema, "json_mode", include_raw=True).invoke("q")
        assert out["parsed"] is None and isinstance(out["parsing_error"], OutputParserException)
        assert out["raw"].content == reply


def test_B4_bad_arguments_are_named() -> None:
    model = FakeChatModel(['{"setup": "a", "punchline": "b"}'])
    with pytest.raises(ConfigurationError, match="method must be one of"):
        model.with_structured_output(Joke, method="xml")
    untitled = {k: v for k, v in JOKE_SCHEMA.items() if k != "title"}
    with pytest.raises(ConfigurationError, match="top-level 'title'"):
        model.with_structured_output(untitled)
    # without a title the JSON methods still work (no tool name is needed)
    out = model.with_structured_output(untitled, method="json_mode").invoke("q")
    assert out == {"setup": "a", "punchline": "b"}
