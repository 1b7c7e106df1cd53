"""ragkit.prompts: string and chat templates, placeholders, partials."""

from __future__ import annotations

import pytest

from ragkit.messages import SystemMessage
from ragkit.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate


def test_prompt_template_fstring_mustache_partial_and_add() -> None:
    p = PromptTemplate.from_template("{greeting}, {name}!")
    assert p.input_variables == ["greeting", "name"]
    assert p.partial(greeting="Hello").format(name="Ada") == "Hello, Ada!"
    assert (p + " Bye {name}.").format(greeting="Hi", name="Bo") == "Hi, Bo! Bye Bo."
    m = PromptTemplate.from_template(
        "{{#items}}<{{.}}>{{/items}} {{who}}", template_format="mustache"
    )
    assert m.input_variables == ["items", "who"]
    assert m.format(items=["a", "b"], who="x & y") == "<a><b> x &amp; y"
    assert PromptTemplate.from_template("{x}").invoke("solo").to_string() == "solo"


def test_chat_prompt_roles_placeholders_and_multimodal_blocks() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [
            SystemMessage("fixed"),
            ("system", "You are {role}."),
            MessagesPlaceholder("history", optional=True),
            (
                "human",
                [
                    {"type": "text", "text": "{q}"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,{img}"}},
                ],
            ),
        ]
    )
    assert prompt.input_variables == ["img", "q", "role"]
    value = prompt.invoke(
        {"role": "terse", "q": "what?", "img": "AAAA", "history": [("ai", "earlier")]}
    )
    msgs = value.to_messages()
    assert [m.type for m in msgs] == ["system", "system", "ai", "human"]
    assert msgs[1].content == "You are terse."
    assert msgs[3].content[1]["image_url"]["url"] == "data:image/png;base64,AAAA"
    assert value.to_string().startswith("System: fixed\nSystem: You are terse.")
    with pytest.raises(TypeError, match="list of messages"):
        prompt.invoke({"role": "r", "q": "q", "img": "i", "history": "not a list"})
