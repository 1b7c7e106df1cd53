"""``astream_events(version="v2")`` from LangChain's streaming how-to, on both libraries.

Source: https://python.langchain.com/docs/how_to/streaming/ (repository path
``docs/docs/how_to/streaming.ipynb`` in langchain-ai/langchain), "Using Stream Events": the
events of a chat model, of ``model | JsonOutputParser()`` (printing ``on_chat_model_stream``
and ``on_parser_stream`` chunks), and "Filtering Events" by name (``run_name`` set with
``with_config``, ``include_names=["my_parser"]``), by type (``include_types=["chat_model"]``)
and by tags (``include_tags=["my_chain"]``).

Replaced, minimally: ``ChatAnthropic`` is a fake chat model that replies with the JSON the page
shows. The two fakes cut a reply into different chunks (LangChain's ``FakeListChatModel`` one
character at a time, ragkit's ``FakeChatModel`` word by word), so the test compares the order
of the start and end events, which kinds stream, the streamed text
joined, and the final outputs. Deliberate difference (docs/migration.md, "Runnable core"):
ragkit's model streams do not end with an empty chunk.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet

EVENTS = Snippet(
    langchain="""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.output_parsers import JsonOutputParser
    """,
    ragkit="""
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.parsers import JsonOutputParser
    """,
    body="""
        import asyncio

        model = FakeChat(responses=[COUNTRIES])


        async def main():
            out = {}
            events = []
            async for event in model.astream_events("hello", version="v2"):
                events.append(event)
            out["model"] = events

            chain = (
                model | JsonOutputParser()
            )  # Due to a bug in older versions of Langchain, JsonOutputParser did not stream results from some models
            events = [
                event
                async for event in chain.astream_events(
                    "output a list of the countries france, spain and japan and their populations in JSON format. "
                    'Use a dict with an outer key of "countries" which contains a list of countries. '
                    "Each country should have the key `name` and `population`",
                    version="v2",
                )
            ]
            out["chain"] = events

            printed = []
            for event in events:
                kind = event["event"]
                if kind == "on_chat_model_stream":
                    printed.append(f"Chat model chunk: {repr(event['data']['chunk'].content)}")
                if kind == "on_parser_stream":
                    printed.append(f"Parser chunk: {event['data']['chunk']}")
            out["printed"] = printed

            chain = model.with_config({"run_name": "model"}) | JsonOutputParser().with_config(
                {"run_name": "my_parser"}
            )
            out["by_name"] = [
                event
                async for event in chain.astream_events(
                    "output a list of the countries france, spain and japan and their populations in JSON format.",
                    version="v2",
                    include_names=["my_parser"],
                )
            ]
            out["by_type"] = [
                event
                async for event in chain.astream_events(
                    "output a list of the countries.",
                    version="v2",
                    include_types=["chat_model"],
                )
            ]
            chain = (model | JsonOutputParser()).with_config({"tags": ["my_chain"]})
            out["by_tag"] = [
                event
                async for event in chain.astream_events(
                    "output a list of the countries.",
                    version="v2",
                    include_tags=["my_chain"],
                )
            ]
            return out


        results = asyncio.run(main())
    """,
)

COUNTRIES = (
    '{"countries": [{"name": "France", "population": 67390000}, '
    '{"name": "Spain", "population": 47350000}, {"name": "Japan", "population": 125700000}]}'
)


def _shape(events: list[dict]) -> list[tuple[str, str]]:
    """(event, name) in order, a run of stream events of one run counted once."""
    out: list[tuple[str, str]] = []
    for e in events:
        item = (e["event"], e["name"])
        if e["event"].endswith("_stream") and out and out[-1] == item:
            continue
        out.append(item)
    return out


def _streamed_text(events: list[dict]) -> str:
    return "".join(
        e["data"]["chunk"].content for e in events if e["event"] == "on_chat_model_stream"
    )


def _kinds(events: list[dict]) -> list[str]:
    return [kind for kind, _ in _shape(events)]


def _lifecycle(events: list[dict]) -> list[str]:
    return [e["event"] for e in events if not e["event"].endswith("_stream")]


def _streaming(events: list[dict]) -> set[str]:
    return {e["event"] for e in events if e["event"].endswith("_stream")}


def _end_output(events: list[dict], kind: str) -> object:
    return [e["data"]["output"] for e in events if e["event"] == kind][-1]


def test_event_kinds_order_and_outputs_agree() -> None:
    lc, rk = EVENTS.run_both(COUNTRIES=COUNTRIES)
    lc, rk = lc["results"], rk["results"]
    # the run names are the fake classes' names (FakeListChatModel / FakeChatModel)
    assert (
        _kinds(rk["model"])
        == _kinds(lc["model"])
        == [
            "on_chat_model_start",
            "on_chat_model_stream",
            "on_chat_model_end",
        ]
    )
    # stream events interleave by chunk; the start/end events and the kinds streamed agree
    assert _lifecycle(rk["chain"]) == _lifecycle(lc["chain"])
    assert (
        _streaming(rk["chain"])
        == _streaming(lc["chain"])
        == {
            "on_chat_model_stream",
            "on_parser_stream",
            "on_chain_stream",
        }
    )
    assert _streamed_text(rk["chain"]) == _streamed_text(lc["chain"]) == COUNTRIES
    assert _end_output(rk["chain"], "on_parser_end") == _end_output(lc["chain"], "on_parser_end")
    assert _end_output(rk["chain"], "on_chain_end") == _end_output(lc["chain"], "on_chain_end")
    assert _end_output(rk["chain"], "on_chain_end")["countries"][2]["name"] == "Japan"
    assert rk["printed"][0].startswith("Chat model chunk: ")
    assert any(p.startswith("Parser chunk: ") for p in rk["printed"])
    assert (
        _shape(rk["by_name"])
        == _shape(lc["by_name"])
        == [
            ("on_parser_start", "my_parser"),
            ("on_parser_stream", "my_parser"),
            ("on_parser_end", "my_parser"),
        ]
    )
    assert _kinds(rk["by_type"]) == _kinds(lc["by_type"]) == _kinds(rk["model"])
    assert _lifecycle(rk["by_tag"]) == _lifecycle(lc["by_tag"])
    assert _streaming(rk["by_tag"]) == _streaming(lc["by_tag"])
