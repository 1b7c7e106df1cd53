"""The wire format: what LangServe sends for documents, messages and prompt values becomes the
matching ragkit objects, and ragkit's objects go out in LangServe's shapes."""

from __future__ import annotations

from langchain_core.documents import Document as LCDocument
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.messages import AIMessageChunk as LCAIMessageChunk
from langchain_core.messages import HumanMessage as LCHumanMessage
from langchain_core.prompt_values import ChatPromptValueConcrete as LCChatPromptValue
from langchain_core.prompt_values import StringPromptValue as LCStringPromptValue
from langserve.serialization import WellKnownLCSerializer

from ragkit import Document
from ragkit.core.log import RunLogPatch
from ragkit.messages import AIMessage, AIMessageChunk, HumanMessage
from ragkit.prompt_values import ChatPromptValue, StringPromptValue
from ragkit.serve.wire import dumpd, dumps, loadd, loads

LANGSERVE = WellKnownLCSerializer()


def test_langchain_objects_become_ragkit_objects():
    sent = LANGSERVE.dumpd(
        {
            "docs": [LCDocument("tea", metadata={"page": 1}, id="d1")],
            "messages": [LCHumanMessage("hi"), LCAIMessage("hello", id="m1")],
            "chunk": LCAIMessageChunk(content="par"),
            "prompt": LCStringPromptValue(text="say hi"),
            "chat": LCChatPromptValue(messages=[LCHumanMessage("hi")]),
        }
    )
    got = loadd(sent)
    assert got["docs"] == [Document("tea", metadata={"page": 1}, id="d1")]
    assert [type(m) for m in got["messages"]] == [HumanMessage, AIMessage]
    assert got["messages"][1].content == "hello" and got["messages"][1].id == "m1"
    assert isinstance(got["chunk"], AIMessageChunk) and got["chunk"].content == "par"
    assert got["prompt"] == StringPromptValue(text="say hi")
    assert isinstance(got["chat"], ChatPromptValue)
    assert got["chat"].messages[0].content == "hi"


def test_ragkit_objects_become_langchain_objects_in_langserves_client():
    data = dumps(
        {
            "doc": Document("tea", metadata={"page": 1}),
            "ai": AIMessage("hello"),
            "chunk": AIMessageChunk(content="he"),
        }
    )
    got = LANGSERVE.loads(data)
    assert got["doc"] == LCDocument("tea", metadata={"page": 1})
    assert isinstance(got["ai"], LCAIMessage) and got["ai"].content == "hello"
    assert isinstance(got["chunk"], LCAIMessageChunk)


def test_plain_values_and_look_alikes_stay_as_they_are():
    assert loadd({"type": "Document"}) == {"type": "Document"}  # no page_content: a dict
    assert loadd({"type": "human", "content": 3}) == {"type": "human", "content": 3}
    assert loadd([1, "a", None, {"x": [True]}]) == [1, "a", None, {"x": [True]}]
    patch = RunLogPatch({"op": "add", "path": "/x", "value": 1})
    assert dumpd(patch) == {"ops": [{"op": "add", "path": "/x", "value": 1}]}
    assert loads(b'{"a": 1}') == {"a": 1}
