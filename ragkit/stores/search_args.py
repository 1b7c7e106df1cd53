"""One rule for the arguments of every search, in stores and retrievers: checked before any work,
with an :class:`~ragkit.errors.InvalidQueryError` naming the argument.

- ``k`` and ``fetch_k``: integers >= 0 (``0`` gives no results); not bools, floats, NaN.
- ``lambda_mult``: a finite number from 0 to 1.
- the query: a string of at most 100,000 characters by default (a 10 MB query took 10-22 s
  and 764 MB before this limit). Like ``csv.field_size_limit``, the limit is one setting for
  the process: :func:`set_max_query_length` changes it (``None``: no limit), and
  ``ragkit query --max-query-length`` sets it for one command.
- filters: nested at most :data:`MAX_FILTER_DEPTH` levels (checked in
  :mod:`ragkit.stores.filters`).

Example:
    >>> check_k(3)
    3
    >>> check_lambda_mult(float("nan"))
    Traceback (most recent call last):
    ...
    ragkit.errors.InvalidQueryError: lambda_mult must be a number from 0 to 1, got nan
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ragkit.errors import InvalidQueryError

DEFAULT_MAX_QUERY_LENGTH = 100_000
MAX_FILTER_DEPTH = 64
_limit: list[int | None] = [DEFAULT_MAX_QUERY_LENGTH]


def get_max_query_length() -> int | None:
    """The longest query (in characters) searches accept; ``None``: no limit."""
    return _limit[0]


def set_max_query_length(limit: int | None) -> int | None:
    """Set the longest query searches accept (``None``: no limit); returns the previous limit."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidQueryError(
            f"max_query_length must be a positive integer or None, got {limit!r}"
        )
    previous, _limit[0] = _limit[0], limit
    return previous


def check_k(k: Any, name: str = "k") -> int:
    """``k`` as an int >= 0, or InvalidQueryError naming the argument."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise InvalidQueryError(f"{name} must be an integer >= 0, got {k!r}")
    if k < 0:
        raise InvalidQueryError(f"{name} must be >= 0, got {k}")
    return int(k)


def check_lambda_mult(value: Any) -> float:
    """``lambda_mult`` as a float from 0 to 1 (1: relevance only, 0: diversity only)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(float(value))
        or not 0.0 <= float(value) <= 1.0
    ):
        raise InvalidQueryError(f"lambda_mult must be a number from 0 to 1, got {value!r}")
    return float(value)


def check_query(query: Any, owner: str) -> str:
    """``query`` if it is a string within the length limit, else InvalidQueryError."""
    if not isinstance(query, str):
        raise InvalidQueryError(
            f"{owner} expects the query as a string, got {type(query).__name__}"
        )
    limit = _limit[0]
    if limit is not None and len(query) > limit:
        raise InvalidQueryError(
            f"{owner}: the query is {len(query):,} characters, over the limit of {limit:,}; "
            "shorten it, or raise the limit (set_max_query_length in "
            "ragkit.stores.search_args, or ragkit query --max-query-length)"
        )
    return query
