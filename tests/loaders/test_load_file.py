"""DirectoryLoader.load_file(path): one file, loaded exactly as a folder walk loads it.

Each file is loaded both ways, by ``load_file`` and by a walk of its folder whose glob
matches only that file; the Documents (text and metadata) and the recorded reasons must be
the same. The files cover each path of the loader: plain text, text that is really HTML,
a registered type, an empty file, a binary file, a damaged file and a sub-folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragkit.loaders import DirectoryLoader, TextLoader
from tests.loaders.mixed_folder import fetch_folder, glob_escape
from tests.loaders.office_corpus import write_docx


def both_ways(folder: Path, path: Path, **kwargs: object) -> tuple[object, object]:
    walk = DirectoryLoader(folder, glob=glob_escape(path.relative_to(folder).as_posix()), **kwargs)
    walked = [(d.page_content, d.metadata) for d in walk.load()]
    one = DirectoryLoader(folder, **kwargs)
    loaded = [(d.page_content, d.metadata) for d in one.load_file(path)]
    return (walked, [e.reason for e in walk.errors]), (loaded, [e.reason for e in one.errors])


def corpus(root: Path) -> list[Path]:
    (root / "sub").mkdir()
    files = {
        "notes.txt": b"Chain wear: replace at 0.5%.\r\n",
        "page.txt": b"<!DOCTYPE html><html><body><h1>Tyres</h1><p>Six bar.</p></body></html>",
        "sub/table.csv": b"part,price\nchain,30\n",
        "empty.md": b"",
        "blob.txt": b"\x00\x01\x02binary" * 100,
        "broken.pdf": b"%PDF-1.7\nnot really a pdf",
        "legacy.txt": "caf\u00e9 cr\u00e8me".encode("cp1252"),
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    write_docx(root / "manual.docx")
    return [root / name for name in files] + [root / "manual.docx"]


def test_load_file_equals_the_folder_walk_for_each_file(tmp_path: Path) -> None:
    for path in corpus(tmp_path):
        walked, loaded = both_ways(tmp_path, path, silent_errors=True)
        assert loaded == walked, path.name
    texts = {p.name: DirectoryLoader(tmp_path).load_file(p) for p in corpus_names(tmp_path)}
    assert texts["notes.txt"][0].page_content == "Chain wear: replace at 0.5%.\n"
    assert (
        "Tyres" in texts["page.txt"][0].page_content
        and "<h1>" not in texts["page.txt"][0].page_content
    )
    assert texts["blob.txt"] == [] and texts["broken.pdf"] == []
    assert texts["legacy.txt"][0].page_content == "caf\u00e9 cr\u00e8me"


def corpus_names(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_load_file_records_reasons_and_takes_loader_cls(tmp_path: Path) -> None:
    corpus(tmp_path)
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    assert loader.load_file(tmp_path / "blob.txt") == []
    assert loader.load_file(str(tmp_path / "missing.txt")) == []
    [empty] = loader.load_file(tmp_path / "empty.md")
    assert empty.page_content == ""
    reasons = [e.reason for e in loader.errors]
    assert len(reasons) == 3 and "binary" in reasons[0] and "missing.txt" in reasons[1]
    assert "no text" in reasons[2] or "nothing" in reasons[2]
    plain = DirectoryLoader(tmp_path, loader_cls=TextLoader)
    [doc] = plain.load_file(tmp_path / "page.txt")
    assert doc.page_content.startswith("<!DOCTYPE html>")  # loader_cls wins over sniffing
    assert doc.metadata["source"] == os.fspath(tmp_path / "page.txt")


@pytest.mark.slow
@pytest.mark.integration
def test_load_file_equals_the_walk_on_one_file_of_each_format_of_the_mixed_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAGKIT_OCR", "never")  # the images' reason, not minutes of OCR
    folder, kinds = fetch_folder()
    first: dict[str, str] = {}
    for name, fmt in sorted(kinds.items()):
        first.setdefault(fmt, name)
    assert len(first) >= 30
    for name in first.values():
        walked, loaded = both_ways(folder, folder / name, silent_errors=True)
        assert loaded == walked, name


def test_markdown_read_in_one_pass_equals_markdown_loader(tmp_path: Path) -> None:
    from ragkit.loaders import MarkdownLoader, registry

    files = {
        "crlf.md": b"# Brakes\r\n\r\nPads wear.\r\n",
        "utf16.md": "# Sattel\n\nH\u00f6he 74 cm\n".encode("utf-16"),
        "legacy.markdown": "# Caf\u00e9\n\ncr\u00e8me".encode("cp1252"),
        "blank.md": b"  \n\t\n",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    for name in files:
        ours = [(d.page_content, d.metadata) for d in loader.load_file(tmp_path / name)]
        theirs = [(d.page_content, d.metadata) for d in MarkdownLoader(tmp_path / name).load()]
        assert ours == theirs, name
    assert [e.path.rsplit("/", 1)[-1] for e in loader.errors] == ["blank.md"]
    assert registry.loader_entry(".md").plain_text  # type: ignore[union-attr]

    class Shout(TextLoader):
        def lazy_load(self):  # type: ignore[no-untyped-def]
            for doc in super().lazy_load():
                doc.page_content = doc.page_content.upper()
                yield doc

    saved = registry.loader_entry(".md")
    registry.register_loader(".md", lambda p, max_file_size=None: Shout(p), name="shout")
    try:  # a loader registered for .md is used, not the one-pass text read
        [doc] = DirectoryLoader(tmp_path).load_file(tmp_path / "crlf.md")
        assert doc.page_content.startswith("# BRAKES")
    finally:
        registry._TABLE[".md"] = saved  # type: ignore[assignment]
