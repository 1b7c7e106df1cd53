"""Every module in ragkit/ shows a usage example in its docstrings.

The examples themselves run as doctests: ``--doctest-modules`` over ``ragkit/`` is part of
the suite (pyproject's pytest settings), so a wrong example fails ``make test``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ragkit

ROOT = Path(ragkit.__file__).parent
# Entry points and the command line's own plumbing: their use is `ragkit ...`, not Python.
NO_EXAMPLE = {
    "ragkit/__main__.py",
    "ragkit/demo.py",
    "ragkit/cli.py",
    "ragkit/_google/__init__.py",
    "ragkit/_openai/__init__.py",
}
NO_EXAMPLE_UNDER = ("ragkit/_cli/",)
MODULES = sorted(p.relative_to(ROOT.parent).as_posix() for p in ROOT.rglob("*.py"))


def examples(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)))]
    return sum((ast.get_docstring(n) or "").count(">>> ") for n in nodes)


def test_every_module_has_a_usage_example() -> None:
    missing = [
        m
        for m in MODULES
        if m not in NO_EXAMPLE
        and not m.startswith(NO_EXAMPLE_UNDER)
        and not examples(ROOT.parent / m)
    ]
    assert not missing, f"add a short >>> example to the docstrings of {missing}"


def test_the_exemptions_are_real_files() -> None:
    assert NO_EXAMPLE <= set(MODULES)
