"""The structured query a model writes for a self-querying retriever, as data.

A :class:`StructuredQuery` is a search text, an optional filter (a tree of
:class:`Comparison` and :class:`Operation` nodes) and an optional limit. The names
(``Comparator``, ``Operator``, ``Visitor`` with ``visit_comparison``,
``visit_operation``, ``visit_structured_query``) are langchain-core's, so a
translator written for LangChain ports by changing its imports.
:class:`AttributeInfo` describes one metadata field to the model.

Example:
    >>> f = Operation(Operator.AND, [Comparison(Comparator.GT, "year", 2000),
    ...                              Comparison(Comparator.EQ, "genre", "sci-fi")])
    >>> str(f)
    "and(gt('year', 2000), eq('genre', 'sci-fi'))"
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict


class Comparator(str, Enum):
    """How a metadata field is compared with a value."""

    EQ = "eq"
    NE = "ne"
    GT = "gt"
    GTE = "gte"
    LT = "lt"
    LTE = "lte"
    CONTAIN = "contain"
    LIKE = "like"
    IN = "in"
    NIN = "nin"


class Operator(str, Enum):
    """How filter statements combine."""

    AND = "and"
    OR = "or"
    NOT = "not"


@dataclass(frozen=True)
class Comparison:
    """``comparator(attribute, value)``, e.g. ``gt("year", 2000)``."""

    comparator: Comparator
    attribute: str
    value: Any

    def accept(self, visitor: Visitor) -> Any:
        return visitor.visit_comparison(self)

    def __str__(self) -> str:
        return f"{self.comparator.value}({self.attribute!r}, {self.value!r})"


@dataclass(frozen=True)
class Operation:
    """``operator(statement, ...)``, e.g. ``and(eq(...), lt(...))``."""

    operator: Operator
    arguments: list[FilterDirective]

    def accept(self, visitor: Visitor) -> Any:
        return visitor.visit_operation(self)

    def __str__(self) -> str:
        return f"{self.operator.value}({', '.join(str(a) for a in self.arguments)})"


FilterDirective = Comparison | Operation


@dataclass(frozen=True)
class StructuredQuery:
    """What the model asked for: ``query`` text, an optional ``filter``, an optional ``limit``."""

    query: str
    filter: FilterDirective | None = None
    limit: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def accept(self, visitor: Visitor) -> Any:
        return visitor.visit_structured_query(self)


class AttributeInfo(BaseModel):
    """A metadata field the model may filter on: its ``name``, a ``description`` and a ``type``.

    >>> AttributeInfo(name="year", description="Year the movie was released", type="integer").name
    'year'
    """

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    type: str


class Visitor(ABC):
    """Translates a structured query into what a store's search takes.

    ``allowed_comparators`` / ``allowed_operators`` (None: all) are what the store can do;
    the prompt offers the model only those, and anything else is refused by name.
    """

    allowed_comparators: Sequence[Comparator] | None = None
    allowed_operators: Sequence[Operator] | None = None

    @abstractmethod
    def visit_operation(self, operation: Operation) -> Any:
        """Translate an :class:`Operation`."""

    @abstractmethod
    def visit_comparison(self, comparison: Comparison) -> Any:
        """Translate a :class:`Comparison`."""

    @abstractmethod
    def visit_structured_query(
        self, structured_query: StructuredQuery
    ) -> tuple[str, dict[str, Any]]:
        """``(query text, search keyword arguments)`` for the store."""
