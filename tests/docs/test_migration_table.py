"""The migration guide's import table is true: every import in it runs, on both sides.

Each row of the table in docs/migration.md maps LangChain imports (left) to ragkit's (right).
Every ``from ... import ...`` written in a cell is executed; a ragkit cell written as
``from ragkit.x import ...`` imports the names of its row's LangChain cell. The compatibility
suite's ragkit imports must all be named in the guide, so a user porting those pages finds
each of them there.
"""

from __future__ import annotations

import ast
import importlib
import re
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "migration.md"
CODE = re.compile(r"`([^`]+)`")
# LangChain's packages, LangServe and LangGraph (the two the guide's serving and agent pages use)
INCUMBENT = ("langchain", "langserve", "langgraph")
FROM = re.compile(r"^from\s+([\w.]+)\s+import\s+(.+)$")


def _rows() -> list[tuple[str, str]]:
    text = GUIDE.read_text(encoding="utf-8")
    table = text.split("## Imports", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 2 and cells[0] not in ("LangChain", "---"):
            rows.append((cells[0], cells[1]))
    return rows


def _imports(cell: str) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of each ``from ... import ...`` in a cell (``...`` kept as is)."""
    found = []
    for code in CODE.findall(cell):
        match = FROM.match(code.strip())
        if match:
            names = [n.strip().split(" as ")[0] for n in match.group(2).split(",")]
            found.append((match.group(1), [n for n in names if n]))
    return found


ROWS = _rows()


def test_the_table_is_found_and_has_both_libraries() -> None:
    assert len(ROWS) > 50
    assert all(_imports(left) or "`" in left for left, _ in ROWS)


def _check(module: str, names: list[str]) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod = importlib.import_module(module)
    return [n for n in names if not hasattr(mod, n)]


@pytest.mark.parametrize("row", ROWS, ids=[left[:60] for left, _ in ROWS])
def test_every_import_in_a_row_works(row: tuple[str, str]) -> None:
    left, right = row
    langchain_names: list[str] = []
    for module, names in _imports(left):
        assert module.startswith(INCUMBENT), f"left cell imports {module}"
        assert _check(module, names) == [], f"{module} lacks a name listed in the guide"
        langchain_names += names
    for module, names in _imports(right):
        assert module.split(".")[0] == "ragkit", f"right cell imports {module}"
        wanted = langchain_names if names == ["..."] else names
        assert wanted, f"{right}: '...' with no LangChain names to stand for"
        assert _check(module, wanted) == [], f"{module} lacks a name listed in the guide"


def _compat_ragkit_names() -> set[str]:
    """Every name the compatibility suite imports from ragkit in its snippets."""
    names: set[str] = set()
    for path in sorted((REPO / "tests" / "compat").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for line in node.value.splitlines():
                    match = FROM.match(line.strip())
                    if match and match.group(1).split(".")[0] == "ragkit":
                        names.update(
                            n.strip().split(" as ")[0].strip("() ")
                            for n in match.group(2).split(",")
                        )
        # multi-line "from ragkit.x import (\n A,\n B,\n)" blocks
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"from ragkit[\w.]* import \(([^)]*)\)", text):
            names.update(n.strip() for n in block.split(",") if n.strip())
    return {n for n in names if n and n != "("}


def test_every_ragkit_name_the_compat_suite_uses_is_in_the_guide() -> None:
    names = _compat_ragkit_names()
    assert {"FakeChatModel", "InMemoryVectorStore", "create_retrieval_chain"} <= names
    guide = GUIDE.read_text(encoding="utf-8")
    missing = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", guide))
    assert missing == []
