"""OutputFixingParser, RetryOutputParser, RetryWithErrorOutputParser: repair via a model,
bounded by max_retries; differential against langchain-classic with scripted models."""

from __future__ import annotations

import asyncio

import pytest
from langchain_classic.output_parsers import OutputFixingParser as LcFixing
from langchain_classic.output_parsers import RetryWithErrorOutputParser as LcRetryWithError
from langchain_core.exceptions import OutputParserException as LcParserError
from langchain_core.language_models import FakeListLLM as LcFakeListLLM
from langchain_core.output_parsers import PydanticOutputParser as LcPydantic
from langchain_core.prompts import PromptTemplate as LcPromptTemplate
from pydantic import BaseModel

from ragkit.core import RunnableParallel
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.llms import FakeListLLM
from ragkit.models import FakeChatModel
from ragkit.parsers import (
    JsonOutputParser,
    OutputFixingParser,
    PydanticOutputParser,
    RetryOutputParser,
    RetryWithErrorOutputParser,
)
from ragkit.prompts import PromptTemplate


class A(BaseModel):
    a: int


SCRIPTS = [
    ("{a: 1", ['{"a": 1}'], 1),
    ("{a: 1", ["still bad", '{"a": 2}'], 2),
    ("{a: 1", ["still bad", "bad again", '{"a": 3}'], 1),
    ('{"a": 0}', ["never used"], 1),
]


def outcome(call):
    try:
        return call()
    except (OutputParserException, LcParserError):
        return "raised"


@pytest.mark.parametrize(("bad", "replies", "max_retries"), SCRIPTS)
def test_output_fixing_parser_matches_langchain(bad, replies, max_retries):
    ours_llm, theirs_llm = FakeListLLM(list(replies)), LcFakeListLLM(responses=list(replies))
    ours = OutputFixingParser.from_llm(ours_llm, PydanticOutputParser(A), max_retries=max_retries)
    theirs = LcFixing.from_llm(theirs_llm, LcPydantic(pydantic_object=A), max_retries=max_retries)
    assert outcome(lambda: ours.parse(bad)) == outcome(lambda: theirs.parse(bad))
    assert ours_llm.i == theirs_llm.i  # the same number of repair calls


def test_the_repair_prompt_carries_instructions_completion_and_error():
    llm = FakeListLLM(['{"a": 1}'])
    OutputFixingParser.from_llm(llm, JsonOutputParser()).invoke("{a: 1")
    [prompt] = llm.prompts
    assert "Return a JSON object." in prompt and "{a: 1" in prompt
    assert "OutputParserException" in prompt


def test_giving_up_raises_the_last_error_with_the_last_text():
    fixer = OutputFixingParser.from_llm(
        FakeChatModel(["nope", "worse"]), JsonOutputParser(), max_retries=2
    )
    with pytest.raises(OutputParserException) as info:
        fixer.invoke("{bad")
    assert info.value.llm_output == "worse"


def test_async_repair():
    fixer = OutputFixingParser.from_llm(FakeListLLM(['{"x": 1}']), JsonOutputParser())
    assert asyncio.run(fixer.aparse("{x:")) == {"x": 1}
    assert asyncio.run(fixer.ainvoke("{x:")) == {"x": 1}


def test_fixing_parser_in_a_chain_does_not_stream_partial_output():
    fixer = OutputFixingParser.from_llm(FakeListLLM(['{"a": [1, 2]}']), JsonOutputParser())
    chunks = list((FakeChatModel(['{"a": [1, 2']) | fixer).stream("q"))
    assert chunks == [{"a": [1, 2]}]


@pytest.mark.parametrize(("bad", "replies", "max_retries"), SCRIPTS)
def test_retry_with_error_parser_matches_langchain(bad, replies, max_retries):
    from langchain_core.prompt_values import StringPromptValue as LcPromptValue

    from ragkit.prompt_values import StringPromptValue

    ours_llm, theirs_llm = FakeListLLM(list(replies)), LcFakeListLLM(responses=list(replies))
    ours = RetryWithErrorOutputParser.from_llm(
        ours_llm, PydanticOutputParser(A), max_retries=max_retries
    )
    theirs = LcRetryWithError.from_llm(
        theirs_llm, LcPydantic(pydantic_object=A), max_retries=max_retries
    )
    question = "Give me JSON with key a"
    assert outcome(
        lambda: ours.parse_with_prompt(bad, StringPromptValue(text=question))
    ) == outcome(lambda: theirs.parse_with_prompt(bad, LcPromptValue(text=question)))
    assert ours_llm.i == theirs_llm.i
    if ours_llm.prompts:
        assert question in ours_llm.prompts[0] and "Details:" in ours_llm.prompts[0]


def test_retry_parser_in_a_chain_with_the_prompt_kept_beside_the_completion():
    prompt = PromptTemplate.from_template("Answer in JSON: {q}")
    llm = FakeListLLM(["not json", '{"answer": 42}'])
    retry = RetryOutputParser.from_llm(llm, JsonOutputParser())
    chain = RunnableParallel(completion=prompt | llm, prompt_value=prompt) | (
        lambda x: retry.parse_with_prompt(x["completion"], x["prompt_value"])
    )
    assert chain.invoke({"q": "meaning?"}) == {"answer": 42}
    assert "Answer in JSON: meaning?" in llm.prompts[1] and "Details" not in llm.prompts[1]
    assert LcPromptTemplate  # LangChain's retry parsers are used the same way


def test_retry_parsers_need_the_prompt_and_a_sane_bound():
    with pytest.raises(ConfigurationError, match="parse_with_prompt"):
        RetryOutputParser.from_llm(FakeListLLM(["x"]), JsonOutputParser()).parse("x")
    with pytest.raises(ConfigurationError, match="max_retries"):
        OutputFixingParser.from_llm(FakeListLLM(["x"]), JsonOutputParser(), max_retries=-1)
