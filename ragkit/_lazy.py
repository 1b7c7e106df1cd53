"""Lazy re-exports: the one way a ragkit package names its public classes.

Every package ``__init__.py`` has the same four parts, so that ``import ragkit.x``
imports nothing heavy and type checkers still see the concrete classes:

1. ``__all__``, the public names;
2. ``_LAZY``, a map from each public name to the module that defines it;
3. an ``if TYPE_CHECKING:`` block importing the same names from the same modules
   (what mypy and IDEs read);
4. ``else: __getattr__, __dir__ = lazy_exports(__name__, _LAZY)`` (what runs).

``tests/test_package_exports.py`` checks that the three lists agree in every package.

:func:`optional_module` imports what an optional extra installs, or says which extra to install.

Example:
    >>> getattr_, dir_ = lazy_exports("ragkit.stores", {"FaissStore": "ragkit.stores.faiss"})
    >>> getattr_("FaissStore").__name__
    'FaissStore'
    >>> "FaissStore" in dir_()
    True
    >>> optional_module("json", "needs json").__name__
    'json'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

from ragkit.errors import ConfigurationError


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` for ``package``.

    ``__getattr__(name)`` imports ``exports[name]`` (a module path) on first use
    and stores the value in the package, so later lookups are plain attribute reads.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        sys.modules[package].__dict__[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*sys.modules[package].__dict__, *exports})

    return __getattr__, __dir__


def optional_module(name: str, missing: str, *also: str) -> Any:
    """The module ``name`` (with the modules ``also`` imported too), or a
    :class:`~ragkit.errors.ConfigurationError` saying ``missing`` (which extra to install)."""
    loaded = sys.modules.get(name)
    if loaded is not None and all(m in sys.modules for m in also):
        return loaded  # the common case, as cheap as an import statement
    try:
        module = importlib.import_module(name)
        for other in also:
            importlib.import_module(other)
    except ImportError as err:
        raise ConfigurationError(missing) from err
    return module
