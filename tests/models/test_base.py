"""ragkit.models.base: bind_tools and with_structured_output (through the scripted model)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from ragkit.errors import OutputParserException
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel


def test_bind_tools_and_structured_output() -> None:
    class Weather(BaseModel):
        """Weather for a city."""

        city: str

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    model = FakeChatModel(
        [
            AIMessage(
                content="", tool_calls=[{"name": "Weather", "args": {"city": "Rome"}, "id": "1"}]
            )
        ]
    )
    bound = model.bind_tools(
        [Weather, add, {"name": "raw", "parameters": {"type": "object", "properties": {}}}],
        tool_choice="any",
    )
    bound.invoke("weather?")
    tools = model.call_kwargs[-1]["tools"]
    assert [t["name"] for t in tools] == ["Weather", "add", "raw"]
    assert (
        tools[1]["parameters"]["required"] == ["a", "b"]
        and tools[0]["description"] == "Weather for a city."
    )
    assert model.call_kwargs[-1]["tool_choice"] == "any"
    with pytest.raises(ValueError, match="tool_choice"):
        model.bind_tools([Weather], tool_choice="missing")
    structured = model.with_structured_output(Weather)
    assert structured.invoke("q") == Weather(city="Rome")
    raw = (
        FakeChatModel(["no tool call"])
        .with_structured_output(Weather, include_raw=True)
        .invoke("q")
    )
    assert raw["parsed"] is None and isinstance(raw["parsing_error"], OutputParserException)
