"""The splitter an index uses, built from its recorded settings.

``SplitSettings`` is what ``ragkit.toml`` records; :func:`make_splitter` turns
it into a function from a file's documents to chunks. Every chunk carries
``start_index`` (where it starts in its document's text).

Example:
    >>> settings = SplitSettings(name="recursive", chunk_size=500, chunk_overlap=50)
    >>> settings.fingerprint()
    'recursive:500:50'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.loaders.gzip_file import content_extension, read_source_text

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

SPLITTERS = ("recursive", "markdown", "html", "code", "semantic", "token")
Splitter = Callable[[list[Document]], list[Document]]

_CODE_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "js",
    ".mjs": "js",
    ".jsx": "js",
    ".ts": "ts",
    ".tsx": "ts",
    ".java": "java",
    ".kt": "kotlin",
    ".scala": "scala",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".lua": "lua",
    ".pl": "perl",
    ".sol": "sol",
    ".hs": "haskell",
    ".ex": "elixir",
    ".exs": "elixir",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".tex": "latex",
    ".rst": "rst",
    ".proto": "proto",
    ".vb": "visualbasic6",
}
_HEADERS_MD = [("#", "h1"), ("##", "h2"), ("###", "h3")]
_HEADERS_HTML = [("h1", "h1"), ("h2", "h2"), ("h3", "h3")]


@dataclass(frozen=True)
class SplitSettings:
    """How files are cut into chunks (recorded in the index so reruns split the same way)."""

    name: str = "recursive"
    chunk_size: int = 1000
    chunk_overlap: int = 200

    def __post_init__(self) -> None:
        if self.name not in SPLITTERS:
            raise ConfigurationError(
                f"splitter must be one of {', '.join(SPLITTERS)}; got {self.name!r}"
            )
        if self.chunk_size <= 0:
            raise ConfigurationError(f"chunk_size must be positive, got {self.chunk_size}")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ConfigurationError(
                f"chunk_overlap must be >= 0 and smaller than chunk_size ({self.chunk_size}), got {self.chunk_overlap}"
            )

    def fingerprint(self) -> str:
        return f"{self.name}:{self.chunk_size}:{self.chunk_overlap}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _recursive(settings: SplitSettings, language: str | None = None) -> Any:
    from ragkit.splitters import Language, RecursiveCharacterTextSplitter

    kwargs: dict[str, Any] = {
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "add_start_index": True,
    }
    if language is not None:
        return RecursiveCharacterTextSplitter.from_language(Language(language), **kwargs)
    return RecursiveCharacterTextSplitter(**kwargs)


def _by_headers(header_splitter: Any, inner: Any) -> Splitter:
    def split(docs: list[Document]) -> list[Document]:
        out: list[Document] = []
        for doc in docs:
            sections = header_splitter.split_text(doc.page_content)
            for section in sections:
                section.metadata = {**doc.metadata, **section.metadata}
            out.extend(inner.split_documents(sections))
        return out

    return split


CONVERTED_EXTENSIONS = frozenset(
    ".docx .docm .pptx .pptm .xlsx .xlsm .xls .odt .ods .odp .epub .doc .ppt".split()
)
"""Types whose loaders write Markdown (headings, pipe tables): the ``recursive`` and ``code``
splitters split them on their headings, and never cut a table row (see :func:`_converted`)."""


def _converted(settings: SplitSettings) -> Splitter:
    """Sections by heading, then :class:`MarkdownTableTextSplitter` within each: a table is cut
    only between rows and every chunk of it starts with its header row."""
    from ragkit.splitters import MarkdownHeaderTextSplitter
    from ragkit.splitters.markdown_table import MarkdownTableTextSplitter

    inner = MarkdownTableTextSplitter(
        chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap, add_start_index=True
    )
    return _by_headers(MarkdownHeaderTextSplitter(_HEADERS_MD, strip_headers=False), inner)


def make_splitter(
    settings: SplitSettings, embeddings: Embeddings | None = None
) -> Callable[[str], Splitter]:
    """A factory ``path -> splitter`` (the ``code`` splitter picks separators by file extension;
    ``recursive`` and ``code`` split converted documents on their structure)."""
    name = settings.name
    if name in ("recursive", "code"):
        plain = _recursive(settings)
        converted = _converted(settings)

        def for_path(path: str) -> Splitter:
            ext = content_extension(path)
            if ext in CONVERTED_EXTENSIONS:
                return converted
            language = _CODE_LANGUAGES.get(ext) if name == "code" else None
            return (_recursive(settings, language) if language else plain).split_documents

        return for_path
    if name == "markdown":
        from ragkit.splitters import MarkdownHeaderTextSplitter

        md = _by_headers(
            MarkdownHeaderTextSplitter(_HEADERS_MD, strip_headers=False), _recursive(settings)
        )
        return lambda path: md
    if name == "html":
        from ragkit.splitters import HTMLHeaderTextSplitter

        plain = _recursive(settings)
        by_headers = _by_headers(HTMLHeaderTextSplitter(_HEADERS_HTML), plain)

        def html(docs: list[Document]) -> list[Document]:
            # the HTML loader returns text; the header splitter needs the markup, so re-read the file
            if not docs:
                return []
            raw = read_source_text(docs[0].metadata["source"])
            return by_headers([Document(raw, metadata=docs[0].metadata)])

        return lambda path: (
            html if content_extension(path) in (".html", ".htm") else plain.split_documents
        )
    if name == "token":
        from ragkit.splitters import TokenTextSplitter

        token = TokenTextSplitter(
            chunk_size=settings.chunk_size,
            chunk_overlap=settings.chunk_overlap,
            add_start_index=True,
        )
        return lambda path: token.split_documents
    from ragkit.splitters import SemanticChunker

    if embeddings is None:
        raise ConfigurationError("the semantic splitter needs the index's embedding model")
    semantic = SemanticChunker(embeddings, add_start_index=True)
    return lambda path: semantic.split_documents
