"""Every package __init__ exports its names one way: ``__all__``, ``_LAZY`` and a TYPE_CHECKING mirror.

The three lists are written by hand, so this test keeps them from drifting: the same names
in all three, each imported (for type checkers) from the module ``_LAZY`` loads it from at
run time, and no exported name shadowed by a submodule of the same name.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import ragkit

ROOT = Path(ragkit.__file__).parent
INITS = sorted(ROOT.rglob("__init__.py"))
# Private packages with nothing to export: their __init__ is a docstring only.
NO_EXPORTS = {"ragkit._cli", "ragkit._google", "ragkit._io", "ragkit._openai"}


def package_name(init: Path) -> str:
    return ".".join(("ragkit", *init.parent.relative_to(ROOT).parts))


PACKAGES = [package_name(p) for p in INITS]


def parse(init: Path) -> tuple[list[str], dict[str, str], dict[str, str], list[ast.stmt]]:
    """``__all__``, ``_LAZY``, the TYPE_CHECKING imports (name -> module) and the other statements."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    all_: list[str] = []
    lazy: dict[str, str] = {}
    mirror: dict[str, str] = {}
    other: list[ast.stmt] = []
    for node in tree.body:
        target = (
            node.targets[0].id
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
            else None
        )
        if target == "__all__":
            all_ = ast.literal_eval(node.value)
        elif target == "_LAZY":
            lazy = ast.literal_eval(node.value)
        elif isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), ast.unparse(stmt)
                for alias in stmt.names:
                    assert alias.asname is None, ast.unparse(stmt)
                    mirror[alias.name] = str(stmt.module)
            assert [ast.unparse(s) for s in node.orelse] == [
                "__getattr__, __dir__ = lazy_exports(__name__, _LAZY)"
            ]
        else:
            other.append(node)
    return all_, lazy, mirror, other


@pytest.mark.parametrize("init", INITS, ids=PACKAGES)
def test_all_lazy_map_and_type_checking_mirror_agree(init: Path) -> None:
    name = package_name(init)
    all_, lazy, mirror, other = parse(init)
    if name in NO_EXPORTS:
        assert (all_, lazy, mirror) == ([], {}, {})
        assert all(isinstance(s, ast.Expr) for s in other), "a docstring only"
        return
    assert all_, f"{name} exports nothing; add it to NO_EXPORTS or give it names"
    assert len(all_) == len(set(all_)), f"{name}.__all__ repeats a name"
    assert set(all_) == set(lazy), f"{name}: __all__ and _LAZY differ"
    assert mirror == lazy, f"{name}: the TYPE_CHECKING imports and _LAZY differ"
    # Nothing else is imported or defined: the docstring, __future__, TYPE_CHECKING, lazy_exports.
    allowed = {
        "from __future__ import annotations",
        "from typing import TYPE_CHECKING",
        "from ragkit._lazy import lazy_exports",
    }
    for stmt in other:
        text = ast.unparse(stmt)
        is_doc = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        assert is_doc or text in allowed or text.startswith("__version__ ="), (
            f"{name}: unexpected statement {text!r}"
        )


@pytest.mark.parametrize("name", [p for p in PACKAGES if p not in NO_EXPORTS])
def test_each_name_loads_from_its_module_and_no_submodule_shadows_it(name: str) -> None:
    package = importlib.import_module(name)
    lazy: dict[str, str] = package._LAZY
    submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    shadowed = sorted(set(lazy) & submodules)
    assert not shadowed, f"{name}: submodules {shadowed} would replace the exported names"
    for export, module in lazy.items():
        value = getattr(package, export)
        assert value is getattr(importlib.import_module(module), export)
        assert package.__dict__[export] is value, "the first lookup caches the value"
    assert set(lazy) <= set(dir(package))
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchName'"):
        _ = package.NoSuchName


def test_importing_every_package_and_the_core_modules_pulls_in_nothing_heavy() -> None:
    heavy = (
        "faiss",
        "onnxruntime",
        "google.generativeai",
        "torch",
        "bs4",
        "lxml",
        "pypdf",
        "scipy",
        "tokenizers",
        "numpy",
        "sqlite3",
    )
    modules = [*PACKAGES, "ragkit.documents", "ragkit.messages", "ragkit.prompts"]
    modules += ["ragkit.prompt_values", "ragkit.parsers", "ragkit.errors"]
    code = (
        "import sys\n"
        + "".join(f"import {name}\n" for name in modules)
        + f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing the packages pulled in: {out.stdout.strip()}"


def test_import_ragkit_alone_stays_light() -> None:
    # `import ragkit` is the README's 3 ms row: it loads the lazy map and the errors, and
    # nothing that costs milliseconds (typing_extensions pulls in inspect: ~10 ms)
    code = (
        "import sys\nimport ragkit\n"
        "print(','.join(m for m in ('typing_extensions', 'inspect', 'dataclasses', 'logging') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import ragkit pulled in: {out.stdout.strip()}"
