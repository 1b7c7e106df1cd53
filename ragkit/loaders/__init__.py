"""Loaders: one module per source format, all lazy, all Runnables.

Names are imported lazily so ``import ragkit.loaders`` pulls in no parser.

Example:
    >>> from ragkit.loaders import DirectoryLoader
    >>> DirectoryLoader(".", glob="*.toml").iter_paths().__next__().endswith(".toml")
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_getattr

if TYPE_CHECKING:
    from ragkit.loaders.base import BaseLoader, LoadFailure
    from ragkit.loaders.csv_loader import CSVLoader
    from ragkit.loaders.directory import DirectoryLoader
    from ragkit.loaders.html_loader import HTMLLoader
    from ragkit.loaders.json_loader import JSONLoader
    from ragkit.loaders.markdown_loader import MarkdownLoader
    from ragkit.loaders.pdf import PDFLoader
    from ragkit.loaders.text import TextLoader

_WHERE = {
    "BaseLoader": "base",
    "LoadFailure": "base",
    "TextLoader": "text",
    "DirectoryLoader": "directory",
    "CSVLoader": "csv_loader",
    "JSONLoader": "json_loader",
    "HTMLLoader": "html_loader",
    "MarkdownLoader": "markdown_loader",
    "PDFLoader": "pdf",
}

__all__ = [
    "BaseLoader",
    "CSVLoader",
    "DirectoryLoader",
    "HTMLLoader",
    "JSONLoader",
    "LoadFailure",
    "MarkdownLoader",
    "PDFLoader",
    "TextLoader",
]


__getattr__ = lazy_getattr(
    __name__, {name: f"ragkit.loaders.{module}" for name, module in _WHERE.items()}
)
