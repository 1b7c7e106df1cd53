"""ragkit.models.fake: the scripted chat model used by the unit tests."""

from __future__ import annotations

import asyncio

import pytest

from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel


def test_fake_model_cycles_records_and_raises() -> None:
    model = FakeChatModel(
        [
            "a",
            AIMessage(content="", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "1"}]),
            RuntimeError("boom"),
        ]
    )
    assert model.invoke("q1").content == "a"
    assert model.invoke([("human", "q2")]).tool_calls[0]["args"] == {"x": 1}
    with pytest.raises(RuntimeError, match="boom"):
        model.invoke("q3")
    assert model.invoke("q4").content == "a"
    assert model.call_count == 4 and model.calls[1][0].content == "q2"


def test_fake_model_stream_carries_tool_calls_and_usage_on_last_chunk() -> None:
    reply = AIMessage(
        content="calling now",
        tool_calls=[{"name": "f", "args": {"x": 1}, "id": "1"}],
        usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
    )
    chunks = list(FakeChatModel([reply]).stream("q"))
    assert [c.content for c in chunks] == ["calling", " now"]
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total.tool_calls[0]["name"] == "f" and total.usage_metadata == reply.usage_metadata

    async def astream() -> list[str]:
        return [c.content async for c in FakeChatModel(["x y"]).astream("q")]

    assert asyncio.run(astream()) == ["x", " y"]
