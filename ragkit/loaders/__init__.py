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
    "Docx2txtLoader",
    "DocxLoader",
    "EPubLoader",
    "EmailLoader",
    "ExcelLoader",
    "GzipFileLoader",
    "HTMLLoader",
    "ImageLoader",
    "JSONLoader",
    "LegacyOfficeLoader",
    "LoadFailure",
    "MarkdownLoader",
    "MboxLoader",
    "NotebookLoader",
    "OcrEngine",
    "OfficePasswordLoader",
    "OpenDocumentLoader",
    "OutlookMessageLoader",
    "PDFLoader",
    "PDFPlumberLoader",
    "PowerPointLoader",
    "PptxLoader",
    "PyPDFium2Loader",
    "RTFLoader",
    "ReadOptions",
    "RecursiveUrlLoader",
    "TSVLoader",
    "TextLoader",
    "UnstructuredEPubLoader",
    "UnstructuredEmailLoader",
    "UnstructuredExcelLoader",
    "UnstructuredImageLoader",
    "UnstructuredPowerPointLoader",
    "UnstructuredWordDocumentLoader",
    "WebBaseLoader",
    "XMLLoader",
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
    "OfficePasswordLoader": "ragkit.loaders.office_password",
    "PDFPlumberLoader": "ragkit.loaders.pdfplumber_loader",
    "JSONLoader": "ragkit.loaders.json_loader",
    "MarkdownLoader": "ragkit.loaders.markdown_loader",
    "PDFLoader": "ragkit.loaders.pdf",
    "PyPDFium2Loader": "ragkit.loaders.pdfium_loader",
    "ReadOptions": "ragkit.loaders.read_options",
    "RecursiveUrlLoader": "ragkit.loaders.recursive_url",
    "TextLoader": "ragkit.loaders.text",
    "WebBaseLoader": "ragkit.loaders.web_base",
    "Docx2txtLoader": "ragkit.loaders.docx_loader",
    "DocxLoader": "ragkit.loaders.docx_loader",
    "UnstructuredWordDocumentLoader": "ragkit.loaders.docx_loader",
    "PowerPointLoader": "ragkit.loaders.pptx_loader",
    "PptxLoader": "ragkit.loaders.pptx_loader",
    "UnstructuredPowerPointLoader": "ragkit.loaders.pptx_loader",
    "ExcelLoader": "ragkit.loaders.excel",
    "UnstructuredExcelLoader": "ragkit.loaders.excel",
    "OpenDocumentLoader": "ragkit.loaders.odf_loader",
    "RTFLoader": "ragkit.loaders.rtf",
    "EPubLoader": "ragkit.loaders.epub",
    "UnstructuredEPubLoader": "ragkit.loaders.epub",
    "NotebookLoader": "ragkit.loaders.notebook",
    "XMLLoader": "ragkit.loaders.xml_loader",
    "TSVLoader": "ragkit.loaders.csv_loader",
    "LegacyOfficeLoader": "ragkit.loaders.legacy_office",
}

if TYPE_CHECKING:
    from ragkit.loaders._archive_limits import ArchiveLimits
    from ragkit.loaders.archive import ArchiveLoader
    from ragkit.loaders.base import BaseLoader, LoadFailure
    from ragkit.loaders.csv_loader import CSVLoader, TSVLoader
    from ragkit.loaders.directory import DirectoryLoader
    from ragkit.loaders.docx_loader import (
        Docx2txtLoader,
        DocxLoader,
        UnstructuredWordDocumentLoader,
    )
    from ragkit.loaders.email_loader import EmailLoader, UnstructuredEmailLoader
    from ragkit.loaders.epub import EPubLoader, UnstructuredEPubLoader
    from ragkit.loaders.excel import ExcelLoader, UnstructuredExcelLoader
    from ragkit.loaders.gzip_file import GzipFileLoader
    from ragkit.loaders.html_loader import BSHTMLLoader, HTMLLoader
    from ragkit.loaders.image import ImageLoader, UnstructuredImageLoader
    from ragkit.loaders.json_loader import JSONLoader
    from ragkit.loaders.legacy_office import LegacyOfficeLoader
    from ragkit.loaders.markdown_loader import MarkdownLoader
    from ragkit.loaders.mbox import MboxLoader
    from ragkit.loaders.notebook import NotebookLoader
    from ragkit.loaders.ocr import OcrEngine
    from ragkit.loaders.odf_loader import OpenDocumentLoader
    from ragkit.loaders.office_password import OfficePasswordLoader
    from ragkit.loaders.outlook_msg import OutlookMessageLoader
    from ragkit.loaders.pdf import PDFLoader
    from ragkit.loaders.pdfium_loader import PyPDFium2Loader
    from ragkit.loaders.pdfplumber_loader import PDFPlumberLoader
    from ragkit.loaders.pptx_loader import (
        PowerPointLoader,
        PptxLoader,
        UnstructuredPowerPointLoader,
    )
    from ragkit.loaders.read_options import ReadOptions
    from ragkit.loaders.recursive_url import RecursiveUrlLoader
    from ragkit.loaders.rtf import RTFLoader
    from ragkit.loaders.sniff import sniff_type
    from ragkit.loaders.text import TextLoader
    from ragkit.loaders.web_base import WebBaseLoader
    from ragkit.loaders.xml_loader import XMLLoader
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
