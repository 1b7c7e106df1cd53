"""Letting go of what a failed read held, so that keeping its failure keeps only the story.

A loader keeps each failure on ``errors`` (a :class:`~ragkit.loaders.base.LoadFailure`, with
the exception) for as long as the loader lives: a :class:`~ragkit.loaders.DirectoryLoader`
over a large folder keeps every one until the end. Without care, each exception kept the
whole input of the read that failed:

- the frames of its traceback keep their local variables (a file's bytes, its decoded text,
  a parsed document);
- :class:`json.JSONDecodeError` keeps the whole document it parsed (``doc``).

:func:`release_held_data` clears the frames' locals (the traceback still prints its lines)
and cuts ``doc`` down to the 64 characters either side of the error (``pos``, ``lineno`` and
``colno`` still say where it was in the whole document), on the exception and every cause
and context behind it. Messages are not changed. (:class:`UnicodeDecodeError` keeps the
bytes it decoded in ``object``, and its message is computed from them, so it is left whole.)

Example:
    >>> import json
    >>> try:
    ...     json.loads("[" + "1," * 100_000)
    ... except json.JSONDecodeError as e:
    ...     error = e
    >>> release_held_data(error)
    >>> len(error.doc) <= 128, str(error)
    (True, 'Expecting value: line 1 column 200002 (char 200001)')
"""

from __future__ import annotations

import json
import traceback

WINDOW = 64


def release_held_data(exception: BaseException | None) -> None:
    """Drop what ``exception`` and its causes hold of the failed input (see the module doc)."""
    seen: set[int] = set()
    while exception is not None and id(exception) not in seen:
        seen.add(id(exception))
        if exception.__traceback__ is not None:
            traceback.clear_frames(exception.__traceback__)  # frames still running are skipped
        if isinstance(exception, json.JSONDecodeError) and len(exception.doc) > 2 * WINDOW:
            exception.doc = exception.doc[max(0, exception.pos - WINDOW) : exception.pos + WINDOW]
        exception = exception.__cause__ or exception.__context__
