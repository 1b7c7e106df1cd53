"""Structured queries translated into the ``filter=`` of ragkit's vector stores.

:class:`MetadataFilterTranslator` writes ragkit's filter language
(:mod:`ragkit.stores.filters`, LangChain's ``$eq $ne $gt $gte $lt $lte $in $nin
$and $or $not`` dicts), which ``FaissStore``, ``InMemoryVectorStore`` and
``PGVectorStore`` all take. :class:`GoogleFilterTranslator` writes the subset
Google's corpus search takes (conditions on attributes, all of which must hold).
:func:`translator_for` picks one for a store. ``contain`` and ``like`` have no
equivalent in these filters, so they are not offered to the model.

Dates (``{"date": "2024-01-31", "type": "date"}``) become ISO strings, which order
correctly against dates stored as ISO strings in metadata. With the attribute types
of ``metadata_field_info``, :func:`coerce_values` turns numbers the model wrote as
strings (``"8.5"`` for a ``float`` attribute) into numbers, so a comparison does not
silently match nothing.

Example:
    >>> from ragkit.retrievers.self_query.expression import parse_filter
    >>> f = parse_filter('and(gt("year", 2000), in("genre", ["a", "b"]))')
    >>> MetadataFilterTranslator().visit_structured_query(StructuredQuery("space", f))
    ('space', {'filter': {'$and': [{'year': {'$gt': 2000}}, {'genre': {'$in': ['a', 'b']}}]}})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.retrievers.self_query.structured_query import (
    AttributeInfo,
    Comparator,
    Comparison,
    FilterDirective,
    Operation,
    Operator,
    StructuredQuery,
    Visitor,
)

_OPS = {
    Comparator.EQ: "$eq",
    Comparator.NE: "$ne",
    Comparator.GT: "$gt",
    Comparator.GTE: "$gte",
    Comparator.LT: "$lt",
    Comparator.LTE: "$lte",
    Comparator.IN: "$in",
    Comparator.NIN: "$nin",
}
_INTEGER = frozenset(("int", "integer", "long"))
_FLOAT = frozenset(("float", "double", "number", "decimal"))


def plain(value: Any) -> Any:
    """A parsed value as the filters compare it (dates and date-times as ISO strings)."""
    if isinstance(value, dict) and value.get("type") in ("date", "datetime"):
        return value[value["type"]]
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _refuse(what: str) -> OutputParserException:
    return OutputParserException(what)


class MetadataFilterTranslator(Visitor):
    """Into ragkit's filter dicts (every store that takes ``filter={"key": {"$op": value}}``)."""

    allowed_comparators: Sequence[Comparator] | None = tuple(_OPS)
    allowed_operators: Sequence[Operator] | None = (Operator.AND, Operator.OR, Operator.NOT)

    def _check(self, func: Comparator | Operator) -> None:
        allowed = (
            self.allowed_comparators if isinstance(func, Comparator) else self.allowed_operators
        )
        if allowed is not None and func not in allowed:
            kind = "comparator" if isinstance(func, Comparator) else "operator"
            raise _refuse(
                f"the {kind} {func.value!r} cannot be applied by {type(self).__name__}; "
                f"allowed: {', '.join(f.value for f in allowed)}"
            )

    def visit_comparison(self, comparison: Comparison) -> dict[str, Any]:
        self._check(comparison.comparator)
        value = plain(comparison.value)
        if comparison.comparator in (Comparator.IN, Comparator.NIN) and not isinstance(value, list):
            value = [value]
        return {comparison.attribute: {_OPS[comparison.comparator]: value}}

    def visit_operation(self, operation: Operation) -> dict[str, Any]:
        self._check(operation.operator)
        args = [arg.accept(self) for arg in operation.arguments]
        if operation.operator is Operator.NOT:
            if len(args) != 1:
                raise _refuse(f"not() takes one statement, got {len(args)}: {operation}")
            return {"$not": args[0]}
        return {f"${operation.operator.value}": args}

    def visit_structured_query(
        self, structured_query: StructuredQuery
    ) -> tuple[str, dict[str, Any]]:
        if structured_query.filter is None:
            return structured_query.query, {}
        return structured_query.query, {"filter": structured_query.filter.accept(self)}


class GoogleFilterTranslator(MetadataFilterTranslator):
    """Into the filters of ``GoogleVectorStore``: conditions joined by ``and`` only."""

    allowed_comparators = (
        Comparator.EQ,
        Comparator.NE,
        Comparator.GT,
        Comparator.GTE,
        Comparator.LT,
        Comparator.LTE,
        Comparator.IN,
    )
    allowed_operators = (Operator.AND,)

    def visit_operation(self, operation: Operation) -> dict[str, Any]:
        self._check(operation.operator)
        merged: dict[str, dict[str, Any]] = {}
        for arg in operation.arguments:
            for key, condition in arg.accept(self).items():
                slot = merged.setdefault(key, {})
                for op, value in condition.items():
                    if op in slot and slot[op] != value:
                        raise _refuse(
                            f"the filter {operation} applies {op} to {key!r} twice; Google's "
                            "corpus filters cannot express that"
                        )
                    slot[op] = value
        return merged


def translator_for(vectorstore: Any) -> Visitor:
    """The translator for ``vectorstore`` (ConfigurationError when ragkit has none)."""
    from ragkit.stores.base import VectorStore

    if type(vectorstore).__name__ == "GoogleVectorStore":
        return GoogleFilterTranslator()
    if isinstance(vectorstore, VectorStore):
        return MetadataFilterTranslator()
    raise ConfigurationError(
        f"SelfQueryRetriever has no translator for {type(vectorstore).__name__}; pass "
        "structured_query_translator= (a Visitor) for it"
    )


def coerce_values(
    directive: FilterDirective | None, info: Sequence[AttributeInfo | dict[str, Any]]
) -> FilterDirective | None:
    """``directive`` with string numbers turned into numbers for ``integer``/``float`` attributes."""
    if directive is None:
        return None
    types = {}
    for item in info:
        fields = item.model_dump() if isinstance(item, AttributeInfo) else dict(item)
        types[fields.get("name")] = str(fields.get("type", "")).lower()

    def fix(node: FilterDirective) -> FilterDirective:
        if isinstance(node, Operation):
            return Operation(node.operator, [fix(arg) for arg in node.arguments])
        kind = types.get(node.attribute, "")
        number = int if kind in _INTEGER else float if kind in _FLOAT else None
        if number is None:
            return node
        value = node.value
        items = value if isinstance(value, list) else [value]
        converted = []
        for item in items:
            if isinstance(item, str):
                try:
                    item = number(item.strip())
                except ValueError:
                    raise _refuse(
                        f"the filter {node} compares the {kind} attribute {node.attribute!r} "
                        f"with {item!r}, which is not a number"
                    ) from None
            converted.append(item)
        return Comparison(
            node.comparator, node.attribute, converted if isinstance(value, list) else converted[0]
        )

    return fix(directive)
