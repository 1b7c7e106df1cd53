"""Where a command option's value comes from: flag, then ``RAGKIT_*`` environment, then ``ragkit.toml``.

Click reads flags and the environment (each option names its ``RAGKIT_*``
variable); options left unset fall back to the ``[defaults]`` table of the
index's ``ragkit.toml``, then to the built-in default.

Example:
    >>> resolve(None, {"k": 6}, "k", 4)
    6
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError


def index_defaults(index_dir: str | Path | None) -> dict[str, Any]:
    """The ``[defaults]`` table of ``index_dir/ragkit.toml`` (empty when there is none, and
    for a PostgreSQL URL: see :func:`ragkit.indexing.open.folder_defaults`)."""
    from ragkit.indexing.open import folder_defaults

    return folder_defaults(index_dir)


def resolve(value: Any, defaults: dict[str, Any], key: str, builtin: Any) -> Any:
    """``value`` if given (flag or environment), else ``defaults[key]``, else ``builtin``."""
    if value is not None and value != ():
        return value
    return defaults.get(key, builtin)


def parse_filter(items: tuple[str, ...]) -> dict[str, Any] | None:
    """``("lang=en", "year=2024")`` → ``{"lang": "en", "year": 2024}`` (JSON scalars are parsed)."""
    import json

    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ConfigurationError(
                f"--filter {item!r}: expected key=value, e.g. --filter source=docs/a.md"
            )
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def matches(metadata: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    """Whether ``metadata`` equals ``flt`` on every key (for retrievers without native filters)."""
    return not flt or all(metadata.get(k) == v for k, v in flt.items())
