"""The query constructor: a prompt, a chat model, and a parser of the model's structured request.

The model is asked to answer in the format of LangChain's query constructor: a
markdown ```json block with ``"query"`` (text to match), ``"filter"`` (a statement
of :mod:`~ragkit.retrievers.self_query.expression`, or ``"NO_FILTER"``) and, with
``enable_limit``, ``"limit"``. The prompt's wording is ragkit's own; the format
and the meaning of each key are LangChain's, so a model (or a test script) that
answers LangChain's prompt answers this one.

Example:
    >>> parser = StructuredQueryOutputParser.from_components(allowed_attributes=["year"])
    >>> sq = parser.parse('```json\\n{"query": "dinosaurs", "filter": "gt(\\\\"year\\\\", 1990)"}\\n```')
    >>> sq.query, str(sq.filter), sq.limit
    ('dinosaurs', "gt('year', 1990)", None)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragkit._json import extract_json_text
from ragkit.core.base import Runnable
from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.parsers import BaseOutputParser
from ragkit.prompts import PromptTemplate
from ragkit.retrievers.self_query.expression import parse_filter
from ragkit.retrievers.self_query.structured_query import (
    AttributeInfo,
    Comparator,
    Operator,
    StructuredQuery,
)

NO_FILTER = "NO_FILTER"

_FORMAT = """\
Turn the user's question into a structured request for a search over documents.

<< Structured request format >>
Answer with a markdown code block holding one JSON object with these keys:

```json
{{
    "query": string  (words to match against the contents of the documents)
    "filter": string  (a condition on the documents' attributes, or "NO_FILTER")LIMIT_KEY
}}
```

Put in "query" only what should match the text of the documents; what the filter \
expresses stays out of it.

A condition is made of comparisons and logical operations:
- a comparison is `comp("attr", value)`: `comp` is one of {comparators}; `attr` is the \
name of an attribute of the data source; `value` is a string, a number, true or false, \
a list, or a date
- a logical operation is `op(statement, ...)`: `op` is one of {operators}; each \
statement is a comparison or another logical operation

Use only the comparators, logical operators and attributes listed. Write dates as \
YYYY-MM-DD. Only make comparisons that the type and description of an attribute allow. \
When no condition is needed, set "filter" to "NO_FILTER".LIMIT_RULE\
"""
_LIMIT_KEY = '\n    "limit": integer  (how many documents to return; leave it out if not asked)'
_LIMIT_RULE = '\nSet "limit" only when the question asks for a number of documents.'

_EXAMPLE_SOURCE = {
    "content": "Reviews of bicycles",
    "attributes": {
        "brand": {"type": "string", "description": "Maker of the bicycle"},
        "price": {"type": "integer", "description": "Price in US dollars"},
        "year": {"type": "integer", "description": "Model year"},
    },
}


def _examples(
    operators: Sequence[Operator], enable_limit: bool
) -> list[tuple[str, dict[str, Any]]]:
    brands = (
        'or(eq("brand", "Trek"), eq("brand", "Canyon"))'
        if Operator.OR in operators
        else 'eq("brand", "Trek")'
    )
    first = (
        f'and({brands}, lt("price", 2000))' if Operator.AND in operators else 'lt("price", 2000)'
    )
    out: list[tuple[str, dict[str, Any]]] = [
        (
            "Light road bikes from Trek or Canyon under 2000 dollars",
            {"query": "light road bike", "filter": first},
        ),
        ("Reviews that mention a bell", {"query": "bell", "filter": NO_FILTER}),
    ]
    if enable_limit:
        out.append(
            (
                "Two reviews of mountain bikes",
                {"query": "mountain bike", "filter": NO_FILTER, "limit": 2},
            )
        )
    return out


def _block(value: Any) -> str:
    return "```json\n" + json.dumps(value, indent=4, ensure_ascii=False) + "\n```"


def _attributes(info: Sequence[AttributeInfo | dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in info:
        fields = dict(item.model_dump() if isinstance(item, AttributeInfo) else item)
        name = fields.pop("name", None)
        if not isinstance(name, str):
            raise ConfigurationError(f"metadata_field_info: {item!r} has no 'name'")
        out[name] = fields
    return out


def attribute_names(info: Sequence[AttributeInfo | dict[str, Any]]) -> list[str]:
    """The names of the attributes described by ``info``."""
    return list(_attributes(info))


def get_query_constructor_prompt(
    document_contents: str,
    attribute_info: Sequence[AttributeInfo | dict[str, Any]],
    *,
    examples: Sequence[Any] | None = None,
    allowed_comparators: Sequence[Comparator] = tuple(Comparator),
    allowed_operators: Sequence[Operator] = tuple(Operator),
    enable_limit: bool = False,
) -> PromptTemplate:
    """The prompt (input variable ``query``) asking a model for a structured request.

    ``examples`` are ``(question, {"query": ..., "filter": ...})`` pairs about the same data
    source; without them ragkit shows worked examples about another data source.
    """
    rules = (
        _FORMAT.replace("LIMIT_KEY", _LIMIT_KEY if enable_limit else "")
        .replace("LIMIT_RULE", _LIMIT_RULE if enable_limit else "")
        .format(
            comparators=" | ".join(Comparator(c).value for c in allowed_comparators),
            operators=" | ".join(Operator(o).value for o in allowed_operators),
        )
    )
    source = {"content": document_contents, "attributes": _attributes(attribute_info)}
    if examples and not isinstance(examples[0], tuple):
        raise ConfigurationError(
            "examples must be (question, {'query': ..., 'filter': ...}) pairs, got "
            f"{type(examples[0]).__name__} items"
        )
    own = bool(examples)
    pairs = list(examples) if examples else _examples(allowed_operators, enable_limit)
    parts = [
        rules,
        "<< Examples >>\nThe examples search "
        + ("the same data source as the question:" if own else "this data source:")
        + "\n"
        + _block(source if own else _EXAMPLE_SOURCE),
    ]
    for i, (question, answer) in enumerate(pairs, 1):
        parts.append(
            f"<< Example {i} >>\nQuestion:\n{question}\n\nStructured request:\n{_block(answer)}"
        )
    final = "<< Your turn >>\n" + ("" if own else f"Data source:\n{_block(source)}\n\n")
    text = "\n\n".join([*parts, final]).replace("{", "{{").replace("}", "}}")
    return PromptTemplate.from_template(text + "Question:\n{query}\n\nStructured request:\n")


@dataclass(eq=False, repr=False)
class StructuredQueryOutputParser(BaseOutputParser):
    """Parses the model's reply into a :class:`StructuredQuery` (LangChain's parser of that name).

    Raises :class:`~ragkit.errors.OutputParserException` (with the reply in ``llm_output``)
    for a reply that is not the JSON object asked for, or whose filter is not valid.
    """

    allowed_comparators: Sequence[Comparator] | None = None
    allowed_operators: Sequence[Operator] | None = None
    allowed_attributes: Sequence[str] | None = None
    fix_invalid: bool = False

    @classmethod
    def from_components(
        cls,
        allowed_comparators: Sequence[Comparator] | None = None,
        allowed_operators: Sequence[Operator] | None = None,
        allowed_attributes: Sequence[str] | None = None,
        fix_invalid: bool = False,
    ) -> StructuredQueryOutputParser:
        return cls(allowed_comparators, allowed_operators, allowed_attributes, fix_invalid)

    def parse(self, text: str) -> StructuredQuery:
        def fail(message: str) -> OutputParserException:
            return OutputParserException(f"{message}. Reply: {text!r:.300}", llm_output=text)

        try:
            parsed = json.loads(extract_json_text(text), strict=False)
        except json.JSONDecodeError as e:
            raise fail(f"the model's structured request is not JSON ({e})") from e
        if not isinstance(parsed, dict):
            raise fail("the model's structured request is not a JSON object")
        for key in ("query", "filter"):
            if key not in parsed:
                raise fail(f"the model's structured request lacks the key {key!r}")
        query = parsed["query"]
        if query is not None and not isinstance(query, str):
            raise fail(f"the model's 'query' is not a string: {query!r}")
        raw = parsed["filter"]
        directive = None
        if raw and raw != NO_FILTER:
            if not isinstance(raw, str):
                raise fail(f"the model's 'filter' is not a string statement: {raw!r}")
            directive = parse_filter(
                raw,
                allowed_comparators=self.allowed_comparators,
                allowed_operators=self.allowed_operators,
                allowed_attributes=self.allowed_attributes,
                fix_invalid=self.fix_invalid,
            )
        limit = parsed.get("limit") or None
        if limit is not None:
            if isinstance(limit, str) and limit.strip().isdigit():
                limit = int(limit)
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
                raise fail(f"the model's 'limit' is not a whole number: {limit!r}")
        return StructuredQuery(query or " ", directive, limit)


def load_query_constructor_runnable(
    llm: Runnable[Any, Any],
    document_contents: str,
    attribute_info: Sequence[AttributeInfo | dict[str, Any]],
    *,
    examples: Sequence[Any] | None = None,
    allowed_comparators: Sequence[Comparator] = tuple(Comparator),
    allowed_operators: Sequence[Operator] = tuple(Operator),
    enable_limit: bool = False,
    schema_prompt: Any = None,
    fix_invalid: bool = False,
) -> Runnable[Any, Any]:
    """``prompt | llm | parser``: from ``{"query": question}`` to a :class:`StructuredQuery`."""
    if schema_prompt is not None:
        raise ConfigurationError(
            "schema_prompt is not supported: ragkit writes its own instructions; pass examples= "
            "to show the model how to answer"
        )
    prompt = get_query_constructor_prompt(
        document_contents,
        attribute_info,
        examples=examples,
        allowed_comparators=allowed_comparators,
        allowed_operators=allowed_operators,
        enable_limit=enable_limit,
    )
    parser = StructuredQueryOutputParser.from_components(
        allowed_comparators, allowed_operators, attribute_names(attribute_info), fix_invalid
    )
    return prompt | llm | parser
