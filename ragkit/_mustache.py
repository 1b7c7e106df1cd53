"""A small mustache renderer: variables, sections, inverted sections, comments.

``{{name}}`` is HTML-escaped, ``{{{name}}}`` and ``{{& name}}`` are not,
``{{a.b}}`` looks up nested keys, ``{{.}}`` is the current item.

Example:
    >>> render("Hi {{name}}{{#items}} [{{.}}]{{/items}}", {"name": "A&B", "items": [1, 2]})
    'Hi A&amp;B [1] [2]'
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ragkit.errors import TemplateError

_TAG = re.compile(r"\{\{\{\s*(.+?)\s*\}\}\}|\{\{\s*([#^/!&]?)\s*(.*?)\s*\}\}", re.DOTALL)

# A parsed template is a list of nodes: str (literal), ("var", name, escape),
# ("section", name, inverted, children).
Node = Any


def parse(template: str) -> list[Node]:
    """Parse a template into nodes; raises TemplateError on unbalanced sections."""
    root: list[Node] = []
    stack: list[tuple[str, list[Node]]] = [("", root)]
    pos = 0
    for m in _TAG.finditer(template):
        if m.start() > pos:
            stack[-1][1].append(template[pos : m.start()])
        pos = m.end()
        if m.group(1) is not None:
            stack[-1][1].append(("var", m.group(1), False))
            continue
        kind, name = m.group(2), m.group(3)
        if kind == "!":
            continue
        if kind in ("#", "^"):
            children: list[Node] = []
            stack[-1][1].append(("section", name, kind == "^", children))
            stack.append((name, children))
        elif kind == "/":
            if len(stack) == 1 or stack[-1][0] != name:
                raise TemplateError(
                    f"mustache template: closing tag {{{{/{name}}}}} has no matching opening tag"
                )
            stack.pop()
        else:
            stack[-1][1].append(("var", name, kind != "&"))
    if len(stack) > 1:
        raise TemplateError(f"mustache template: section {{{{#{stack[-1][0]}}}}} is never closed")
    if pos < len(template):
        root.append(template[pos:])
    return root


def variables(template: str) -> list[str]:
    """Top-level names a template reads (``a`` for ``{{a.b}}``), sorted."""
    names: set[str] = set()

    def walk(nodes: list[Node], depth: int) -> None:
        for node in nodes:
            if isinstance(node, str):
                continue
            if node[1] != "." and depth == 0:
                names.add(node[1].split(".")[0])
            if node[0] == "section":
                walk(node[3], depth + 1)

    walk(parse(template), 0)
    return sorted(names)


def _lookup(name: str, scopes: list[Any]) -> Any:
    if name == ".":
        return scopes[-1]
    head, *rest = name.split(".")
    for scope in reversed(scopes):
        if isinstance(scope, Mapping) and head in scope:
            value = scope[head]
            for part in rest:
                if isinstance(value, Mapping):
                    value = value.get(part)
                else:
                    value = getattr(value, part, None)
            return value
    return None


def _render(nodes: list[Node], scopes: list[Any], out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif node[0] == "var":
            value = _lookup(node[1], scopes)
            if value is None:
                continue
            text = str(value)
            out.append(html.escape(text) if node[2] else text)
        else:
            _, name, inverted, children = node
            value = _lookup(name, scopes)
            empty = not value
            if inverted:
                if empty:
                    _render(children, scopes, out)
            elif empty:
                continue
            elif isinstance(value, Sequence) and not isinstance(value, str):
                for item in value:
                    _render(children, [*scopes, item], out)
            elif isinstance(value, Mapping):
                _render(children, [*scopes, value], out)
            else:
                _render(children, scopes, out)


def render(template: str, data: Mapping[str, Any]) -> str:
    out: list[str] = []
    _render(parse(template), [data], out)
    return "".join(out)
