"""JSONLoader: Documents from JSON or JSON Lines, selected with a small jq-like path.

The path language covers what loaders need without the ``jq`` binary:
``.`` (the whole value), ``.key`` / ``."quoted key"`` (a field), ``.[]`` (each
element of a list, or each value of an object), ``.[2]`` (one element) and
chains of them (``.data.items[].body``). ``content_key`` picks the text out of
each selected object; ``metadata_func(record, metadata)`` may add fields.
``seq_num`` counts records from 1 (across lines with ``json_lines=True``).
With ``json_lines=True`` a bad line is recorded on ``loader.errors`` (with its
line number) and the other lines load. JSON escapes of lone surrogates
(``"\\ud800"``) become U+FFFD in the text (a deliberate difference from
LangChain, whose text could then not be saved as UTF-8 anywhere); nesting too
deep to parse is a clear :class:`~ragkit.errors.LoaderError`.

Example:
    >>> import tempfile, os, json
    >>> path = os.path.join(tempfile.mkdtemp(), "chat.json")
    >>> _ = open(path, "w").write(json.dumps({"messages": [{"text": "hi"}, {"text": "yo"}]}))
    >>> [d.page_content for d in JSONLoader(path, jq_schema=".messages[].text").load()]
    ['hi', 'yo']
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit._unicode import without_surrogates
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders._decode import read_and_decode
from ragkit.loaders._file_loader import FileLoader

_DEPTH = 1000
_STEP = re.compile(r'\.(?:([A-Za-z_][\w-]*)|"((?:[^"\\]|\\.)*)"|\[(\d*)\])?')


def compile_path(schema: str) -> list[tuple[str, Any]]:
    """Parse a path like ``.a.b[]."c d"[0]`` into steps ``(kind, arg)``."""
    text = schema.strip()
    if not text.startswith("."):
        raise ConfigurationError(
            f"jq_schema {schema!r} must start with '.' (e.g. '.', '.items[]', '.a.b')"
        )
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(text):
        m = (
            _STEP.match(text, pos)
            if text[pos] == "."
            else re.compile(r"\[(\d*)\]").match(text, pos)
        )
        if m is None or m.end() == pos:
            raise ConfigurationError(
                f"jq_schema {schema!r}: cannot read {text[pos:]!r}; supported: '.', '.key', '.\"key\"', '.[]', '.[n]'"
            )
        groups = m.groups()
        if len(groups) == 1:
            index = groups[0]
            steps.append(("each", None) if index == "" else ("index", int(index)))
        else:
            key, quoted, index = groups
            if key is not None:
                steps.append(("key", key))
            elif quoted is not None:
                steps.append(("key", json.loads(f'"{quoted}"')))
            elif index is not None:
                steps.append(("each", None) if index == "" else ("index", int(index)))
        pos = m.end()
    return steps


def select(value: Any, steps: list[tuple[str, Any]]) -> Iterator[Any]:
    """The values a compiled path selects from ``value`` (missing keys give None, as jq)."""
    if not steps:
        yield value
        return
    (kind, arg), rest = steps[0], steps[1:]
    if kind == "key":
        if value is not None and not isinstance(value, dict):
            raise LoaderError(f"cannot take key {arg!r} of a {type(value).__name__}")
        yield from select(None if value is None else value.get(arg), rest)
    elif kind == "index":
        if not isinstance(value, list):
            raise LoaderError(f"cannot index [{arg}] into a {type(value).__name__}")
        yield from select(value[arg] if -len(value) <= arg < len(value) else None, rest)
    else:
        if isinstance(value, list):
            items = value
        elif isinstance(value, dict):
            items = list(value.values())
        else:
            raise LoaderError(f"cannot iterate [] over a {type(value).__name__}")
        for item in items:
            yield from select(item, rest)


class JSONLoader(FileLoader):
    """Load records selected by ``jq_schema`` from a JSON (or JSON Lines) file."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        jq_schema: str = ".",
        content_key: str | None = None,
        metadata_func: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None,
        text_content: bool = True,
        json_lines: bool = False,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        self.jq_schema = jq_schema
        self._steps = compile_path(jq_schema)
        self.content_key = content_key
        self.metadata_func = metadata_func
        self.text_content = text_content
        self.json_lines = json_lines

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        text, _ = read_and_decode(name, max_size=self.max_file_size)
        seq = 0
        if not self.json_lines:
            for record in self._records(text, name, None):
                seq += 1
                yield self._document(record, seq, name)
            return
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records = list(self._records(line, name, number))
            except LoaderError as e:  # one bad line: record it, keep the others
                self._record(name, str(e), e)
                continue
            for record in records:
                seq += 1
                yield self._document(record, seq, name)

    def _records(self, text: str, name: str, line: int | None) -> Iterator[Any]:
        where = f"{name} line {line}" if line is not None else name
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise LoaderError(
                f"{where} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}", name
            ) from e
        except RecursionError as e:
            raise LoaderError(
                f"{where}: JSON nested too deeply to read (over ~{_DEPTH} levels)", name
            ) from e
        except ValueError as e:  # e.g. an integer literal over Python's 4300-digit limit
            raise LoaderError(f"{where} is not readable JSON: {e}", name) from e
        try:
            yield from select(data, self._steps)
        except LoaderError as e:
            raise LoaderError(f"{where}: jq_schema {self.jq_schema!r}: {e}", name) from e

    def _document(self, record: Any, seq: int, name: str) -> Document:
        content: Any = record
        if self.content_key is not None:
            if not isinstance(record, dict):
                raise LoaderError(
                    f"{name}: jq_schema {self.jq_schema!r} must select objects to use content_key "
                    f"{self.content_key!r}, got {type(record).__name__}",
                    name,
                )
            content = record.get(self.content_key)
        if isinstance(content, str):
            text = content
        elif self.text_content and content is not None:
            raise LoaderError(
                f"{name}: record {seq} has {type(content).__name__} content, not a string; "
                "set text_content=False to load it as JSON text",
                name,
            )
        elif isinstance(content, (dict, list)):
            try:
                text = json.dumps(content, ensure_ascii=False) if content else ""
            except RecursionError as e:
                raise LoaderError(f"{name}: record {seq} is nested too deeply", name) from e
        else:
            text = "" if content is None else str(content)
        metadata: dict[str, Any] = {"source": str(self.file_path), "seq_num": seq}
        if self.metadata_func is not None:
            metadata = self.metadata_func(record, metadata)
            if not isinstance(metadata, dict):
                raise LoaderError(
                    f"metadata_func must return a dict, got {type(metadata).__name__}", name
                )
        return Document(without_surrogates(text), metadata=metadata)
