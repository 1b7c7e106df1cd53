"""Structured output: LangChain's three schema forms and three methods, validated replies.

``with_structured_output(schema, method=...)`` takes

- a pydantic class (the reply becomes an instance of it),
- a ``TypedDict`` class (a dict; ``Annotated[type, default, "description"]`` fields as
  in LangChain), or
- a JSON-schema dict keyed by ``title`` (or an OpenAI-style ``{"name", "parameters"}``
  tool dict) (a dict),

and asks the model for it by ``"function_calling"`` (a forced tool call),
``"json_mode"`` (JSON text) or ``"json_schema"`` (JSON text constrained by the schema,
where the provider can). Every reply is checked against the schema: one that does not
match raises :class:`~ragkit.errors.OutputParserException` carrying the reply's text,
or, with ``include_raw=True``, comes back as ``{"raw", "parsed": None, "parsing_error"}``.

Example:
    >>> from typing_extensions import Annotated, TypedDict
    >>> class Joke(TypedDict):
    ...     '''A joke.'''
    ...     setup: Annotated[str, ..., "The setup"]
    ...     rating: Annotated[int | None, None, "From 1 to 10"]
    >>> spec = output_schema(Joke)
    >>> spec.name, spec.parameters["required"], spec.parameters["properties"]["setup"]
    ('Joke', ['setup'], {'description': 'The setup', 'type': 'string'})
    >>> spec.check({"setup": "Why?"}, '{"setup": "Why?"}')
    {'setup': 'Why?'}
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, Field, ValidationError, create_model
from typing_extensions import is_typeddict

from ragkit._json import extract_json_text
from ragkit._schema import tool_schema
from ragkit.errors import ConfigurationError, InputTypeError, OutputParserException

Method = Literal["function_calling", "json_mode", "json_schema"]
METHODS: tuple[str, ...] = ("function_calling", "json_mode", "json_schema")


@dataclass(frozen=True)
class OutputSchema:
    """One schema, normalised: its name, description, JSON schema and how replies are checked."""

    name: str
    description: str
    parameters: dict[str, Any]
    kind: Literal["pydantic", "typeddict", "json_schema"]
    model: type[BaseModel] | None = None
    """The pydantic class (given, or made from a TypedDict) that checks replies."""

    def tool(self) -> dict[str, Any]:
        """The schema as a tool for ``bind_tools``."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def check(self, data: Any, text: str) -> Any:
        """``data`` (parsed from the reply ``text``) checked against the schema.

        A pydantic schema gives an instance; the others give ``data`` itself (a dict, as in
        LangChain). A mismatch raises ``OutputParserException`` carrying ``text``.
        """
        if self.model is not None:
            try:
                instance = self.model.model_validate(data)
            except ValidationError as err:
                raise OutputParserException(
                    f"the reply does not match {self.name!r}: {_short(err)}", llm_output=text
                ) from err
            return instance if self.kind == "pydantic" else data
        import jsonschema

        try:
            jsonschema.validate(data, self.parameters)
        except jsonschema.ValidationError as err:
            where = "/".join(str(p) for p in err.absolute_path) or "the top level"
            raise OutputParserException(
                f"the reply does not match {self.name!r} at {where}: {err.message}",
                llm_output=text,
            ) from err
        except jsonschema.SchemaError as err:
            raise ConfigurationError(
                f"the JSON schema {self.name!r} is not a valid JSON schema: {err.message}"
            ) from err
        return data

    def from_text(self, text: str) -> Any:
        """Parse a JSON reply and check it."""
        try:
            data = json.loads(extract_json_text(text))
        except json.JSONDecodeError as err:
            raise OutputParserException(
                f"the reply is not JSON ({err.msg} at character {err.pos}), so it cannot be "
                f"read as {self.name!r}",
                llm_output=text,
            ) from err
        return self.check(data, text)


def _short(err: ValidationError) -> str:
    parts = []
    for e in err.errors()[:5]:
        where = ".".join(str(p) for p in e["loc"]) or "the top level"
        parts.append(f"{where}: {e['msg']}")
    more = f" (and {err.error_count() - 5} more)" if err.error_count() > 5 else ""
    return "; ".join(parts) + more


def output_schema(schema: Any, *, need_name: bool = True) -> OutputSchema:
    """Normalise a pydantic class, a TypedDict class or a JSON-schema / tool dict."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        spec = tool_schema(schema)
        return OutputSchema(
            spec["name"], spec["description"], spec["parameters"], "pydantic", schema
        )
    if is_typeddict(schema):
        model = _typeddict_model(schema)
        spec = tool_schema(model)
        description = _own_doc(schema) or ""
        return OutputSchema(schema.__name__, description, spec["parameters"], "typeddict", model)
    if isinstance(schema, dict):
        return _dict_schema(schema, need_name)
    raise InputTypeError(
        "with_structured_output takes a pydantic class, a TypedDict class or a JSON-schema dict, "
        f"got {type(schema).__name__}: {schema!r:.80}"
    )


def _dict_schema(schema: dict[str, Any], need_name: bool) -> OutputSchema:
    if "function" in schema and isinstance(schema["function"], dict):
        schema = schema["function"]
    if "name" in schema and ("parameters" in schema or "input_schema" in schema):
        spec = tool_schema(schema)
        return OutputSchema(spec["name"], spec["description"], spec["parameters"], "json_schema")
    name = schema.get("title")
    if not isinstance(name, str) or not name:
        if need_name:
            raise ConfigurationError(
                "a JSON-schema dict for structured output needs a top-level 'title' (its name), "
                f"as in LangChain; got keys {sorted(schema)}"
            )
        name = "output"
    parameters = {k: v for k, v in schema.items() if k not in ("title", "description")}
    return OutputSchema(name, str(schema.get("description") or ""), parameters, "json_schema")


# -- TypedDict -> pydantic ----------------------------------------------------------------
def _typeddict_model(typed_dict: Any) -> type[BaseModel]:
    hints = get_type_hints(typed_dict, include_extras=True)
    required = set(getattr(typed_dict, "__required_keys__", hints))
    fields: dict[str, Any] = {}
    for key, annotation in hints.items():
        default: Any = ... if key in required else None
        description = None
        if get_origin(annotation) is Annotated:
            args = get_args(annotation)
            annotation = args[0]
            extra = dict(zip(("default", "description"), args[1:]))
            if "default" in extra and extra["default"] is not ...:
                default = extra["default"]
            description = extra.get("description")
            if description is not None and not isinstance(description, str):
                raise ConfigurationError(
                    f"{typed_dict.__name__}.{key}: the third argument of Annotated must be a "
                    f"string description, got {type(description).__name__}"
                )
        fields[key] = (_convert(annotation), Field(default, description=description))
    return create_model(typed_dict.__name__, __doc__=_own_doc(typed_dict), **fields)


def _own_doc(cls: Any) -> str | None:
    """The class's own docstring (a TypedDict without one would report dict's)."""
    doc = cls.__dict__.get("__doc__")
    return inspect.cleandoc(doc) if isinstance(doc, str) else None


def _convert(annotation: Any) -> Any:
    """Nested TypedDicts become pydantic models (so their Annotated descriptions are read)."""
    if is_typeddict(annotation):
        return _typeddict_model(annotation)
    origin: Any = get_origin(annotation)
    args = get_args(annotation)
    if not args:
        return annotation
    if origin is Annotated:
        inner = _convert(args[0])
        return Annotated.__class_getitem__((inner, *annotation.__metadata__))
    converted = tuple(_convert(a) for a in args)
    if converted == args:
        return annotation
    if origin is Union or type(annotation).__name__ == "UnionType":
        return Union.__getitem__(converted)
    if origin in (list, set, frozenset, tuple, dict):
        return origin[converted if len(converted) > 1 else converted[0]]
    return annotation


__all__ = ["METHODS", "Method", "OutputSchema", "output_schema"]
