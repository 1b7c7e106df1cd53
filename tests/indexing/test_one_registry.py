"""Issue 26, "one path": `Index.add` (what `ragkit index` runs) and `DirectoryLoader` choose
loaders from one registry: a loader registered once for a new type is used by both, and a
mixed folder (files written by the format libraries, one of them misnamed) gives both the same
text per file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import docx
import openpyxl

from ragkit import Index
from ragkit.documents import Document
from ragkit.loaders import DirectoryLoader, registry
from ragkit.loaders.base import BaseLoader


class Shout(BaseLoader):
    def __init__(self, path: str, max_file_size: int | None = None) -> None:
        super().__init__()
        self.path = path

    def lazy_load(self) -> Iterator[Document]:
        text = Path(self.path).read_text(encoding="utf-8").upper()
        yield Document(text, metadata={"source": self.path})


def _texts(docs: list[Document]) -> dict[str, str]:
    out: dict[str, str] = {}
    for doc in docs:
        name = Path(str(doc.metadata["source"])).name
        out[name] = out.get(name, "") + doc.page_content
    return out


def test_a_registered_loader_is_used_by_index_add_and_directory_loader(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.shout").write_text("quiet words", encoding="utf-8")
    registry.register_loader(".shout", Shout, name="shouting")
    try:
        assert _texts(DirectoryLoader(folder).load()) == {"a.shout": "QUIET WORDS"}
        idx = Index.create(tmp_path / "idx", embeddings="hash")
        assert idx.add([folder]).files_loaded == 1
        assert _texts(list(idx.vectorstore.documents())) == {"a.shout": "QUIET WORDS"}
    finally:
        del registry._TABLE[".shout"]


def test_index_add_and_directory_loader_read_a_mixed_folder_alike(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    word = docx.Document()
    word.add_paragraph("Bleed the brakes yearly.")
    word.save(str(folder / "brakes.docx"))
    book = openpyxl.Workbook()
    book.active.append(["sku", "warehouse"])
    book.active.append(["KX-1", "Rotterdam"])
    book.save(folder / "stock.xlsx")
    (folder / "page.txt").write_text("<html><body><p>Misnamed HTML page</p></body></html>")
    (folder / "notes.md").write_text("# Notes\n\nChain wax every 300 km.\n")

    loader = DirectoryLoader(folder)
    direct = _texts(loader.load())
    assert loader.errors == [] and sorted(direct) == [
        "brakes.docx",
        "notes.md",
        "page.txt",
        "stock.xlsx",
    ]
    assert "<p>" not in direct["page.txt"]  # read as HTML by its content, not as text
    idx = Index.create(tmp_path / "idx", embeddings="hash", chunk_size=2000, chunk_overlap=0)
    report = idx.add([folder])
    assert report.ok and report.files_loaded == 4
    indexed = _texts(list(idx.vectorstore.documents()))
    assert sorted(indexed) == sorted(direct)
    for name, text in direct.items():
        assert " ".join(indexed[name].split()) == " ".join(text.split()), name
