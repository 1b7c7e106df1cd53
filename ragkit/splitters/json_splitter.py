"""RecursiveJsonSplitter: JSON objects cut into smaller objects that keep their key paths.

Same parameters and chunks as LangChain's ``RecursiveJsonSplitter``
(``max_chunk_size=2000``, ``min_chunk_size`` defaulting to
``max(max_chunk_size - 200, 50)``; sizes are lengths of ``json.dumps``).
Chunks never share mutable values with the input. As a document splitter it
parses each Document's text as JSON.

Example:
    >>> splitter = RecursiveJsonSplitter(max_chunk_size=30, min_chunk_size=10)
    >>> splitter.split_text({"a": {"x": 1, "y": 2}, "b": "some longer text here"})
    ['{"a": {"x": 1, "y": 2}}', '{"b": "some longer text here"}']
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InputTypeError, SplitterInputError
from ragkit.splitters.base import DocumentSplitter, copy_metadata


class RecursiveJsonSplitter(DocumentSplitter):
    """Split a JSON object into objects of at most ``max_chunk_size`` serialized characters."""

    def __init__(self, max_chunk_size: int = 2000, min_chunk_size: int | None = None) -> None:
        if max_chunk_size <= 0:
            raise ConfigurationError(
                f"max_chunk_size must be a positive integer, got {max_chunk_size!r}"
            )
        self.max_chunk_size = max_chunk_size
        self.min_chunk_size = (
            min_chunk_size if min_chunk_size is not None else max(max_chunk_size - 200, 50)
        )

    def split_json(self, json_data: Any, convert_lists: bool = False) -> list[dict[str, Any]]:
        """Split ``json_data`` (a dict; a list too with ``convert_lists=True``) into dicts."""
        was_list = isinstance(json_data, list)
        if convert_lists:
            json_data = _lists_to_dicts(json_data)
        if json_data is not None and not isinstance(json_data, dict):
            hint = (
                " Top-level lists can be split by passing convert_lists=True."
                if was_list and not convert_lists
                else ""
            )
            raise InputTypeError(f"json_data must be a dict, got {type(json_data).__name__}.{hint}")
        chunks: list[dict[str, Any]] = [{}]
        if json_data:
            self._split(json_data, [], chunks)
        if not chunks[-1]:
            chunks.pop()
        return copy.deepcopy(chunks)

    def split_text(
        self, json_data: Any, convert_lists: bool = False, ensure_ascii: bool = True
    ) -> list[str]:
        """Split into JSON strings (``json_data`` may also be a JSON text)."""
        if isinstance(json_data, str):
            json_data = _loads(json_data)
        return [
            json.dumps(c, ensure_ascii=ensure_ascii)
            for c in self.split_json(json_data, convert_lists)
        ]

    def create_documents(
        self,
        texts: list[Any],
        convert_lists: bool = False,
        ensure_ascii: bool = True,
        metadatas: list[dict[str, Any]] | None = None,
    ) -> list[Document]:
        """One Document per chunk of each JSON object in ``texts``."""
        docs = []
        for i, data in enumerate(texts):
            fresh = copy_metadata(metadatas[i] if metadatas else {})
            for chunk in self.split_text(
                data, convert_lists=convert_lists, ensure_ascii=ensure_ascii
            ):
                docs.append(Document(chunk, metadata=fresh()))
        return docs

    def split_document(self, document: Document) -> Iterator[Document]:
        data = _loads(document.page_content, document.metadata.get("source"))
        fresh = copy_metadata(document.metadata)
        for chunk in self.split_text(data, convert_lists=isinstance(data, list)):
            yield Document(chunk, metadata=fresh())

    def _split(self, data: Any, path: list[str], chunks: list[dict[str, Any]]) -> None:
        if isinstance(data, dict) and data:
            for key, value in data.items():
                new_path = [*path, key]
                chunk_size = len(json.dumps(chunks[-1]))
                if len(json.dumps({key: value})) < self.max_chunk_size - chunk_size:
                    _set_nested(chunks[-1], new_path, value)
                else:
                    if chunk_size >= self.min_chunk_size:
                        chunks.append({})
                    self._split(value, new_path, chunks)
        elif path:
            _set_nested(chunks[-1], path, data)


def _set_nested(d: dict[str, Any], path: list[str], value: Any) -> None:
    for key in path[:-1]:
        d = d.setdefault(key, {})
    d[path[-1]] = value


def _lists_to_dicts(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _lists_to_dicts(v) for k, v in data.items()}
    if isinstance(data, list):
        return {str(i): _lists_to_dicts(item) for i, item in enumerate(data)}
    return data


def _loads(text: str, source: Any = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        where = f" in {source}" if source else ""
        raise SplitterInputError(
            f"RecursiveJsonSplitter needs JSON text{where}: {e.msg} at line {e.lineno} column {e.colno}; "
            "load the file with JSONLoader or split it with a text splitter"
        ) from None
