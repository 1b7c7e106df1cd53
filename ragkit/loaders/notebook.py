"""NotebookLoader: a Jupyter ``.ipynb`` as Markdown, one Document per notebook (LangChain's signature).

Markdown cells are kept as they are, code cells become fenced code blocks in the
notebook's language, raw cells plain text. With ``include_outputs=True`` each code
cell's outputs follow in an ``output`` fence: stream text and ``text/plain``
results cut to ``max_output_length`` characters (LangChain's default of 10 is
kept), an error as ``ErrorName: value`` and, with ``traceback=True``, its
traceback (terminal colour codes removed). ``remove_newline=True`` removes the
newlines inside each cell, as LangChain does. Metadata: ``source``, and
``language`` when the notebook names its kernel language. Only the standard
library is needed.

LangChain writes each cell as ``'code' cell: '['print(1)']'``; ragkit writes
Markdown, so a Markdown splitter can keep code cells whole.

Example:
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "nb.ipynb")
    >>> cells = [{"cell_type": "markdown", "source": ["# Title"], "metadata": {}},
    ...          {"cell_type": "code", "source": "print(1)", "metadata": {}, "outputs": [
    ...              {"output_type": "stream", "name": "stdout", "text": ["1\\n"]}]}]
    >>> _ = open(path, "w").write(json.dumps({"cells": cells, "nbformat": 4,
    ...     "metadata": {"language_info": {"name": "python"}}}))
    >>> print(NotebookLoader(path, include_outputs=True).load()[0].page_content)
    # Title
    <BLANKLINE>
    ```python
    print(1)
    ```
    <BLANKLINE>
    ```output
    1
    ```
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._decode import read_and_decode
from ragkit.loaders._file_loader import FileLoader

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return "" if value is None else str(value)


class NotebookLoader(FileLoader):
    """Load a Jupyter notebook as one Markdown Document."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        include_outputs: bool = False,
        max_output_length: int = 10,
        remove_newline: bool = False,
        traceback: bool = False,
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(path, max_file_size=max_file_size)
        self.include_outputs = include_outputs
        self.max_output_length = max_output_length
        self.remove_newline = remove_newline
        self.traceback = traceback

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        text, _ = read_and_decode(name, None, True, self.max_file_size)
        try:
            notebook = json.loads(text)
            cells = notebook.get("cells")
            if cells is None and isinstance(notebook.get("worksheets"), list):  # nbformat 3
                cells = [
                    cell
                    for sheet in notebook["worksheets"]
                    if isinstance(sheet, dict)
                    for cell in sheet.get("cells") or []
                ]
            if not isinstance(cells, list):
                raise TypeError("no list of 'cells' (nbformat 4) or of 'worksheets' (nbformat 3)")
        except (ValueError, AttributeError, TypeError) as e:
            raise LoaderError(f"{name} is not a Jupyter notebook: {e}", name) from e
        meta = notebook.get("metadata") if isinstance(notebook.get("metadata"), dict) else {}
        language = (meta.get("language_info") or {}).get("name") or (
            meta.get("kernelspec") or {}
        ).get("language")
        blocks = [b for cell in cells if isinstance(cell, dict) for b in self._cell(cell, language)]
        metadata: dict[str, Any] = {"source": str(self.file_path)}
        if language:
            metadata["language"] = str(language)
        yield Document("\n\n".join(blocks), metadata=metadata)

    def _clean(self, text: str) -> str:
        return text.replace("\n", "") if self.remove_newline else text.strip("\n")

    def _cell(self, cell: dict[str, Any], language: Any) -> list[str]:
        # nbformat 3 keeps a code cell's text under "input"
        source = self._clean(_text(cell.get("source", cell.get("input"))))
        kind = cell.get("cell_type")
        if kind != "code":
            return [source] if source.strip() else []
        blocks = [f"```{language or ''}\n{source}\n```"] if source.strip() else []
        if self.include_outputs:
            out = [self._output(o) for o in cell.get("outputs") or [] if isinstance(o, dict)]
            shown = "\n".join(o for o in out if o)
            if shown:
                blocks.append(f"```output\n{shown}\n```")
        return blocks

    def _output(self, output: dict[str, Any]) -> str:
        kind = output.get("output_type")
        if kind == "error":
            text = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
            if self.traceback:
                text += "\n" + _ANSI.sub("", "\n".join(map(str, output.get("traceback") or [])))
            return self._clean(text)
        if kind == "stream":
            text = _text(output.get("text"))
        else:
            text = _text((output.get("data") or {}).get("text/plain"))
        return self._clean(text[: self.max_output_length])
