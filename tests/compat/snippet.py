"""One snippet, two runs: the shared body executed under LangChain's imports and under ragkit's.

A :class:`Snippet` holds the body of a tutorial snippet once, as source text, and one import
block per library. :meth:`Snippet.run` executes the import block and then the very same body
text in a fresh namespace; nothing else differs between the two runs. A test compares what
the two namespaces hold afterwards through :func:`plain`, which turns Documents, messages and
pydantic models of either library into plain Python values.

Example:
    >>> s = Snippet(
    ...     body="result = Document(page_content='hi', metadata={'n': 1})",
    ...     langchain="from langchain_core.documents import Document",
    ...     ragkit="from ragkit import Document",
    ... )
    >>> lc, rk = s.run_both()
    >>> plain(lc["result"]) == plain(rk["result"]) == {"page_content": "hi", "metadata": {"n": 1}}
    True
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
import textwrap
import types
import warnings
from collections.abc import Mapping
from typing import Any

SIDES = ("langchain", "ragkit")
_RUNS = itertools.count()


@dataclasses.dataclass(frozen=True)
class Snippet:
    """A snippet's body (shared) and its two import blocks (the only difference)."""

    body: str
    langchain: str
    ragkit: str

    def source(self, side: str) -> str:
        """The full program of one side: its import block, then the shared body."""
        imports = {"langchain": self.langchain, "ragkit": self.ragkit}[side]
        return textwrap.dedent(imports).strip() + "\n\n" + textwrap.dedent(self.body).strip() + "\n"

    def run(self, side: str, **given: Any) -> dict[str, Any]:
        """Runs one side's program in a new namespace pre-filled with ``given``; returns it.

        ``given`` holds what replaces a snippet's external parts (an embedding model, a URL,
        a file path): the same objects for both sides.
        """
        # a real module (pydantic and dataclasses look classes' modules up in sys.modules)
        module = types.ModuleType(f"compat_snippet_{side}_{next(_RUNS)}")
        sys.modules[module.__name__] = module
        namespace: dict[str, Any] = module.__dict__
        namespace.update(given)
        imports = {"langchain": self.langchain, "ragkit": self.ragkit}[side]
        with warnings.catch_warnings():
            # LangChain's deprecation notices are not under test (its imports turn them on
            # again, hence the second filter)
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(
                compile(textwrap.dedent(imports), f"<imports:{side}>", "exec", dont_inherit=True),
                namespace,
            )
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(
                compile(textwrap.dedent(self.body), "<snippet body>", "exec", dont_inherit=True),
                namespace,
            )
        return namespace

    def run_both(self, **given: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(langchain_namespace, ragkit_namespace)``."""
        return self.run("langchain", **given), self.run("ragkit", **given)


def plain(value: Any) -> Any:
    """Library-neutral form of ``value``: Documents, messages, pydantic models, containers.

    A Document becomes ``{"page_content", "metadata"}`` (its ``id`` is left out: both
    libraries leave it unset or make a random one); a message becomes
    ``{"type", "content", ...}`` with its tool calls; a pydantic model its ``model_dump()``.
    """
    kind = type(value).__name__
    if hasattr(value, "page_content") and hasattr(value, "metadata"):
        return {"page_content": value.page_content, "metadata": plain(dict(value.metadata))}
    if hasattr(value, "content") and hasattr(value, "type") and kind.endswith(("Message", "Chunk")):
        out: dict[str, Any] = {"type": value.type, "content": plain(value.content)}
        calls = getattr(value, "tool_calls", None)
        if calls:
            out["tool_calls"] = [
                {"name": c["name"], "args": plain(c["args"]), "id": c.get("id")} for c in calls
            ]
        if getattr(value, "name", None):
            out["name"] = value.name
        if getattr(value, "tool_call_id", None):
            out["tool_call_id"] = value.tool_call_id
        return out
    if hasattr(value, "model_dump") and callable(value.model_dump):
        return plain(value.model_dump())
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def strip_scores(documents: Any, *keys: str) -> list[dict[str, Any]]:
    """ragkit's retrieved Documents in plain form minus their score keys, which must be there.

    Deliberate difference (docs/migration.md, "Retrievers"): ragkit's retrievers put the
    search score in ``metadata["score"]`` (``keys`` names others, e.g. the
    ``query_similarity_score`` of ``EmbeddingsFilter``); LangChain's leave metadata as stored.
    """
    out = plain(list(documents))
    for doc in out:
        for key in keys or ("score",):
            score = doc["metadata"].pop(key, None)
            assert isinstance(score, float), f"no metadata[{key!r}] on {doc['page_content'][:40]!r}"
    return out
