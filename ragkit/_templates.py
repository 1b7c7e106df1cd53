"""Template strings in the two formats prompts accept: ``f-string`` and ``mustache``.

Example:
    >>> template_variables("Hello {name}, {greeting}!", "f-string")
    ['greeting', 'name']
    >>> format_template("Hello {{name}}!", "mustache", {"name": "Ada"})
    'Hello Ada!'
"""

from __future__ import annotations

import string
from typing import Any, Literal

from ragkit import _mustache
from ragkit.errors import ConfigurationError, TemplateError

TemplateFormat = Literal["f-string", "mustache"]


def _fstring_variables(template: str) -> list[str]:
    names = set()
    for _, field, _, _ in string.Formatter().parse(template):
        if field is None:
            continue
        if field == "" or field.isdigit():
            raise TemplateError(
                f"Prompt template {template!r:.60} uses a positional field '{{{field}}}'; "
                "use named variables like '{name}' (or '{{' and '}}' for literal braces)"
            )
        names.add(field.split(".")[0].split("[")[0])
    return sorted(names)


def template_variables(template: str, template_format: TemplateFormat) -> list[str]:
    if template_format == "f-string":
        return _fstring_variables(template)
    if template_format == "mustache":
        return _mustache.variables(template)
    raise ConfigurationError(
        f"template_format must be 'f-string' or 'mustache', got {template_format!r}"
    )


def format_template(template: str, template_format: TemplateFormat, values: dict[str, Any]) -> str:
    if template_format == "mustache":
        return _mustache.render(template, values)
    return template.format(**values)


def format_content(content: Any, template_format: TemplateFormat, values: dict[str, Any]) -> Any:
    if isinstance(content, str):
        return format_template(content, template_format, values)
    if isinstance(content, list):
        return [format_content(c, template_format, values) for c in content]
    if isinstance(content, dict):
        return {k: format_content(v, template_format, values) for k, v in content.items()}
    return content


def content_variables(content: Any, template_format: TemplateFormat) -> set[str]:
    if isinstance(content, str):
        return set(template_variables(content, template_format))
    if isinstance(content, list):
        return (
            set().union(*(content_variables(c, template_format) for c in content))
            if content
            else set()
        )
    if isinstance(content, dict):
        return (
            set().union(*(content_variables(v, template_format) for v in content.values()))
            if content
            else set()
        )
    return set()
