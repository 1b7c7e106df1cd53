"""ragkit.messages: chunk merging, tool-call parsing, conversions and round trips."""

from __future__ import annotations

import json

import pytest

from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    ToolMessage,
    convert_to_messages,
    get_buffer_string,
    message_chunk_to_message,
    messages_from_dict,
    messages_to_dict,
)


def test_chunk_merging_joins_text_tool_calls_and_usage() -> None:
    a = AIMessageChunk(
        content="Hel",
        tool_call_chunks=[{"name": "search", "args": '{"q": "pa', "id": "c1", "index": 0}],
    )
    b = AIMessageChunk(
        content="lo", tool_call_chunks=[{"name": None, "args": 'ris"}', "id": None, "index": 0}]
    )
    c = AIMessageChunk(
        content="", usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    )
    merged = a + b + c
    assert merged.content == "Hello"
    assert merged.tool_calls == [
        {"name": "search", "args": {"q": "paris"}, "id": "c1", "type": "tool_call"}
    ]
    assert merged.usage_metadata == {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    final = message_chunk_to_message(merged)
    assert (
        isinstance(final, AIMessage)
        and final.type == "ai"
        and final.tool_calls[0]["args"] == {"q": "paris"}
    )


def test_bad_tool_call_arguments_become_invalid_tool_calls() -> None:
    msg = AIMessageChunk(
        content="", tool_call_chunks=[{"name": "f", "args": "[1, 2]", "id": "x", "index": 0}]
    )
    assert msg.tool_calls == [] and msg.invalid_tool_calls[0]["name"] == "f"


def test_message_conversion_and_round_trip() -> None:
    msgs = convert_to_messages(
        [("system", "s"), "hi", {"role": "assistant", "content": "yo"}, HumanMessage("again")]
    )
    assert [m.type for m in msgs] == ["system", "human", "ai", "human"]
    assert get_buffer_string(msgs) == "System: s\nHuman: hi\nAI: yo\nHuman: again"
    data = messages_to_dict([*msgs, ToolMessage("42", tool_call_id="t1", status="error")])
    json.dumps(data)  # JSON-safe
    back = messages_from_dict(data)
    assert [m.type for m in back] == ["system", "human", "ai", "human", "tool"]
    assert isinstance(back[-1], ToolMessage) and back[-1].status == "error"
    with pytest.raises(ValueError, match="role"):
        convert_to_messages([("wizard", "x")])
