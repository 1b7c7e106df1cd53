"""The package layout is a map of the pipeline (ARCHITECTURE.md, "The rooms").

Data flows loaders → splitters → embeddings → stores → retrievers → chains, and a stage
imports only ``core``, ``documents`` and the stages before it; nothing imports ``cli`` or
``serve``. This test reads every module's imports (imports written under
``if TYPE_CHECKING:`` are annotations only and do not count) and fails on an import that
goes the wrong way, so a new module cannot quietly tie two stages into a cycle.

The exceptions LangChain's API makes are listed in ``EXCEPTIONS`` with the name that
needs them.

Rooms keep their private modules: a module whose name starts with ``_`` inside a package
(``ragkit/loaders/_files.py``, ``ragkit/stores/pgvector/_search_methods.py``) is imported only
by modules of that same package (and its sub-packages). The top-level private modules and
packages (``ragkit/_io/``, ``ragkit/_json.py``, ``ragkit/_google/``, ...) are the ground floor
and shared plumbing: any room may import them, within the ranks. This rule counts every
import, annotations under ``if TYPE_CHECKING:`` too.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ragkit"

# Rank of each top-level module or folder: a module may import ranks lower or equal to its own.
RANK: dict[str, int] = {
    **dict.fromkeys(
        [
            "errors",
            "_io",
            "_lazy",
            "_json",
            "_unicode",
            "_schema",
            "_templates",
            "_mustache",
            "globals",
        ],
        0,
    ),
    **dict.fromkeys(["core", "documents"], 1),
    **dict.fromkeys(["messages", "message_utils", "prompt_values", "_google", "_openai"], 2),
    "prompts": 3,
    "parsers": 4,
    **dict.fromkeys(["models", "tools", "caches"], 5),
    **dict.fromkeys(["llms", "example_selectors"], 6),
    "embeddings": 7,
    "loaders": 8,
    "splitters": 9,
    "stores": 10,
    "retrievers": 11,
    "chains": 12,
    **dict.fromkeys(["agents", "techniques", "indexing", "eval", "tracing"], 13),
    # querying runs searches over an index that indexing built (one query service for all)
    "querying": 14,
    "serve": 15,
    **dict.fromkeys(["cli", "_cli", "__main__", "demo", "__init__"], 16),
}

# (importer's top-level name, imported top-level name): why LangChain's API needs it.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("stores", "retrievers"): "VectorStore.as_retriever (and the AQA retriever of Google's store)",
    ("loaders", "splitters"): "BaseLoader.load_and_split",
    ("splitters", "embeddings"): "SemanticChunker embeds",
    (
        "indexing",
        "querying",
    ): "Index.retriever and Index.search hand the query to the query service",
    ("core", "prompts"): "Runnable.get_prompts (core/runnable_tools.py)",
    ("core", "tools"): "Runnable.as_tool (core/runnable_tools.py)",
}


def _top(path: Path, root: Path = PACKAGE) -> str:
    return path.relative_to(root).parts[0].removesuffix(".py")


def _module_parts(path: Path, root: Path) -> list[str]:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_module(root: Path, name: str) -> bool:
    return (root / name).is_dir() or (root / f"{name}.py").is_file()


def _runtime_imports(
    path: Path, root: Path, *, annotations: bool = False, names: bool = False
) -> list[tuple[int, str]]:
    """``(line, absolute module)`` of every ragkit import outside ``if TYPE_CHECKING:``.

    ``annotations=True`` counts the imports under ``if TYPE_CHECKING:`` too; ``names=True``
    adds ``module.name`` for each name of ``from module import name`` that is a module.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node) and not annotations:
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    here = _module_parts(path, root)
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("ragkit.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "ragkit":  # from ragkit import x: a submodule, or a name of __init__
                found += [
                    (
                        node.lineno,
                        f"ragkit.{a.name}" if _is_module(root, a.name) else "ragkit.__init__",
                    )
                    for a in node.names
                    if not a.name.startswith("__")  # __version__: set before any import
                ]
            elif module.startswith("ragkit."):
                found.append((node.lineno, module))
                if names:
                    folder = root.parent.joinpath(*module.split("."))
                    found += [
                        (node.lineno, f"{module}.{a.name}")
                        for a in node.names
                        if _is_module(folder, a.name)
                    ]
    return found


def _violations(root: Path = PACKAGE) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        source = _top(path, root)
        for line, module in _runtime_imports(path, root):
            target = module.split(".")[1]
            if target == source or (source, target) in EXCEPTIONS:
                continue
            where = f"{path.relative_to(root.parent)}:{line} imports {module}"
            if source not in RANK or target not in RANK:
                bad.append(f"{where}: add {source if source not in RANK else target} to RANK")
            elif RANK[target] > RANK[source]:
                bad.append(f"{where}: a later stage")
    return bad


def test_every_top_level_module_has_a_place_in_the_pipeline() -> None:
    names = {_top(p) for p in PACKAGE.rglob("*.py")}
    assert sorted(names - set(RANK)) == []


def test_no_stage_imports_a_later_one() -> None:
    assert _violations() == []


def test_the_check_sees_wrong_way_imports_and_not_annotations(tmp_path: Path) -> None:
    root = tmp_path / "ragkit"
    (root / "core").mkdir(parents=True)
    (root / "retrievers").mkdir()
    (root / "core" / "__init__.py").write_text("from .. import retrievers\n", encoding="utf-8")
    (root / "core" / "run.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ragkit.stores import FaissStore\n"
        "def f():\n"
        "    from ..retrievers.bm25 import BM25Retriever\n",
        encoding="utf-8",
    )
    assert _violations(root) == [
        "ragkit/core/__init__.py:1 imports ragkit.retrievers: a later stage",
        "ragkit/core/run.py:5 imports ragkit.retrievers.bm25: a later stage",
    ]


# The rooms of ``ragkit.indexing``: each storage stands on its own, and the Ray engine writes
# into PostgreSQL (its workers commit batches) but knows nothing of folders.
INDEXING_ROOMS: dict[str, set[str]] = {
    "folder": {"postgres", "ray"},
    "postgres": {"folder", "ray"},
    "ray": {"folder"},
}


def _room_violations(root: Path = PACKAGE) -> list[str]:
    bad = []
    for room, forbidden in INDEXING_ROOMS.items():
        for path in sorted((root / "indexing" / room).rglob("*.py")):
            for line, module in _runtime_imports(path, root):
                parts = module.split(".")
                if parts[:2] == ["ragkit", "indexing"] and len(parts) > 2 and parts[2] in forbidden:
                    bad.append(
                        f"{path.relative_to(root.parent)}:{line} imports {module}: "
                        f"ragkit.indexing.{room} may not import ragkit.indexing.{parts[2]}"
                    )
    return bad


def test_indexing_rooms_do_not_reach_into_each_other() -> None:
    """folder and postgres never import each other or ray; ray never imports folder."""
    assert _room_violations() == []


def test_the_room_check_sees_a_folder_module_importing_postgres(tmp_path: Path) -> None:
    room = tmp_path / "ragkit" / "indexing" / "folder"
    room.mkdir(parents=True)
    (room / "bad.py").write_text(
        "from ragkit.indexing.postgres.location import PGLocation\n", encoding="utf-8"
    )
    assert _room_violations(tmp_path / "ragkit") == [
        "ragkit/indexing/folder/bad.py:1 imports ragkit.indexing.postgres.location: "
        "ragkit.indexing.folder may not import ragkit.indexing.postgres"
    ]


def _owner_of_private(module: str) -> str | None:
    """The package that owns the first private module of ``module``, if any.

    ``ragkit.loaders._files.read_bytes`` -> ``ragkit.loaders``; a top-level private module
    (``ragkit._io.atomic``, ``ragkit._json``) is the ground floor and has no owner.
    """
    parts = module.split(".")
    for i in range(2, len(parts)):
        if parts[i].startswith("_") and not parts[i].startswith("__"):
            return ".".join(parts[:i])
    return None


def _private_violations(root: Path = PACKAGE) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        here = ".".join(_module_parts(path, root))
        found = _runtime_imports(path, root, annotations=True, names=True)
        for line, module in sorted(set(found)):
            owner = _owner_of_private(module)
            if owner is not None and not (here == owner or here.startswith(owner + ".")):
                bad.append(
                    f"{path.relative_to(root.parent)}:{line} imports {module}: "
                    f"a private module of {owner}"
                )
    return bad


def test_no_room_imports_another_rooms_private_module() -> None:
    """Shared helpers live on the ground floor (ragkit/_io/) or in a public module."""
    assert _private_violations() == []


def test_the_private_check_sees_a_reach_into_another_package(tmp_path: Path) -> None:
    root = tmp_path / "ragkit"
    for folder in ("_io", "stores/faiss", "retrievers"):
        (root / folder).mkdir(parents=True)
    for name in ("_io/atomic.py", "stores/_atomic.py", "stores/faiss/_check.py"):
        (root / name).write_text("", encoding="utf-8")
    (root / "stores" / "faiss" / "persist.py").write_text(
        "from ragkit.stores._atomic import write_atomic\n"  # a parent's private module: fine
        "from . import _check\n"  # its own: fine
        "from ragkit._io.atomic import write_atomic\n",  # the ground floor: fine
        encoding="utf-8",
    )
    (root / "retrievers" / "bm25.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from ragkit._io import atomic\n"
        "from ragkit.stores import _atomic\n"
        "if TYPE_CHECKING:\n"
        "    from ragkit.stores.faiss._check import check\n",
        encoding="utf-8",
    )
    assert _private_violations(root) == [
        "ragkit/retrievers/bm25.py:3 imports ragkit.stores._atomic: a private module of "
        "ragkit.stores",
        "ragkit/retrievers/bm25.py:5 imports ragkit.stores.faiss._check: a private module of "
        "ragkit.stores.faiss",
    ]
