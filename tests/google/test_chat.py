"""ChatGoogleGenerativeAI through the real google-generativeai SDK against the local emulator."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from pydantic import BaseModel

from ragkit.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from ragkit.models import ChatGoogleGenerativeAI
from ragkit.models.google import ChatGoogleGenerativeAIError
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate

MODEL = "gemini-1.5-flash"


@pytest.fixture
def llm(google_kwargs):
    return ChatGoogleGenerativeAI(model=MODEL, **google_kwargs)


def merged(chunks):
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def test_invoke_sends_system_instruction_key_and_int_enums(llm, emulator):
    reply = llm.invoke([SystemMessage("Answer briefly."), HumanMessage("hello there")])
    assert isinstance(reply, AIMessage)
    assert reply.content == "echo: hello there"
    [request] = emulator.requests("generateContent")
    assert request.path == "/v1beta/models/gemini-1.5-flash:generateContent"
    assert request.query == "$alt=json;enum-encoding=int"
    assert request.headers["x-goog-api-key"] == emulator.api_key
    assert request.body["systemInstruction"] == {"parts": [{"text": "Answer briefly."}]}
    assert request.body["contents"] == [{"role": "user", "parts": [{"text": "hello there"}]}]


def test_usage_and_response_metadata_come_from_the_response(llm, emulator):
    emulator.reply(
        "generateContent",
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": "Paris."}]},
                    "finishReason": 2,
                    "safetyRatings": [{"category": 7, "probability": 2}],
                }
            ],
            "promptFeedback": {"safetyRatings": [{"category": 9, "probability": 1}]},
            "usageMetadata": {
                "promptTokenCount": 11,
                "candidatesTokenCount": 7,
                "totalTokenCount": 18,
            },
        },
    )
    reply = llm.invoke("Capital of France?")
    assert reply.content == "Paris."
    assert reply.usage_metadata == {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18}
    meta = reply.response_metadata
    assert meta["finish_reason"] == "MAX_TOKENS"
    assert meta["safety_ratings"] == [
        {"category": "HARM_CATEGORY_HARASSMENT", "probability": "LOW", "blocked": False}
    ]
    assert (
        meta["prompt_feedback"]["safety_ratings"][0]["category"]
        == "HARM_CATEGORY_SEXUALLY_EXPLICIT"
    )
    assert meta["model_name"] == MODEL


def test_generation_parameters_reach_the_request(google_kwargs, emulator):
    llm = ChatGoogleGenerativeAI(
        model="models/gemini-1.5-pro",
        temperature=0.1,
        top_p=0.9,
        top_k=5,
        max_tokens=64,
        stop=["STOP"],
        safety_settings={"HARM_CATEGORY_DANGEROUS_CONTENT": "BLOCK_NONE"},
        **google_kwargs,
    )
    assert llm.max_output_tokens == 64
    llm.invoke("hi")
    body = emulator.requests("generateContent")[0].body
    assert emulator.requests()[0].path.endswith("/models/gemini-1.5-pro:generateContent")
    config = body["generationConfig"]
    assert config["temperature"] == pytest.approx(0.1) and config["topP"] == pytest.approx(0.9)
    assert (config["topK"], config["maxOutputTokens"], config["stopSequences"]) == (5, 64, ["STOP"])
    assert body["safetySettings"] == [{"category": 10, "threshold": 4}]
    # per-call options override the instance's
    llm.invoke("hi", stop=["x"], temperature=0.0)
    config = emulator.requests("generateContent")[1].body["generationConfig"]
    assert config["stopSequences"] == ["x"] and config.get("temperature", 0.0) == 0.0


def test_stop_and_max_tokens_shape_the_reply(llm):
    assert llm.invoke("one two STOP three", stop=["STOP"]).content == "echo: one two "
    reply = llm.invoke("a b c d e f", max_tokens=3)
    assert reply.content == "echo: a b" and reply.response_metadata["finish_reason"] == "MAX_TOKENS"


def test_n_candidates(google_kwargs, emulator):
    reply = ChatGoogleGenerativeAI(model=MODEL, n=2, **google_kwargs).invoke("hey")
    assert emulator.requests()[0].body["generationConfig"]["candidateCount"] == 2
    assert reply.content == "echo: hey"
    assert reply.response_metadata["candidates"] == ["echo: hey", "echo: hey (candidate 1)"]


def test_unknown_call_option_is_rejected(llm):
    with pytest.raises(ValueError, match="unknown call options \\['colour'\\]"):
        llm.invoke("hi", colour="red")


def test_stream_pieces_merge_into_the_invoke_reply(llm, emulator):
    chunks = list(llm.stream("the quick brown fox"))
    assert len(chunks) == 5 and all(isinstance(c, AIMessageChunk) for c in chunks)
    total = merged(chunks)
    invoked = llm.invoke("the quick brown fox")
    assert total.content == invoked.content
    assert total.usage_metadata == invoked.usage_metadata
    streamed = emulator.requests("streamGenerateContent")[0]
    assert (
        streamed.path.endswith(":streamGenerateContent")
        and streamed.query == "$alt=json;enum-encoding=int"
    )
    assert total.response_metadata["finish_reason"] == "STOP"
    assert (
        len(total.response_metadata["safety_ratings"]) == 2
    )  # from the last piece only, not repeated
    assert total.response_metadata["model_name"] == MODEL


@pytest.mark.parametrize("usage_on_every_piece", [True, False])
def test_streamed_usage_is_counted_once(llm, emulator, usage_on_every_piece):
    def piece(text, produced, finish=None):
        candidate = {"content": {"role": "model", "parts": [{"text": text}]}}
        if finish:
            candidate.update(finishReason=finish, safetyRatings=[{"category": 8, "probability": 1}])
        out = {"candidates": [candidate]}
        if usage_on_every_piece or finish:
            out["usageMetadata"] = {
                "promptTokenCount": 5,
                "candidatesTokenCount": produced,
                "totalTokenCount": 5 + produced,
            }
        return out

    emulator.reply(
        "streamGenerateContent", [piece("Hel", 1), piece("lo", 2), piece(" you", 3, finish=1)]
    )
    total = merged(list(llm.stream("hi")))
    assert total.content == "Hello you"
    assert total.usage_metadata == {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}
    assert total.response_metadata["safety_ratings"] == [
        {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE", "blocked": False}
    ]


def test_stream_of_a_function_call(google_kwargs):
    class Weather(BaseModel):
        """Weather in a city."""

        city: str

    llm = ChatGoogleGenerativeAI(model=MODEL, **google_kwargs).bind_tools(
        [Weather], tool_choice="any"
    )
    total = merged(list(llm.stream("what is the weather")))
    assert [(c["name"], c["args"]) for c in total.tool_calls] == [("Weather", {"city": "text"})]


def test_image_content_block_is_sent_inline(llm, emulator):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    message = HumanMessage(
        content=[
            {"type": "text", "text": "describe"},
            {"type": "image_url", "image_url": {"url": url}},
            {
                "type": "image",
                "source_type": "base64",
                "mime_type": "image/jpeg",
                "data": base64.b64encode(b"jpg!").decode(),
            },
        ]
    )
    reply = llm.invoke([message])
    assert reply.content == f"echo: describe <image/png {len(png)} bytes> <image/jpeg 4 bytes>"
    parts = emulator.requests()[0].body["contents"][0]["parts"]
    assert parts[1]["inlineData"] == {
        "mimeType": "image/png",
        "data": base64.b64encode(png).decode(),
    }


@pytest.mark.parametrize(
    "block, expected",
    [
        ({"type": "image_url", "image_url": "https://example.com/cat.png"}, "base64 data URL"),
        ({"type": "audio_url", "audio_url": "x"}, "'audio_url' are not supported"),
        ({"type": "image_url", "image_url": "data:image/png;base64,@@@"}, "not valid base64"),
    ],
)
def test_unsupported_content_raises(llm, emulator, block, expected):
    with pytest.raises(ChatGoogleGenerativeAIError, match=expected):
        llm.invoke([HumanMessage(content=[block])])
    assert emulator.requests() == []


def test_unsupported_message_types_raise(llm, emulator):
    class Custom(BaseMessage):
        type: str = "function"

    with pytest.raises(ChatGoogleGenerativeAIError, match="messages of type 'function'"):
        llm.invoke([Custom(content="x")])
    with pytest.raises(ChatGoogleGenerativeAIError, match="must come before the conversation"):
        llm.invoke([HumanMessage("a"), SystemMessage("late")])
    with pytest.raises(ChatGoogleGenerativeAIError, match="at least one non-system message"):
        llm.invoke([SystemMessage("only")])
    assert emulator.requests() == []


def test_convert_system_message_to_human(google_kwargs, emulator):
    llm = ChatGoogleGenerativeAI(model=MODEL, convert_system_message_to_human=True, **google_kwargs)
    llm.invoke([SystemMessage("Rules."), HumanMessage("Question?")])
    body = emulator.requests()[0].body
    assert "systemInstruction" not in body
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Rules."}, {"text": "Question?"}]}
    ]


def test_blocked_prompt_raises_with_the_reason(llm):
    with pytest.raises(
        ChatGoogleGenerativeAIError,
        match="block_reason=SAFETY.*HARM_CATEGORY_DANGEROUS_CONTENT=HIGH",
    ):
        llm.invoke("please BLOCK_ME now")
    with pytest.raises(ChatGoogleGenerativeAIError, match="blocked the prompt"):
        list(llm.stream("BLOCK_ME"))


def test_missing_model_is_not_retried(google_kwargs, emulator):
    llm = ChatGoogleGenerativeAI(model="palm-2", **google_kwargs)
    with pytest.raises(ChatGoogleGenerativeAIError, match="HTTP 404 NOT_FOUND") as info:
        llm.invoke("hi")
    assert info.value.status_code == 404 and info.value.attempts == 1
    assert len(emulator.requests()) == 1


def test_async_and_batch(llm, emulator):
    async def run():
        one = await llm.ainvoke("alpha")
        pieces = [c async for c in llm.astream("beta gamma")]
        many = await llm.abatch(["x", "y"])
        return one, pieces, many

    one, pieces, many = asyncio.run(run())
    assert one.content == "echo: alpha"
    assert merged(pieces).content == "echo: beta gamma" and len(pieces) == 3
    assert [m.content for m in many] == ["echo: x", "echo: y"]
    assert [m.content for m in llm.batch(["p", "q", "r"])] == ["echo: p", "echo: q", "echo: r"]
    assert len(emulator.requests("generateContent")) == 6


def test_count_tokens(llm, emulator):
    assert llm.get_num_tokens("one two, three") == 4
    assert llm.get_num_tokens_from_messages([("system", "be kind"), ("human", "hi you")]) == 4
    inner = emulator.requests("countTokens")[1].body["generateContentRequest"]
    assert inner["systemInstruction"] == {"parts": [{"text": "be kind"}]}
    assert inner["model"] == "models/gemini-1.5-flash"


def test_rate_limiter_is_asked_before_each_request(google_kwargs, emulator):
    class Counting:
        calls = 0

        def acquire(self, blocking: bool = True) -> bool:
            Counting.calls += 1
            return True

    llm = ChatGoogleGenerativeAI(model=MODEL, rate_limiter=Counting(), **google_kwargs)
    llm.invoke("a")
    list(llm.stream("b"))
    assert Counting.calls == 2 == len(emulator.requests())


def test_langchain_rate_limiter_works(google_kwargs):
    from langchain_core.rate_limiters import InMemoryRateLimiter

    limiter = InMemoryRateLimiter(
        requests_per_second=1000, check_every_n_seconds=0.001, max_bucket_size=10
    )
    llm = ChatGoogleGenerativeAI(model=MODEL, rate_limiter=limiter, **google_kwargs)
    assert llm.invoke("ok").content == "echo: ok"


def test_in_a_prompt_chain(llm):
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You are terse."), ("human", "Topic: {topic}")]
    )
    chain = prompt | llm | StrOutputParser()
    assert chain.invoke({"topic": "tides"}) == "echo: Topic: tides"
    assert "".join(chain.stream({"topic": "moon"})) == "echo: Topic: moon"


def test_function_call_args_keep_ints(llm, emulator):
    emulator.reply(
        "generateContent",
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {
                                "functionCall": {
                                    "name": "add",
                                    "args": {"a": 2, "b": 2.5, "xs": [1, 2]},
                                }
                            }
                        ],
                    },
                    "finishReason": 1,
                }
            ]
        },
    )
    reply = llm.invoke("add")
    [call] = reply.tool_calls
    assert call["args"] == {"a": 2, "b": 2.5, "xs": [1, 2]} and isinstance(call["args"]["a"], int)
    assert call["id"]  # Gemini sends no id; one is made up so tool messages can refer to it
    assert json.dumps(call["args"])


def test_copies_with_other_settings_get_their_own_connection(llm, emulator):
    llm.invoke("a")
    other = llm.model_copy(
        update={"client_options": {"api_endpoint": "http://127.0.0.1:9"}, "max_retries": 0}
    )
    with pytest.raises(ChatGoogleGenerativeAIError, match="CONNECTION.*127.0.0.1:9"):
        other.invoke("b")
    assert llm.invoke("c").content == "echo: c" and len(emulator.requests()) == 2


def test_reply_stopped_for_safety_is_an_empty_message(llm, emulator):
    emulator.reply(
        "generateContent",
        {
            "candidates": [
                {
                    "finishReason": 3,
                    "safetyRatings": [{"category": 10, "probability": 4, "blocked": True}],
                }
            ]
        },
    )
    reply = llm.invoke("something risky")
    assert reply.content == "" and reply.response_metadata["finish_reason"] == "SAFETY"
    assert reply.response_metadata["safety_ratings"][0]["blocked"] is True
