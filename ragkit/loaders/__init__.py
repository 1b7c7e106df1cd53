"""Loaders: one module per source format, all lazy, all Runnables.

Names are imported lazily so ``import ragkit.loaders`` pulls in no parser.

Example:
    >>> from ragkit.loaders import DirectoryLoader
    >>> DirectoryLoader(".", glob="*.toml").iter_paths().__next__().endswith(".toml")
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "ArchiveLimits",
    "ArchiveLoader",
    "BSHTMLLoader",
    "BaseLoader",
    "CSVLoader",
    "DirectoryLoader",
    "EmailLoader",
    "GzipFileLoader",
    "HTMLLoader",
    "ImageLoader",
    "JSONLoader",
    "LoadFailure",
    "MarkdownLoader",
    "MboxLoader",
    "OcrEngine",
    "OutlookMessageLoader",
    "PDFLoader",
    "PDFPlumberLoader",
    "RecursiveUrlLoader",
    "TextLoader",
    "UnstructuredEmailLoader",
    "UnstructuredImageLoader",
    "WebBaseLoader",
    "sniff_type",
]

_LAZY = {
    "ArchiveLimits": "ragkit.loaders._archive_limits",
    "ArchiveLoader": "ragkit.loaders.archive",
    "EmailLoader": "ragkit.loaders.email_loader",
    "UnstructuredEmailLoader": "ragkit.loaders.email_loader",
    "MboxLoader": "ragkit.loaders.mbox",
    "OutlookMessageLoader": "ragkit.loaders.outlook_msg",
    "sniff_type": "ragkit.loaders.sniff",
    "BaseLoader": "ragkit.loaders.base",
    "LoadFailure": "ragkit.loaders.base",
    "CSVLoader": "ragkit.loaders.csv_loader",
    "DirectoryLoader": "ragkit.loaders.directory",
    "GzipFileLoader": "ragkit.loaders.gzip_file",
    "BSHTMLLoader": "ragkit.loaders.html_loader",
    "HTMLLoader": "ragkit.loaders.html_loader",
    "ImageLoader": "ragkit.loaders.image",
    "UnstructuredImageLoader": "ragkit.loaders.image",
    "OcrEngine": "ragkit.loaders.ocr",
    "PDFPlumberLoader": "ragkit.loaders.pdfplumber_loader",
    "JSONLoader": "ragkit.loaders.json_loader",
    "MarkdownLoader": "ragkit.loaders.markdown_loader",
    "PDFLoader": "ragkit.loaders.pdf",
    "RecursiveUrlLoader": "ragkit.loaders.recursive_url",
    "TextLoader": "ragkit.loaders.text",
    "WebBaseLoader": "ragkit.loaders.web_base",
}

if TYPE_CHECKING:
    from ragkit.loaders._archive_limits import ArchiveLimits
    from ragkit.loaders.archive import ArchiveLoader
    from ragkit.loaders.base import BaseLoader, LoadFailure
    from ragkit.loaders.csv_loader import CSVLoader
    from ragkit.loaders.directory import DirectoryLoader
    from ragkit.loaders.email_loader import EmailLoader, UnstructuredEmailLoader
    from ragkit.loaders.gzip_file import GzipFileLoader
    from ragkit.loaders.html_loader import BSHTMLLoader, HTMLLoader
    from ragkit.loaders.image import ImageLoader, UnstructuredImageLoader
    from ragkit.loaders.json_loader import JSONLoader
    from ragkit.loaders.markdown_loader import MarkdownLoader
    from ragkit.loaders.mbox import MboxLoader
    from ragkit.loaders.ocr import OcrEngine
    from ragkit.loaders.outlook_msg import OutlookMessageLoader
    from ragkit.loaders.pdf import PDFLoader
    from ragkit.loaders.pdfplumber_loader import PDFPlumberLoader
    from ragkit.loaders.recursive_url import RecursiveUrlLoader
    from ragkit.loaders.sniff import sniff_type
    from ragkit.loaders.text import TextLoader
    from ragkit.loaders.web_base import WebBaseLoader
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
