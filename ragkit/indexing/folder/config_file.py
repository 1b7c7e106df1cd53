"""``ragkit.toml``: what an index directory holds and how it was built, plus user defaults.

Sections:

- ``[index]`` (managed): format, embedding name, model id, dimension, created/updated times;
- ``[splitter]`` (managed): splitter name, chunk size and overlap;
- ``[defaults]`` (yours): default options of the ``ragkit`` command for this index,
  e.g. ``retriever = "hybrid"``, ``k = 6``, ``glob = ["**/*.md"]``; kept when ragkit rewrites the file.

Written atomically (temp file, fsync, rename); read with ``tomllib`` (``tomli`` before Python 3.11).

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ragkit.toml"
    >>> write_toml(p, {"index": {"model_id": "hash-8", "dimension": 8}})
    >>> read_toml(p)["index"]["dimension"]
    8
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ragkit._io.safe_read import read_regular
from ragkit.errors import ConfigurationError, IndexCorruptedError, IndexDamagedError
from ragkit.indexing.folder import layout as L
from ragkit.indexing.index_config import (
    CONFIG_FORMAT,
    SECTION_DEFAULTS,
    SECTION_INDEX,
    SECTION_SPLITTER,
    check_defaults,
)

FILE_NAME = L.CONFIG
FORMAT = CONFIG_FORMAT
_MAX_BYTES = 1 << 20


def _toml_value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, where) for v in value) + "]"
    raise ConfigurationError(f"{where}: cannot write a {type(value).__name__} to TOML")


def dumps_toml(data: dict[str, dict[str, Any]]) -> str:
    """TOML text for ``{section: {key: scalar or list}}``."""
    lines: list[str] = []
    for section, table in data.items():
        lines.append(f"[{section}]")
        for key, value in table.items():
            if value is not None:
                lines.append(f"{key} = {_toml_value(value, f'{section}.{key}')}")
        lines.append("")
    return "\n".join(lines)


def write_toml(path: Path, data: dict[str, dict[str, Any]]) -> None:
    """Write ``data`` to ``path`` atomically."""
    from ragkit._io.atomic import write_atomic

    write_atomic(Path(path), dumps_toml(data).encode("utf-8"))


def read_toml(path: Path) -> dict[str, Any]:
    """Parse ``path``; a damaged file raises :class:`IndexDamagedError` naming it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(read_regular(path, _MAX_BYTES).decode("utf-8"))
    except RecursionError:
        raise IndexDamagedError(
            f"{path} cannot be read (nested too deeply); fix it: it is a small text file whose "
            "[index] and [splitter] tables ragkit writes and whose [defaults] table is yours"
        ) from None
    except IndexCorruptedError as err:
        raise IndexDamagedError(f"{err}; restore {path} (a small text file) from a copy") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise IndexDamagedError(
            f"{path} cannot be read ({err}); fix it: it is a small text file whose [index] and "
            "[splitter] tables ragkit writes and whose [defaults] table is yours"
        ) from err
    for section in (SECTION_INDEX, SECTION_SPLITTER, SECTION_DEFAULTS):
        if not isinstance(data.get(section, {}), dict):
            raise IndexDamagedError(f"{path}: [{section}] must be a table; fix the file")
    return data


def read_defaults(path: Path) -> dict[str, Any]:
    """The checked ``[defaults]`` table of the ``ragkit.toml`` at ``path`` (empty when absent)."""
    return check_defaults(read_toml(path).get(SECTION_DEFAULTS, {}), path)
