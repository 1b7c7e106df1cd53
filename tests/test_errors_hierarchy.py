"""Every ragkit error lives in ragkit.errors and derives from RagkitError."""

from __future__ import annotations

import inspect

import ragkit.errors as errors
from ragkit.chains.history import ChatHistoryError
from ragkit.tools import ToolException, ToolTimeoutError


def test_every_error_class_derives_from_ragkit_error():
    classes = [
        c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
    ]
    assert len(classes) > 20
    assert all(issubclass(c, errors.RagkitError) for c in classes)


def test_re_exported_errors_are_the_same_classes():
    assert ToolException is errors.ToolException and ToolTimeoutError is errors.ToolTimeoutError
    assert ChatHistoryError is errors.ChatHistoryError
    assert issubclass(ToolTimeoutError, TimeoutError) and issubclass(
        ToolTimeoutError, ToolException
    )


def test_one_except_clause_covers_both_kinds_of_damaged_index():
    try:
        raise errors.IndexFormatError("bm25/index.json: unknown format version 9")
    except errors.IndexCorruptedError as err:
        assert "bm25/index.json" in str(err)
