"""Sizes in bytes: the default file size limit, reading ``100M``-style sizes, writing them.

Every limit on what ragkit reads (``--max-file-size``, ``max_file_size=``, the server's
body limits) is read by :func:`parse_size` and shown by :func:`format_size`.

Example:
    >>> parse_size("2.5MB"), parse_size("64k"), parse_size("1MiB"), parse_size("0")
    (2500000, 65536, 1048576, 0)
    >>> format_size(DEFAULT_MAX_FILE_SIZE)
    '100 MiB'
"""

from __future__ import annotations

import re

from ragkit.errors import ConfigurationError

DEFAULT_MAX_FILE_SIZE = 100 * 1024 * 1024
"""Files larger than this (100 MiB) are refused unless a loader is given another ``max_file_size``."""

_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}


def parse_size(text: str | int) -> int:
    """A size as a number of bytes, with rsync's units: ``K``/``KiB`` = 1024, ``KB`` = 1000.

    ``"100M"`` and ``"100MiB"`` are 100 × 2**20 bytes, ``"100MB"`` 100 × 10**6; ``0`` means no limit.
    """
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise ConfigurationError(f"a size must be >= 0 bytes, got {text}")
        return text
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*", str(text), re.IGNORECASE)
    if m is None or (m.group(3) and not m.group(2) and m.group(3).lower() != "b"):
        raise ConfigurationError(
            f"size {text!r} is not a size; write e.g. 100M, 512KiB, 2GB or a number of bytes (0: no limit)"
        )
    power = _POWERS[m.group(2).lower()]
    base = 1000 if m.group(3).lower() == "b" and power else 1024
    return int(float(m.group(1)) * base**power)


def format_size(size: int) -> str:
    """``104857600`` -> ``'100 MiB'`` (for messages)."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.3g} {unit}"
        value /= 1024
    return f"{size} bytes"  # unreachable
