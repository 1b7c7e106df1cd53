"""A first end-to-end check of the core: prompt | model | parser."""

from ragkit.models import FakeChatModel
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate


def test_prompt_model_parser_invoke_and_stream() -> None:
    chain = (
        ChatPromptTemplate.from_template("Say {x}")
        | FakeChatModel(["Hello big world"])
        | StrOutputParser()
    )
    assert chain.invoke({"x": 1}) == "Hello big world"
    assert list(chain.stream({"x": 1})) == ["Hello", " big", " world"]
