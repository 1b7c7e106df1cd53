"""Tool calling and structured output of ChatGoogleGenerativeAI against the emulator."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from ragkit.messages import AIMessage, HumanMessage, ToolMessage
from ragkit.models import ChatGoogleGenerativeAI
from ragkit.models.google import ChatGoogleGenerativeAIError

MODEL = "gemini-1.5-flash"


class Address(BaseModel):
    street: str
    number: int | None = None


class Person(BaseModel):
    """A person and where they live."""

    name: str = Field(description="Full name")
    age: int
    tags: list[str] = []
    role: Literal["admin", "user"] = "user"
    address: Address


def multiply(a: int, b: float) -> float:
    """Multiply two numbers."""
    return a * b


LOOKUP = {
    "name": "lookup",
    "description": "Look a word up.",
    "parameters": {
        "type": "object",
        "properties": {"word": {"type": "string"}},
        "required": ["word"],
    },
}


@pytest.fixture
def llm(google_kwargs):
    return ChatGoogleGenerativeAI(model=MODEL, **google_kwargs)


def declarations(emulator):
    return emulator.requests()[-1].body["tools"][0]["functionDeclarations"]


def test_bind_tools_converts_models_functions_and_dicts(llm, emulator):
    llm.bind_tools([Person, multiply, LOOKUP]).invoke("hi")
    person, mult, lookup = declarations(emulator)
    assert person["name"] == "Person" and person["description"] == "A person and where they live."
    params = person["parameters"]
    assert params["type"] == 6 and params["required"] == ["name", "age", "address"]
    assert params["properties"]["name"] == {"type": 1, "description": "Full name"}
    assert params["properties"]["tags"] == {"type": 5, "items": {"type": 1}}
    assert params["properties"]["role"] == {"type": 1, "format": "enum", "enum": ["admin", "user"]}
    address = params["properties"]["address"]  # $ref inlined
    assert address["type"] == 6 and address["required"] == ["street"]
    assert address["properties"]["number"] == {"type": 3, "nullable": True}  # Optional -> nullable
    assert mult["parameters"]["properties"] == {"a": {"type": 3}, "b": {"type": 2}}
    assert lookup == {
        "name": "lookup",
        "description": "Look a word up.",
        "parameters": {"type": 6, "properties": {"word": {"type": 1}}, "required": ["word"]},
    }
    assert "toolConfig" not in emulator.requests()[-1].body


@pytest.mark.parametrize(
    "choice, config",
    [
        ("auto", {"mode": 1}),
        ("any", {"mode": 2}),
        ("none", {"mode": 3}),
        ("multiply", {"mode": 2, "allowedFunctionNames": ["multiply"]}),
    ],
)
def test_tool_choice(llm, emulator, choice, config):
    llm.bind_tools([multiply, LOOKUP], tool_choice=choice).invoke("hi")
    assert emulator.requests()[-1].body["toolConfig"] == {"functionCallingConfig": config}


def test_forced_tool_call_comes_back_as_tool_calls(llm):
    reply = llm.bind_tools([multiply, LOOKUP], tool_choice="lookup").invoke("define zephyr")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("lookup", {"word": "text"})]
    assert reply.content == ""


def test_tool_round_trip_sends_calls_and_results(llm, emulator):
    bound = llm.bind_tools([multiply])
    first = bound.invoke("please call multiply")
    [call] = first.tool_calls
    assert call["name"] == "multiply" and call["args"] == {"a": 2, "b": 1.5}
    result = ToolMessage(content="3.0", tool_call_id=call["id"])
    final = bound.invoke([HumanMessage("please call multiply"), first, result])
    assert final.content == "echo: multiply -> {'output': 3.0}"
    contents = emulator.requests()[-1].body["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [{"functionCall": {"name": "multiply", "args": {"a": 2, "b": 1.5}}}],
    }
    assert contents[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "multiply", "response": {"output": 3.0}}}],
    }


def test_parallel_tool_results_share_one_turn(llm, emulator):
    calls = [
        {"name": "lookup", "args": {"word": "a"}, "id": "1"},
        {"name": "lookup", "args": {"word": "b"}, "id": "2"},
    ]
    llm.invoke(
        [
            HumanMessage("q"),
            AIMessage(content="", tool_calls=calls),
            ToolMessage(content='{"meaning": "first"}', tool_call_id="1"),
            ToolMessage(content="plain", tool_call_id="2"),
        ]
    )
    contents = emulator.requests()[-1].body["contents"]
    assert len(contents) == 3
    assert [p["functionResponse"]["response"] for p in contents[2]["parts"]] == [
        {"meaning": "first"},
        {"output": "plain"},
    ]


def test_tool_message_without_a_known_call_raises(llm, emulator):
    with pytest.raises(
        ChatGoogleGenerativeAIError, match="tool_call_id 'nope' answers no earlier tool call"
    ):
        llm.invoke([HumanMessage("q"), ToolMessage(content="x", tool_call_id="nope")])
    assert emulator.requests() == []


def test_with_structured_output_pydantic(llm, emulator):
    person = llm.with_structured_output(Person, method="function_calling").invoke("someone")
    assert isinstance(person, Person)
    assert person.address.street == "text" and person.age == 2 and person.role == "admin"
    assert emulator.requests()[-1].body["toolConfig"]["functionCallingConfig"] == {
        "mode": 2,
        "allowedFunctionNames": ["Person"],
    }


def test_with_structured_output_include_raw_and_dict_schema(llm, emulator):
    out = llm.with_structured_output(LOOKUP, "function_calling", include_raw=True).invoke("x")
    assert out["parsed"] == {"word": "text"} and out["parsing_error"] is None
    assert isinstance(out["raw"], AIMessage) and out["raw"].tool_calls
    emulator.reply(
        "generateContent",
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "no"}]}, "finishReason": 1}
            ]
        },
    )
    failed = llm.with_structured_output(LOOKUP, "function_calling", include_raw=True).invoke("x")
    assert failed["parsed"] is None and "did not call 'lookup'" in str(failed["parsing_error"])


def test_schemas_gemini_cannot_express_raise_before_sending(llm, emulator):
    class Either(BaseModel):
        value: int | str

    with pytest.raises(ValueError, match="Either.*value: a union of several types"):
        llm.bind_tools([Either]).invoke("x")
    with pytest.raises(ValueError, match="tool name 'bad name!' is not valid"):
        llm.bind_tools([{"name": "bad name!", "parameters": {}}]).invoke("x")
    assert emulator.requests() == []


def test_tool_without_parameters(llm, emulator):
    def now() -> str:
        """The time."""
        return "noon"

    reply = llm.bind_tools([now], tool_choice="now").invoke("time?")
    assert declarations(emulator) == [{"name": "now", "description": "The time."}]
    assert reply.tool_calls[0]["name"] == "now" and reply.tool_calls[0]["args"] == {}


# -- B4: the three schema forms and the three methods -------------------------------------------
class Joke(TypedDict):
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


def test_B4_default_is_json_schema_with_a_response_schema(llm, emulator):
    """LangChain's Gemini integration defaults to method="json_schema" (responseSchema)."""
    person = llm.with_structured_output(Person).invoke("describe someone")
    assert isinstance(person, Person) and person.address.street == "text"
    config = emulator.requests()[-1].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    schema = config["responseSchema"]
    assert schema["required"] == ["name", "age", "address"]
    assert schema["properties"]["role"]["enum"] == ["admin", "user"]
    assert "tools" not in emulator.requests()[-1].body


@pytest.mark.parametrize("method", ["json_schema", "json_mode", "function_calling"])
@pytest.mark.parametrize("schema", [Joke, JOKE_SCHEMA], ids=["typeddict", "json_schema_dict"])
def test_B4_typeddict_and_titled_json_schema_dict(llm, emulator, method, schema):
    joke = llm.with_structured_output(schema, method=method, strict=True).invoke("a joke")
    assert joke == {"setup": "text", "punchline": "text", "rating": 2}
    body = emulator.requests()[-1].body
    if method == "function_calling":
        declaration = body["tools"][0]["functionDeclarations"][0]
        assert declaration["name"] == ("Joke" if schema is Joke else "joke")
        assert declaration["description"] == "Joke to tell user."
        assert declaration["parameters"]["required"] == ["setup", "punchline"]
    else:
        described = body["generationConfig"]["responseSchema"]["properties"]["setup"]
        assert described["description"] == "The setup of the joke"


def test_B4_a_reply_that_does_not_match_raises_with_its_text(llm, emulator):
    from ragkit.errors import OutputParserException

    text_reply = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": '{"setup": "Why?"}'}]},
                "finishReason": 1,
            }
        ]
    }
    emulator.reply("generateContent", text_reply)
    with pytest.raises(OutputParserException, match="punchline") as info:
        llm.with_structured_output(Joke).invoke("a joke")
    assert info.value.llm_output == '{"setup": "Why?"}'
    emulator.reply("generateContent", text_reply)
    out = llm.with_structured_output(JOKE_SCHEMA, include_raw=True).invoke("a joke")
    assert out["parsed"] is None and isinstance(out["parsing_error"], OutputParserException)
    assert out["raw"].content == '{"setup": "Why?"}'


def test_configurable_temperature_reaches_the_request(llm, emulator):
    """python.langchain.com/docs/how_to/configure: a chat model field set per call."""
    from ragkit.core import ConfigurableField

    configurable = llm.configurable_fields(
        temperature=ConfigurableField(id="llm_temperature", name="LLM Temperature")
    )
    configurable.invoke("pick a random number")
    assert emulator.requests()[-1].body["generationConfig"]["temperature"] == 0.7
    configurable.invoke("pick a random number", {"configurable": {"llm_temperature": 0.1}})
    assert emulator.requests()[-1].body["generationConfig"]["temperature"] == pytest.approx(0.1)
    (spec,) = configurable.config_specs
    assert (spec.id, spec.name, spec.default) == ("llm_temperature", "LLM Temperature", 0.7)
