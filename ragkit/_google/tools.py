"""Tool schemas (JSON schema) -> Gemini function declarations and tool_config.

Gemini's ``Schema`` is a subset of OpenAPI: upper-case types, ``nullable``
instead of ``["x", "null"]``, no ``$ref``/``title``/``default``. References
into ``$defs`` are inlined, optional fields become nullable, unsupported
keywords are dropped; a union of several real types cannot be expressed and
raises :class:`~ragkit.errors.ToolSchemaError` (a ``ValueError``) naming the field.

Example:
    >>> decl = function_declaration({"name": "add", "description": "Add.",
    ...     "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}})
    >>> decl["parameters"]
    {'type_': 'OBJECT', 'properties': {'a': {'type_': 'INTEGER'}}, 'required': ['a']}
    >>> tool_config("add", ["add"])
    {'function_calling_config': {'mode': 'ANY', 'allowed_function_names': ['add']}}
"""

from __future__ import annotations

import re
from typing import Any

from ragkit.errors import ConfigurationError, ToolSchemaError

_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
_FORMATS = {
    "STRING": {"enum", "date-time"},
    "NUMBER": {"float", "double"},
    "INTEGER": {"int32", "int64"},
}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:\-]{0,63}$")


def _resolve(node: dict[str, Any], defs: dict[str, Any], where: str) -> dict[str, Any]:
    seen = 0
    while "$ref" in node or ("allOf" in node and len(node["allOf"]) == 1):
        if "allOf" in node:
            extra = {k: v for k, v in node.items() if k != "allOf"}
            node = {**node["allOf"][0], **extra}
            continue
        ref = str(node["$ref"])
        target = (
            defs.get(ref.rsplit("/", 1)[-1])
            if ref.startswith("#/$defs/") or ref.startswith("#/definitions/")
            else None
        )
        if target is None:
            raise ToolSchemaError(f"{where}: cannot resolve schema reference {ref!r}")
        extra = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **extra}
        seen += 1
        if seen > 32:
            raise ToolSchemaError(f"{where}: recursive schema references cannot be sent to Gemini")
    return node


def to_gemini_schema(
    node: dict[str, Any], defs: dict[str, Any] | None = None, where: str = "parameters"
) -> dict[str, Any]:
    """A Gemini ``Schema`` dict (proto-plus field names) from a JSON schema."""
    defs = defs if defs is not None else {**node.get("definitions", {}), **node.get("$defs", {})}
    node = _resolve(node, defs, where)
    nullable = False
    variants = node.get("anyOf") or node.get("oneOf")
    if variants:
        real = [v for v in variants if v.get("type") != "null"]
        if len(real) != 1:
            raise ToolSchemaError(
                f"{where}: a union of several types ({len(real)}) cannot be expressed in Gemini's "
                "schema; use one type per field"
            )
        nullable = len(real) < len(variants)
        extra = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}
        node = {**_resolve(real[0], defs, where), **extra}
    kind = node.get("type")
    if isinstance(kind, list):
        real_kinds = [k for k in kind if k != "null"]
        if len(real_kinds) != 1:
            raise ToolSchemaError(f"{where}: type {kind!r} cannot be expressed in Gemini's schema")
        nullable = nullable or len(real_kinds) < len(kind)
        kind = real_kinds[0]
    if kind is None:
        kind = "object" if "properties" in node else "string" if "enum" in node else None
    if kind not in _TYPES:
        raise ToolSchemaError(
            f"{where}: JSON schema type {kind!r} has no Gemini equivalent; give the field a type"
        )
    out: dict[str, Any] = {"type_": _TYPES[kind]}
    if node.get("description"):
        out["description"] = str(node["description"])
    if nullable:
        out["nullable"] = True
    if "enum" in node:
        out["enum"] = [str(v) for v in node["enum"] if v is not None]
        if out["type_"] == "STRING":
            out["format_"] = "enum"
    elif node.get("format") in _FORMATS.get(out["type_"], ()):
        out["format_"] = node["format"]
    if kind == "array":
        out["items"] = to_gemini_schema(node.get("items") or {"type": "string"}, defs, f"{where}[]")
        for src, dst in (("minItems", "min_items"), ("maxItems", "max_items")):
            if src in node:
                out[dst] = int(node[src])
    if kind == "object":
        properties = node.get("properties") or {}
        out["properties"] = {
            name: to_gemini_schema(value, defs, f"{where}.{name}")
            for name, value in properties.items()
        }
        required = [r for r in node.get("required", []) if r in properties]
        if required:
            out["required"] = required
    return out


def function_declaration(schema: dict[str, Any]) -> dict[str, Any]:
    """A Gemini ``FunctionDeclaration`` from ragkit's ``{"name", "description", "parameters"}``."""
    name = str(schema.get("name", ""))
    if not _NAME.match(name):
        raise ToolSchemaError(
            f"tool name {name!r} is not valid for Gemini: start with a letter or underscore, then "
            "letters, digits, '_', '.', ':', '-' (at most 64 characters)"
        )
    out: dict[str, Any] = {"name": name, "description": str(schema.get("description") or "")}
    parameters = schema.get("parameters") or {}
    if parameters.get("properties"):
        out["parameters"] = to_gemini_schema(parameters, where=f"tool {name!r} parameters")
    return out


def tool_config(tool_choice: str | bool | None, names: list[str]) -> dict[str, Any] | None:
    """``tool_config`` for ``tool_choice``: "auto", "any" (or True), "none" or a tool name."""
    if tool_choice is None or tool_choice == "auto":
        return None if tool_choice is None else {"function_calling_config": {"mode": "AUTO"}}
    if tool_choice is True or tool_choice == "any":
        return {"function_calling_config": {"mode": "ANY"}}
    if tool_choice is False or tool_choice == "none":
        return {"function_calling_config": {"mode": "NONE"}}
    if tool_choice in names:
        return {"function_calling_config": {"mode": "ANY", "allowed_function_names": [tool_choice]}}
    raise ConfigurationError(
        f"tool_choice {tool_choice!r} is not 'auto', 'any', 'none' or one of the bound tools {names}"
    )
