"""The call signatures of the names docs/migration.md maps, LangChain's beside ragkit's.

:func:`table_pairs` reads the guide's import table: each row's LangChain ``from X import A, B``
and ragkit ``from Y import ...`` (the same names) or ``from Y import C, D`` (paired in order;
one ragkit name serves every LangChain name of its row). :func:`differences` compares two
callables' parameters: a LangChain parameter ragkit lacks, a parameter ragkit requires that
LangChain does not have, another default, or another kind (positional or keyword-only).
Each difference is one line ``Name: what``, the form the guide's list uses.

Example:
    >>> def theirs(a, b=1, *, c=2): ...
    >>> def ours(a, b=2, c=2, *, d): ...
    >>> differences("f", theirs, ours)
    ['f: b default 1 -> 2', 'f: c keyword-only -> positional', 'f: d required, not in LangChain']
"""

from __future__ import annotations

import enum
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_IMPORT = re.compile(r"`from ([\w.]+) import ([^`]+)`")
_PLAIN = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_SKIPPED = {"self", "cls", "args", "kwargs"}


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def table_pairs(guide: Path) -> Iterator[tuple[str, str, str, str]]:
    """``(langchain module, name, ragkit module, name)`` for each name the table maps."""
    for line in guide.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `from "):
            continue
        cells = line.split(" | ")
        if len(cells) < 2:
            continue
        theirs = _IMPORT.findall(cells[0])
        ours = _IMPORT.findall(cells[1])
        if not theirs or not ours or not ours[0][0].startswith("ragkit"):
            continue
        our_module, our_text = ours[0]
        our_names = None if our_text.strip() == "..." else _names(our_text)
        their_names = [(m, n) for m, text in theirs for n in _names(text)]
        for i, (module, name) in enumerate(their_names):
            if our_names is None:
                yield module, name, our_module, name
            elif len(our_names) == len(their_names):
                yield module, name, our_module, our_names[i]
            elif len(our_names) == 1:
                yield module, name, our_module, our_names[0]


def load(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name)


def _signature(obj: Any) -> inspect.Signature | None:
    if isinstance(obj, type) and issubclass(obj, enum.Enum):
        return None
    if not callable(obj):
        return None
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def _kind(param: inspect.Parameter) -> str:
    return "keyword-only" if param.kind is inspect.Parameter.KEYWORD_ONLY else "positional"


def _default(param: inspect.Parameter) -> str:
    if param.default is inspect.Parameter.empty:
        return "required"
    value = param.default
    if isinstance(value, type) or callable(value):
        return getattr(value, "__name__", type(value).__name__)
    return repr(value)


def differences(name: str, theirs: Any, ours: Any) -> list[str]:
    """What differs between the parameters of ``theirs`` and ``ours`` (``Name: what`` lines)."""
    their_sig, our_sig = _signature(theirs), _signature(ours)
    if their_sig is None or our_sig is None:
        return []
    their_params = {
        p.name: p for p in their_sig.parameters.values() if p.kind in (*_PLAIN, p.KEYWORD_ONLY)
    }
    our_params = {
        p.name: p for p in our_sig.parameters.values() if p.kind in (*_PLAIN, p.KEYWORD_ONLY)
    }
    out = []
    for pname, param in their_params.items():
        if pname in _SKIPPED:
            continue
        mine = our_params.get(pname)
        if mine is None:
            out.append(f"{name}: {pname} not taken")
            continue
        if _default(param) != _default(mine):
            out.append(f"{name}: {pname} default {_default(param)} -> {_default(mine)}")
        if _kind(param) != _kind(mine):
            out.append(f"{name}: {pname} {_kind(param)} -> {_kind(mine)}")
    for pname, param in our_params.items():
        if pname not in their_params and pname not in _SKIPPED and _default(param) == "required":
            out.append(f"{name}: {pname} required, not in LangChain")
    return out
