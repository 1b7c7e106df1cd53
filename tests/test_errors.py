"""ragkit.errors: one tree of error classes, drawn in its docstring, and used everywhere.

- the tree in the module docstring is the real class tree (so it cannot go stale);
- every class derives from RagkitError, and the built-in bases keep ``except ValueError``
  (and friends) working;
- no module raises a bare built-in exception where a ragkit error belongs (AST scan);
- old names keep working: the index-is-broken aliases, the Google errors' private path.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import inspect
import re
from pathlib import Path

import pytest

import ragkit
import ragkit.errors as errors
from ragkit.chains.history import ChatHistoryError
from ragkit.tools import ToolException, ToolTimeoutError

ROOT = Path(ragkit.__file__).parent

# -- the docstring tree ------------------------------------------------------------------------


def docstring_tree() -> dict[str, tuple[str | None, list[str]]]:
    """name -> (parent in the drawing, the further bases in brackets)."""
    doc = errors.__doc__ or ""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    tree: dict[str, tuple[str | None, list[str]]] = {}
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        m = re.fullmatch(r"    ([│ ]*(?:[├└]── )?)(\w+)(?: \[(.*)\])?", line)
        assert m, f"cannot read tree line {line!r}"
        depth = len(m.group(1)) // 4
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1] if stack else None
        extra = [b.strip() for b in m.group(3).split(",")] if m.group(3) else []
        assert m.group(2) not in tree, f"{m.group(2)} drawn twice"
        tree[m.group(2)] = (parent, extra)
        stack.append((depth, m.group(2)))
    return tree


def error_classes() -> dict[str, type]:
    """The classes defined in ragkit.errors under their own names (aliases left out)."""
    return {
        name: cls
        for name, cls in inspect.getmembers(errors, inspect.isclass)
        if cls.__module__ == errors.__name__ and cls.__name__ == name
    }


def test_the_docstring_tree_is_the_class_tree():
    tree = docstring_tree()
    classes = error_classes()
    assert set(tree) == set(classes), "classes missing from (or extra in) the docstring tree"
    for name, (parent, extra) in tree.items():
        bases = classes[name].__bases__
        expected_first = errors.RagkitError if parent else Exception
        if parent:
            expected_first = classes[parent]
        assert bases[0] is expected_first, f"{name}: drawn under {parent}, derives {bases[0]}"
        assert [b.__name__ for b in bases[1:]] == extra, f"{name}: further bases {bases[1:]}"


def test_aliases_are_named_in_the_docstring():
    aliases = {
        name
        for name, cls in inspect.getmembers(errors, inspect.isclass)
        if cls.__module__ == errors.__name__ and cls.__name__ != name
    }
    assert aliases == {"IndexFormatError", "IndexDamagedError"}
    for name in aliases:
        assert f"``{name}``" in (errors.__doc__ or "")


def test_every_error_class_derives_from_ragkit_error():
    classes = error_classes()
    assert len(classes) > 30
    assert all(issubclass(c, errors.RagkitError) for c in classes.values())


def test_re_exported_errors_are_the_same_classes():
    assert ToolException is errors.ToolException and ToolTimeoutError is errors.ToolTimeoutError
    assert ChatHistoryError is errors.ChatHistoryError
    assert issubclass(ToolTimeoutError, TimeoutError) and issubclass(
        ToolTimeoutError, ToolException
    )


def test_google_errors_keep_their_old_private_path():
    from ragkit._google import errors as old

    for name in old.__all__:
        assert getattr(old, name) is getattr(errors, name)
    assert issubclass(errors.GoogleUploadError, errors.GoogleAPIError)


def test_one_class_means_the_index_is_broken_and_old_except_clauses_still_catch_it():
    assert errors.IndexFormatError is errors.IndexCorruptedError
    assert errors.IndexDamagedError is errors.IndexCorruptedError
    for caught in (errors.StoreError, errors.IndexingError, ValueError, errors.RagkitError):
        with pytest.raises(caught, match="bm25/index.json"):
            raise errors.IndexDamagedError("bm25/index.json: unknown format version 9")


# -- real raises reach the user as ragkit errors that are still the built-in ones -------------


def _fixed_store():
    from ragkit.embeddings import HashEmbeddings
    from ragkit.stores import FaissStore

    return FaissStore.from_texts(["a", "b"], HashEmbeddings(8), ids=["1", "2"])


async def _async_identity(x: int) -> int:
    return x


def _dispatch_outside_a_run() -> None:
    from ragkit.core import BaseCallbackHandler, dispatch_custom_event

    dispatch_custom_event("e", {}, config={"callbacks": [BaseCallbackHandler()]})


def _sync_call_of_async_lambda() -> None:
    from ragkit.core import RunnableLambda

    RunnableLambda(_async_identity).invoke(1)


def _bad_filter() -> None:
    _fixed_store().similarity_search("a", filter={"$nope": []})


def _unknown_ids() -> None:
    _fixed_store().delete(["9"])


def _positional_field() -> None:
    from ragkit.prompts import PromptTemplate

    PromptTemplate.from_template("Hello {}")


def _unclosed_mustache() -> None:
    from ragkit.prompts import PromptTemplate

    PromptTemplate.from_template("{{#items}}x", template_format="mustache")


def _byte_store_str_value() -> None:
    from ragkit.stores import InMemoryByteStore

    InMemoryByteStore().mset([("k", "not bytes")])  # type: ignore[list-item]


def _unknown_role() -> None:
    from ragkit.messages import convert_to_messages

    convert_to_messages([("wizard", "hi")])


def _bad_search_type() -> None:
    _fixed_store().as_retriever(search_type="nearest")


def _dict_tool_without_name() -> None:
    from ragkit.models import FakeChatModel

    FakeChatModel(responses=["x"]).bind_tools([{"description": "no name"}])


@pytest.mark.parametrize(
    ("call", "error", "builtin"),
    [
        (_dispatch_outside_a_run, errors.NoActiveRunError, RuntimeError),
        (_sync_call_of_async_lambda, errors.AsyncOnlyError, TypeError),
        (_bad_filter, errors.InvalidQueryError, ValueError),
        (_unknown_ids, errors.StoreInputError, ValueError),
        (_positional_field, errors.TemplateError, ValueError),
        (_unclosed_mustache, errors.TemplateError, ValueError),
        (_byte_store_str_value, errors.InputTypeError, TypeError),
        (_unknown_role, errors.InvalidInputError, ValueError),
        (_bad_search_type, errors.ConfigurationError, ValueError),
        (_dict_tool_without_name, errors.ToolSchemaError, ValueError),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_users_see_ragkit_errors_that_are_still_the_builtin_ones(call, error, builtin):
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, builtin) and isinstance(info.value, errors.RagkitError)
    assert str(info.value), "the message says what is wrong"


def test_async_only_lambda_still_runs_async():
    from ragkit.core import RunnableLambda

    assert asyncio.run(RunnableLambda(_async_identity).ainvoke(3)) == 3


# -- no bare built-in raises -------------------------------------------------------------------

BUILTIN_ERRORS = {
    name
    for name in dir(builtins)
    if isinstance(getattr(builtins, name), type)
    and issubclass(getattr(builtins, name), BaseException)
}
# Allowed anywhere: protocol signals and invariants, never a user's mistake.
ALWAYS_ALLOWED = {
    "NotImplementedError",  # abstract methods
    "StopIteration",  # iterator protocol
    "StopAsyncIteration",
    "SystemExit",  # the exit status of `python -m ragkit` and the demo
    "AssertionError",  # "cannot happen" invariants: a ragkit bug, not bad input
}
# Protocol methods must raise exactly these built-ins (getattr/hasattr and indexing rely on them).
PROTOCOL = {"__getattr__": {"AttributeError"}, "__getitem__": {"IndexError", "KeyError"}}
# Single, justified exceptions: (path, function, exception) -> why.
JUSTIFIED = {
    ("ragkit/stores/faiss/persist.py", "_json_default", "TypeError"): (
        "json.dumps's default= hook must raise TypeError for a value it cannot encode; "
        "the save turns that into a StoreError naming the document and the key"
    ),
    ("ragkit/core/base.py", "call", "RuntimeError"): (
        "a StopIteration escaping a function run in the executor becomes RuntimeError, "
        "as Python does for generators (PEP 479) and LangChain's run_in_executor does"
    ),
}
# Being converted to ragkit.errors on other branches (harden-index, harden-input, docs-cli);
# remove an entry when its branch lands.
OTHER_BRANCHES = (
    "ragkit/loaders/",
    "ragkit/chains/history",
    "ragkit/eval/beir.py",
    "ragkit/_google/settings.py",
    "ragkit/cli.py",
    "ragkit/_cli/",
)


def raised_name(node: ast.Raise) -> str | None:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return exc.id if isinstance(exc, ast.Name) else None


def bare_builtin_raises(path: Path, rel: str) -> list[str]:
    found: list[str] = []

    def visit(node: ast.AST, function: str, caught: frozenset[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function, caught = node.name, frozenset()
        if isinstance(node, ast.Try):
            names = set()
            for handler in node.handlers:
                types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                names |= {t.id for t in types if isinstance(t, ast.Name)}
            for child in node.body:  # a raise the same function catches is control flow
                visit(child, function, caught | names)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, function, caught)
            return
        if isinstance(node, ast.Raise) and node.exc is not None:
            name = raised_name(node)
            if (
                name in BUILTIN_ERRORS
                and name not in ALWAYS_ALLOWED
                and name not in caught
                and name not in PROTOCOL.get(function, set())
                and (rel, function, name) not in JUSTIFIED
            ):
                found.append(f"{rel}:{node.lineno} raises {name} in {function}()")
        for child in ast.iter_child_nodes(node):
            visit(child, function, caught)

    visit(ast.parse(path.read_text(encoding="utf-8")), "<module>", frozenset())
    return found


def test_no_module_raises_a_bare_builtin_exception():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).as_posix()
        if rel.startswith(OTHER_BRANCHES):
            continue
        found += bare_builtin_raises(path, rel)
    assert not found, "raise a ragkit.errors class instead:\n" + "\n".join(found)


def test_the_scan_finds_a_bare_raise(tmp_path: Path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(x):\n"
        "    try:\n"
        "        raise TypeError\n"  # caught below: fine
        "    except TypeError:\n"
        "        pass\n"
        "    raise ValueError(f'bad {x}')\n"  # reported
        "class A:\n"
        "    def __getattr__(self, name):\n"
        "        raise AttributeError(name)\n",  # protocol: fine
        encoding="utf-8",
    )
    assert bare_builtin_raises(sample, "sample.py") == ["sample.py:6 raises ValueError in f()"]
