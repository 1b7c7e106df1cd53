"""Incremental indexing with a record manager, and ``Index`` over an index directory.

Example:
    >>> from ragkit.indexing import SQLRecordManager, index
    >>> rm = SQLRecordManager("docs", db_url="sqlite:///:memory:")
    >>> rm.create_schema()
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragkit.indexing.api import IndexingResult, document_key, index
from ragkit.indexing.record_manager import SQLRecordManager

if TYPE_CHECKING:
    from ragkit.indexing.index_dir import Index

__all__ = ["Index", "IndexingResult", "SQLRecordManager", "document_key", "index"]


def __getattr__(name: str) -> Any:
    if name == "Index":
        return importlib.import_module("ragkit.indexing.index_dir").Index
    raise AttributeError(f"module 'ragkit.indexing' has no attribute {name!r}")
