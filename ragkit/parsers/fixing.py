"""Parsers that ask a model to repair a reply: OutputFixingParser, RetryOutputParser,
RetryWithErrorOutputParser.

They wrap another parser. When it raises :class:`~ragkit.errors.OutputParserException`,
``OutputFixingParser`` shows a model the format instructions, the bad reply and the
error, and parses the model's corrected text; the ``Retry*`` parsers also show the
original prompt (``parse_with_prompt(completion, prompt_value)``). At most
``max_retries`` repairs are attempted; then the last error is raised, carrying the
last text. Neither streams: they parse the whole reply.

Example:
    >>> from ragkit.llms import FakeListLLM
    >>> from ragkit.parsers import JsonOutputParser
    >>> fixer = OutputFixingParser.from_llm(FakeListLLM(['{"a": 1}']), JsonOutputParser())
    >>> fixer.invoke("{a: 1")
    {'a': 1}
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.steps import Steps, adrive, drive
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.parsers.base import BaseOutputParser
from ragkit.parsers.text import StrOutputParser
from ragkit.prompt_values import PromptValue
from ragkit.prompts.base import BasePromptTemplate, PromptTemplate

NAIVE_FIX_PROMPT = PromptTemplate.from_template(
    "A reply had to follow these instructions:\n---\n{instructions}\n---\n"
    "The reply was:\n---\n{completion}\n---\n"
    "It could not be used because of this error:\n---\n{error}\n---\n"
    "Write the reply again so that it follows the instructions. Answer with the reply only:"
)
NAIVE_RETRY_PROMPT = PromptTemplate.from_template(
    "Prompt:\n{prompt}\nCompletion:\n{completion}\n\n"
    "The completion above does not satisfy what the prompt asks for.\n"
    "Answer the prompt again, correctly:"
)
NAIVE_RETRY_WITH_ERROR_PROMPT = PromptTemplate.from_template(
    "Prompt:\n{prompt}\nCompletion:\n{completion}\n\n"
    "The completion above does not satisfy what the prompt asks for.\n"
    "Details: {error}\nAnswer the prompt again, correctly:"
)


def _check_retries(max_retries: int, owner: str) -> int:
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigurationError(
            f"{owner}: max_retries must be an integer >= 0, got {max_retries!r}"
        )
    return max_retries


def _text(reply: Any) -> str:
    return reply if isinstance(reply, str) else str(getattr(reply, "text", reply))


class _Repairing(BaseOutputParser):
    """Shared parts: the wrapped parser, the repair chain, the retry bound."""

    def __init__(
        self, parser: BaseOutputParser, retry_chain: Runnable[Any, Any], max_retries: int = 1
    ) -> None:
        self.parser = parser
        self.retry_chain = retry_chain
        self.max_retries = _check_retries(max_retries, type(self).__name__)

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return self.parser.OutputType

    def get_format_instructions(self) -> str:
        return self.parser.get_format_instructions()

    def _instructions(self) -> str:
        try:
            return self.parser.get_format_instructions()
        except NotImplementedError:
            return ""

    def _repair_steps(self, completion: str, inputs: Any) -> Steps[Any]:
        """Parse, asking ``retry_chain`` for a new completion after each failure
        (:mod:`ragkit.core.steps`: each request is the retry chain's input)."""
        for attempt in range(self.max_retries + 1):
            try:
                return self.parser.parse(completion)
            except OutputParserException as e:
                if attempt == self.max_retries:
                    raise
                request = inputs(completion, e)
            completion = _text((yield request))
        raise AssertionError("unreachable")  # pragma: no cover

    def _repair(self, completion: str, inputs: Any) -> Any:
        return drive(self._repair_steps(completion, inputs), self.retry_chain.invoke)

    async def _arepair(self, completion: str, inputs: Any) -> Any:
        return await adrive(self._repair_steps(completion, inputs), self.retry_chain.ainvoke)


class OutputFixingParser(_Repairing):
    """Parse with ``parser``; on failure ask ``retry_chain`` (a model) to fix the reply."""

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        parser: BaseOutputParser,
        prompt: BasePromptTemplate = NAIVE_FIX_PROMPT,
        max_retries: int = 1,
    ) -> OutputFixingParser:
        """``prompt`` gets ``instructions``, ``completion`` and ``error``."""
        return cls(parser, prompt | llm | StrOutputParser(), max_retries)

    def _inputs(self, completion: str, error: Exception) -> dict[str, str]:
        return {
            "instructions": self._instructions(),
            "completion": completion,
            "error": repr(error),
        }

    def parse(self, text: str) -> Any:
        return self._repair(text, self._inputs)

    async def aparse(self, text: str) -> Any:
        return await self._arepair(text, self._inputs)


class RetryOutputParser(_Repairing):
    """Parse with ``parser``; on failure ask the model to answer the original prompt again."""

    with_error = False

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        parser: BaseOutputParser,
        prompt: BasePromptTemplate | None = None,
        max_retries: int = 1,
    ) -> Any:
        """``prompt`` gets ``prompt`` and ``completion`` (and ``error`` for the error variant)."""
        default = NAIVE_RETRY_WITH_ERROR_PROMPT if cls.with_error else NAIVE_RETRY_PROMPT
        return cls(parser, (prompt or default) | llm | StrOutputParser(), max_retries)

    def parse_with_prompt(self, completion: str, prompt_value: PromptValue) -> Any:
        """Parse ``completion``, the model's answer to ``prompt_value``, retrying on failure."""
        return self._repair(completion, self._inputs_for(prompt_value))

    async def aparse_with_prompt(self, completion: str, prompt_value: PromptValue) -> Any:
        return await self._arepair(completion, self._inputs_for(prompt_value))

    def _inputs_for(self, prompt_value: PromptValue) -> Any:
        def inputs(completion: str, error: Exception) -> dict[str, str]:
            values = {"prompt": prompt_value.to_string(), "completion": completion}
            if self.with_error:
                values["error"] = repr(error)
            return values

        return inputs

    def parse(self, text: str) -> Any:
        raise ConfigurationError(
            f"{type(self).__name__} needs the original prompt: call "
            "parse_with_prompt(completion, prompt_value), e.g. in a RunnableParallel that "
            "keeps the prompt value beside the completion"
        )


class RetryWithErrorOutputParser(RetryOutputParser):
    """:class:`RetryOutputParser` that also shows the model the parse error."""

    with_error = True
