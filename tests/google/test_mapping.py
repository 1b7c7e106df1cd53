"""Pure data mapping of the Google integration: tool schemas, content blocks, corpus metadata."""

from __future__ import annotations

import pytest

from ragkit._google.corpus import chunk_ids, from_custom_metadata, to_custom_metadata
from ragkit._google.messages import to_contents
from ragkit._google.tools import to_gemini_schema, tool_config
from ragkit.errors import ChatGoogleGenerativeAIError
from ragkit.messages import AIMessage, HumanMessage, SystemMessage


def test_schema_keywords():
    schema = {
        "type": "object",
        "title": "T",
        "additionalProperties": False,
        "properties": {
            "when": {"type": "string", "format": "date-time", "default": "now"},
            "uri": {"type": "string", "format": "uri"},
            "ratio": {"type": ["number", "null"], "format": "double"},
            "ids": {
                "type": "array",
                "items": {"type": "integer", "format": "int64"},
                "minItems": 1,
                "maxItems": 3,
            },
            "colour": {"enum": ["red", "green"]},
            "free": {"type": "array"},
        },
        "required": ["when", "ghost"],
    }
    out = to_gemini_schema(schema)
    props = out["properties"]
    assert props["when"] == {"type_": "STRING", "format_": "date-time"}
    assert props["uri"] == {"type_": "STRING"}  # unsupported formats are dropped
    assert props["ratio"] == {"type_": "NUMBER", "nullable": True, "format_": "double"}
    assert props["ids"] == {
        "type_": "ARRAY",
        "items": {"type_": "INTEGER", "format_": "int64"},
        "min_items": 1,
        "max_items": 3,
    }
    assert props["colour"] == {"type_": "STRING", "enum": ["red", "green"], "format_": "enum"}
    assert props["free"]["items"] == {"type_": "STRING"}
    assert out["required"] == ["when"]  # only properties that exist


def test_schema_references():
    defs = {"Node": {"type": "object", "properties": {"label": {"type": "string"}}}}
    schema = {
        "type": "object",
        "$defs": defs,
        "properties": {
            "a": {"$ref": "#/$defs/Node", "description": "first"},
            "b": {"allOf": [{"$ref": "#/$defs/Node"}], "description": "second"},
            "c": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
        },
    }
    props = to_gemini_schema(schema)["properties"]
    assert props["a"] == {
        "type_": "OBJECT",
        "description": "first",
        "properties": {"label": {"type_": "STRING"}},
    }
    assert (
        props["b"]["description"] == "second"
        and props["b"]["properties"] == props["a"]["properties"]
    )
    assert props["c"]["nullable"] is True
    with pytest.raises(ValueError, match="cannot resolve schema reference '#/\\$defs/Missing'"):
        to_gemini_schema({"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}})
    with pytest.raises(ValueError, match="recursive schema references"):
        to_gemini_schema({"$defs": {"Loop": {"$ref": "#/$defs/Loop"}}, "$ref": "#/$defs/Loop"})
    with pytest.raises(ValueError, match="type \\['string', 'integer'\\] cannot be expressed"):
        to_gemini_schema({"type": ["string", "integer"]})
    with pytest.raises(ValueError, match="type None has no Gemini equivalent"):
        to_gemini_schema({"description": "anything"})


def test_tool_config_values():
    assert tool_config(None, ["f"]) is None
    assert tool_config(True, ["f"]) == {"function_calling_config": {"mode": "ANY"}}
    assert tool_config(False, ["f"]) == {"function_calling_config": {"mode": "NONE"}}
    with pytest.raises(ValueError, match="tool_choice 'g' is not"):
        tool_config("g", ["f"])


def test_content_blocks():
    system, contents = to_contents(
        [
            HumanMessage(
                content=["plain", {"type": "media", "mime_type": "audio/wav", "data": b"RIFF"}]
            )
        ]
    )
    assert system is None
    assert contents[0]["parts"] == [
        {"text": "plain"},
        {"inline_data": {"mime_type": "audio/wav", "data": b"RIFF"}},
    ]
    with pytest.raises(
        ChatGoogleGenerativeAIError, match="block 0: a content block must be a str or dict, got int"
    ):
        to_contents([HumanMessage(content=[7])])
    with pytest.raises(
        ChatGoogleGenerativeAIError, match="the 'image' block needs base64 'data' and a 'mime_type'"
    ):
        to_contents([HumanMessage(content=[{"type": "image", "data": "AAAA"}])])


def test_system_message_before_a_model_turn_becomes_its_own_user_turn():
    system, contents = to_contents(
        [SystemMessage("Rules."), AIMessage("Hello, how can I help?")],
        convert_system_message_to_human=True,
    )
    assert system is None
    assert contents == [
        {"role": "user", "parts": [{"text": "Rules."}]},
        {"role": "model", "parts": [{"text": "Hello, how can I help?"}]},
    ]


def test_custom_metadata_round_trip():
    metadata = {"year": 2024, "score": 0.5, "title": "x", "tags": ["a", "b"], "skip": None}
    entries = to_custom_metadata(metadata)
    assert [e["key"] for e in entries] == ["year", "score", "title", "tags"]
    assert from_custom_metadata(entries) == {
        "year": 2024,
        "score": 0.5,
        "title": "x",
        "tags": ["a", "b"],
    }
    assert from_custom_metadata([{"key": "n", "numeric_value": 3.0}]) == {"n": 3}


def test_chunk_ids_are_stable_and_distinct():
    first = chunk_ids(["a", "a", "b"], [{}, {}, {}])
    assert first == chunk_ids(["a", "a", "b"], [{}, {}, {}])
    assert first[1] == f"{first[0]}-2" and len(set(first)) == 3 and all(len(i) <= 40 for i in first)
    assert chunk_ids(["a"], [{"k": 1}]) != chunk_ids(["a"], [{"k": 2}])
