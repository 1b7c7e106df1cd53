"""Lazy re-exports: a package names its public classes without importing heavy modules.

Example:
    >>> __getattr__ = lazy_getattr("ragkit.stores", {"FaissStore": "ragkit.stores.faiss"})
    >>> __getattr__("FaissStore").__name__
    'FaissStore'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` importing ``where[name]`` (a module path) on first use of ``name``."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        sys.modules[package].__dict__[name] = value  # later lookups skip this function
        return value

    return __getattr__
