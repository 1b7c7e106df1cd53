"""A griffe extension for the API reference: ragkit docstrings title their doctests ``Example:``.

Google style calls that section ``Examples:``; griffe reads the singular as an admonition
and renders the ``>>>`` lines as prose. This renames the heading while griffe loads each
object, so the examples render as Python console blocks. Only the docs build uses it.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_HEADING = re.compile(r"^(\s*)Example:\s*$", re.M)


class ExampleSections(griffe.Extension):
    """Turns ``Example:`` section headings into ``Examples:``."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _HEADING.sub(r"\1Examples:", obj.docstring.value)
