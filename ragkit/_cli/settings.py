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

from ragkit.errors import InvalidQueryError


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
    """``--filter`` values as one filter dict (see :mod:`ragkit.querying.filters`).

    Each value is ``key=value`` (equality; the value is read as JSON when it parses, so
    ``year=2024`` is a number) or a JSON object in the filter language
    (``{"year": {"$gte": 2020}}``); several values must all hold.

    >>> parse_filter(("lang=en", "year=2024"))
    {'lang': 'en', 'year': 2024}
    >>> parse_filter(('{"year": {"$gte": 2020}}', "lang=en"))
    {'$and': [{'lang': 'en'}, {'year': {'$gte': 2020}}]}
    """
    import json

    if not items:
        return None
    pairs: dict[str, Any] = {}
    objects: list[dict[str, Any]] = []
    for item in items:
        if item.lstrip().startswith("{"):
            try:
                value = json.loads(item)
            except ValueError as err:
                raise InvalidQueryError(f"--filter {item!r} is not valid JSON: {err}") from None
            if not isinstance(value, dict):
                raise InvalidQueryError(f"--filter {item!r}: expected a JSON object")
            objects.append(value)
            continue
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise InvalidQueryError(
                f"--filter {item!r}: expected key=value or a JSON object, e.g. "
                '--filter source=docs/a.md or --filter \'{"year": {"$gte": 2020}}\''
            )
        try:
            pairs[key] = json.loads(raw)
        except ValueError:
            pairs[key] = raw
    parts = ([pairs] if pairs else []) + objects
    return parts[0] if len(parts) == 1 else {"$and": parts}
