r"""Google-style docstrings: the description and the ``Args:`` entries of a tool function.

Example:
    >>> split_docstring("Add.\n\nArgs:\n    a: first\n    b: second")
    ('Add.', {'a': 'first', 'b': 'second'})
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, create_model

_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def split_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and ``Args:`` entries."""
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() in ("Args:", "Arguments:"))
    except StopIteration:
        return doc, {}
    args: dict[str, str] = {}
    current: str | None = None
    end = len(lines)
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.strip() and not line.startswith((" ", "\t")):
            end = i
            break
        match = _ARG_LINE.match(line)
        if match and line.startswith(("    ", "\t")) and not line.startswith(("        ", "\t\t")):
            current = match.group(1).lstrip("*")
            args[current] = match.group(2).strip()
        elif current and line.strip():
            args[current] = f"{args[current]} {line.strip()}".strip()
    description = "\n".join(lines[:start] + lines[end:]).strip()
    return description, args


def with_descriptions(model: type[BaseModel], docs: dict[str, str]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for fname, info in model.model_fields.items():
        default = ... if info.is_required() else info.default
        desc = info.description or docs.get(fname)
        fields[fname] = (info.annotation, Field(default, description=desc))
    return create_model(model.__name__, __doc__=model.__doc__, **fields)
