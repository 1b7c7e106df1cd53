"""LangChain's "How to return structured data from a model", run on LangChain and on ragkit.

Source: https://python.langchain.com/docs/how_to/structured_output/ (repository path
``docs/docs/how_to/structured_output.ipynb`` in langchain-ai/langchain): ``with_structured_output``
with the three schema forms (a pydantic ``Joke``, a ``TypedDict`` ``Joke`` with ``Annotated``
fields, a JSON-schema dict titled ``"joke"``), and ``include_raw=True``.
"Advanced: specifying the method" (``method="json_mode"``) is left out: it is ``ChatOpenAI``'s,
and LangChain's base chat model (so any fake) ignores ``method``; ragkit's JSON methods are
tested in ``tests/models/test_structured_output.py``.

Replaced, minimally: ``ChatOpenAI`` is a fake model whose scripted reply is the tool call (or
JSON text) the real model would send. LangChain's fake chat models have no ``bind_tools``, so
the LangChain run uses ``tests.compat.shared.ToolCallingFakeChatModel`` (``FakeListChatModel``
plus ``bind_tools``); ragkit's ``FakeChatModel`` has it.

Deliberate difference (docs/migration.md, "Chat models and structured output"): ragkit checks
``TypedDict`` and JSON-schema replies against the schema (LangChain returns them unchecked);
with replies that match, as here, the results are the same.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

LANGCHAIN = """
    from langchain_core.messages import AIMessage
    from tests.compat.shared import ToolCallingFakeChatModel as FakeChat
"""
RAGKIT = """
    from ragkit.messages import AIMessage
    from ragkit.models import FakeChatModel as FakeChat
"""

JOKE = {
    "setup": "Why was the cat sitting on the computer?",
    "punchline": "To keep an eye on the mouse!",
    "rating": 7,
}


def _call(name: str) -> str:
    return f'AIMessage(content="", tool_calls=[{{"name": "{name}", "args": JOKE, "id": "call_1"}}])'


THREE_FORMS = Snippet(
    langchain=LANGCHAIN,
    ragkit=RAGKIT,
    body=f'''
        from typing import Optional

        from pydantic import BaseModel, Field


        # Pydantic
        class Joke(BaseModel):
            """Joke to tell user."""

            setup: str = Field(description="The setup of the joke")
            punchline: str = Field(description="The punchline to the joke")
            rating: Optional[int] = Field(
                default=None, description="How funny the joke is, from 1 to 10"
            )


        llm = FakeChat(responses=[{_call("Joke")}])
        structured_llm = llm.with_structured_output(Joke)

        pydantic_joke = structured_llm.invoke("Tell me a joke about cats")

        from typing_extensions import Annotated, TypedDict


        # TypedDict
        class Joke(TypedDict):
            """Joke to tell user."""

            setup: Annotated[str, ..., "The setup of the joke"]

            # Alternatively, we could have specified setup as:

            # setup: str                    # no default, no description
            # setup: Annotated[str, ...]    # no default, no description
            # setup: Annotated[str, "foo"]  # default, no description

            punchline: Annotated[str, ..., "The punchline of the joke"]
            rating: Annotated[Optional[int], None, "How funny the joke is, from 1 to 10"]


        structured_llm = llm.with_structured_output(Joke)

        typed_dict_joke = structured_llm.invoke("Tell me a joke about cats")

        json_schema = {{
            "title": "joke",
            "description": "Joke to tell user.",
            "type": "object",
            "properties": {{
                "setup": {{
                    "type": "string",
                    "description": "The setup of the joke",
                }},
                "punchline": {{
                    "type": "string",
                    "description": "The punchline to the joke",
                }},
                "rating": {{
                    "type": "integer",
                    "description": "How funny the joke is, from 1 to 10",
                    "default": None,
                }},
            }},
            "required": ["setup", "punchline"],
        }}
        llm = FakeChat(responses=[{_call("joke")}])
        structured_llm = llm.with_structured_output(json_schema)

        json_schema_joke = structured_llm.invoke("Tell me a joke about cats")

        # (Optional) Returning raw outputs
        llm = FakeChat(responses=[{_call("Joke")}])
        structured_llm = llm.with_structured_output(Joke, include_raw=True)

        raw_and_parsed = structured_llm.invoke("Tell me a joke about cats")

    ''',
)


def test_the_three_schema_forms_and_include_raw_parse_the_same() -> None:
    lc, rk = THREE_FORMS.run_both(JOKE=JOKE)
    assert type(rk["pydantic_joke"]).__name__ == "Joke"
    assert plain(rk["pydantic_joke"]) == plain(lc["pydantic_joke"]) == JOKE
    assert rk["typed_dict_joke"] == lc["typed_dict_joke"] == JOKE
    assert rk["json_schema_joke"] == lc["json_schema_joke"] == JOKE
    assert (
        set(rk["raw_and_parsed"]) == set(lc["raw_and_parsed"]) == {"raw", "parsed", "parsing_error"}
    )
    assert rk["raw_and_parsed"]["parsed"] == lc["raw_and_parsed"]["parsed"] == JOKE
    assert rk["raw_and_parsed"]["parsing_error"] is lc["raw_and_parsed"]["parsing_error"] is None
    assert plain(rk["raw_and_parsed"]["raw"]) == plain(lc["raw_and_parsed"]["raw"])
