"""Tool schemas: a name, a description and JSON-schema parameters from a
pydantic model, a typed function or a dict.

Example:
    >>> def add(a: int, b: int = 1) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> s = tool_schema(add)
    >>> s["name"], s["description"], s["parameters"]["required"]
    ('add', 'Add two numbers.', ['a'])
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, get_origin

from pydantic import BaseModel, Field, create_model

from ragkit.errors import InputTypeError, ToolSchemaError


def function_args_model(
    func: Callable[..., Any],
    skip: tuple[str, ...] = ("config", "custom_context", "run_manager", "callbacks"),
    *,
    name: str | None = None,
    description: str | None = None,
) -> type[BaseModel]:
    """A pydantic model of a function's parameters (annotations and defaults).

    As LangChain's tool schemas: titled ``name`` (the function's name by default), described
    by ``description``, and ``Annotated[int, "scale factor"]`` describes that parameter.
    """
    sig = inspect.signature(func)
    try:
        hints = inspect.get_annotations(func, eval_str=True)
    except Exception:
        hints = getattr(func, "__annotations__", {})
    fields: dict[str, Any] = {}
    for pname, param in sig.parameters.items():
        if pname in skip or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        ann = hints.get(pname, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        notes = [m for m in getattr(ann, "__metadata__", ()) if isinstance(m, str)]
        if get_origin(ann) is Annotated and notes:
            fields[pname] = (ann.__origin__, Field(default, description=notes[0]))
        else:
            fields[pname] = (ann, default)
    return create_model(name or func.__name__, __doc__=description or None, **fields)


def _clean(schema: dict[str, Any]) -> dict[str, Any]:
    schema = dict(schema)
    schema.pop("title", None)
    schema.pop("description", None)  # the tool's description says it
    props = {}
    for key, value in schema.get("properties", {}).items():
        value = dict(value)
        value.pop("title", None)
        props[key] = value
    schema["properties"] = props
    schema.setdefault("required", [])
    return schema


def tool_schema(obj: Any) -> dict[str, Any]:
    """``{"name", "description", "parameters"}`` for a tool-like object."""
    as_schema = getattr(obj, "tool_schema", None)
    if callable(as_schema):
        return as_schema()
    if isinstance(obj, dict):
        if "function" in obj and isinstance(obj["function"], dict):
            obj = obj["function"]
        if "name" not in obj:
            raise ToolSchemaError(f"A dict tool schema needs a 'name' key, got keys {sorted(obj)}")
        params = (
            obj.get("parameters") or obj.get("input_schema") or {"type": "object", "properties": {}}
        )
        return {
            "name": obj["name"],
            "description": obj.get("description", ""),
            "parameters": params,
        }
    if isinstance(obj, type) and issubclass(obj, BaseModel):
        return {
            "name": obj.__name__,
            "description": inspect.cleandoc(obj.__doc__ or ""),
            "parameters": _clean(obj.model_json_schema()),
        }
    if callable(obj):
        model = function_args_model(obj)
        return {
            "name": obj.__name__,
            "description": inspect.cleandoc(obj.__doc__ or ""),
            "parameters": _clean(model.model_json_schema()),
        }
    raise InputTypeError(f"Cannot make a tool schema from {type(obj).__name__}: {obj!r:.80}")
