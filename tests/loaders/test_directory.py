"""DirectoryLoader on a real folder: types, hidden files, symlinks, failures that do not stop the load."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from ragkit.loaders import DirectoryLoader, TextLoader
from ragkit.loaders.base import BaseLoader
from ragkit.splitters import RecursiveCharacterTextSplitter

from .conftest import write_pdf


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "a.txt").write_text("alpha text", encoding="utf-8")
    (root / "b.md").write_text("# Title\n\nbody", encoding="utf-8")
    (root / "c.html").write_text(
        "<html><head><title>T</title></head><body><p>html body</p></body></html>", encoding="utf-8"
    )
    (root / "d.csv").write_text("k,v\n1,one\n2,two\n", encoding="utf-8")
    (root / "e.json").write_text(json.dumps({"x": [1, 2]}), encoding="utf-8")
    (root / "f.jsonl").write_text('{"n": 1}\n{"n": 2}\n', encoding="utf-8")
    (root / "g.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    write_pdf(root / "h.pdf", ["pdf page one", "pdf page two"])
    (root / "sub" / "i.txt").write_bytes("cp1252 \u20ac".encode("cp1252"))
    (root / "sub" / "deeper" / "j.txt").write_bytes("utf16 text".encode("utf-16"))
    (root / ".hidden.txt").write_text("hidden", encoding="utf-8")
    (root / ".git" / "config").write_text("[core]", encoding="utf-8")
    (root / "empty.txt").write_bytes(b"")
    return root


def _names(docs) -> list[str]:
    return [
        os.path.relpath(d.metadata["source"], d.metadata["source"].split("docs")[0] + "docs")
        for d in docs
    ]


def test_loads_every_type_skips_hidden(folder: Path) -> None:
    loader = DirectoryLoader(folder)
    docs = loader.load()
    # the empty file is loaded (an empty Document, as LangChain's) and said to have no text
    assert [(os.path.basename(f.path), f.reason[:18]) for f in loader.errors] == [
        ("empty.txt", "no text found in i")
    ]
    names = _names(docs)
    assert names == [
        "a.txt",
        "b.md",
        "c.html",
        "d.csv",
        "d.csv",
        "e.json",
        "empty.txt",
        "f.jsonl",
        "f.jsonl",
        "g.py",
        "h.pdf",
        "h.pdf",
        "sub/i.txt",
        "sub/deeper/j.txt",
    ]
    by_name = dict(zip(names, docs))
    assert (
        by_name["c.html"].page_content == "T\nhtml body"
        and by_name["c.html"].metadata["title"] == "T"
    )
    assert by_name["sub/i.txt"].page_content == "cp1252 \u20ac"
    assert by_name["sub/deeper/j.txt"].page_content == "utf16 text"
    assert [d.metadata["page"] for d in docs if d.metadata["source"].endswith("h.pdf")] == [0, 1]
    assert [d.metadata["row"] for d in docs if d.metadata["source"].endswith("d.csv")] == [0, 1]
    assert by_name["empty.txt"].page_content == ""
    hidden = _names(DirectoryLoader(folder, load_hidden=True).load())
    assert ".hidden.txt" in hidden and ".git/config" in hidden


def test_glob_exclude_recursive_sample(folder: Path) -> None:
    assert _names(DirectoryLoader(folder, glob="**/*.txt").load()) == [
        "a.txt",
        "empty.txt",
        "sub/i.txt",
        "sub/deeper/j.txt",
    ]
    assert _names(DirectoryLoader(folder, glob="*.txt").load()) == ["a.txt", "empty.txt"]
    assert _names(
        DirectoryLoader(folder, glob="**/*.txt", exclude=["empty.*", "sub/deeper/**"]).load()
    ) == ["a.txt", "sub/i.txt"]
    assert _names(DirectoryLoader(folder, glob="**/*.txt", recursive=False).load()) == [
        "a.txt",
        "empty.txt",
    ]
    assert _names(DirectoryLoader(folder, glob=["*.md", "*.py"]).load()) == ["b.md", "g.py"]
    assert len(DirectoryLoader(folder, glob="**/*.txt", sample_size=2).load()) == 2
    sampled = DirectoryLoader(
        folder, glob="**/*.txt", sample_size=3, randomize_sample=True, sample_seed=1
    ).load()
    assert len(sampled) == 3
    texts = DirectoryLoader(
        folder, glob="**/*.md", loader_cls=TextLoader, loader_kwargs={"encoding": "utf-8"}
    ).load()
    assert [d.page_content for d in texts] == ["# Title\n\nbody"]
    with pytest.raises(ValueError, match="not a directory"):
        DirectoryLoader(folder / "a.txt").load()


def test_multithreading_gives_the_same_documents_in_order(folder: Path) -> None:
    single = DirectoryLoader(folder).load()
    threaded = DirectoryLoader(folder, use_multithreading=True, max_concurrency=3).load()
    assert threaded == single


def test_failures_are_recorded_and_the_rest_loads(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 10)
    (folder / "bad.json").write_text("{nope", encoding="utf-8")
    os.mkfifo(folder / "pipe.txt")
    (folder / "loop").symlink_to(folder)  # a folder symlink back to the root
    (folder / "sub" / "x.txt").symlink_to(folder / "sub" / "y.txt")  # file symlink loop
    (folder / "sub" / "y.txt").symlink_to(folder / "sub" / "x.txt")
    outside = folder.parent / "outside.txt"
    outside.write_text("secret", encoding="utf-8")
    (folder / "escape.txt").symlink_to(outside)
    (folder / "inside-link.txt").symlink_to(folder / "a.txt")
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders"):
        loader = DirectoryLoader(folder)
        docs = loader.load()
    names = _names(docs)
    assert "a.txt" in names and "sub/i.txt" in names and "inside-link.txt" in names
    assert all("secret" not in d.page_content for d in docs)
    assert not any(n.startswith("loop/") for n in names)
    reasons = {os.path.basename(f.path): f.reason for f in loader.errors}
    assert set(reasons) == {
        "binary.txt",
        "bad.json",
        "pipe.txt",
        "x.txt",
        "y.txt",
        "escape.txt",
        "empty.txt",  # loaded, without text
    }
    assert "binary" in reasons["binary.txt"]
    assert "not valid JSON" in reasons["bad.json"]
    assert "not a regular file" in reasons["pipe.txt"]
    assert "outside" in reasons["escape.txt"]
    assert "loop" in reasons["x.txt"] or "broken" in reasons["x.txt"]
    assert len([r for r in caplog.records if "Could not load" in r.getMessage()]) == len(
        loader.errors
    )

    caplog.clear()
    quiet = DirectoryLoader(folder, silent_errors=True)
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders"):
        assert quiet.load() == docs
    assert len(quiet.errors) == len(loader.errors) and not caplog.records


def test_file_removed_between_listing_and_reading(folder: Path) -> None:
    loader = DirectoryLoader(folder, glob="*.txt")
    stream = loader.lazy_load()
    first = next(stream)
    assert first.metadata["source"].endswith("a.txt")
    (folder / "empty.txt").unlink()  # listed with a.txt, gone before it is read
    rest = list(stream)
    assert rest == []
    assert [(os.path.basename(f.path), "does not exist" in f.reason) for f in loader.errors] == [
        ("empty.txt", True)
    ]


def test_streaming_reads_files_lazily(folder: Path) -> None:
    opened: list[str] = []

    class Recording(TextLoader):
        def lazy_load(self):
            opened.append(os.path.basename(str(self.file_path)))
            return super().lazy_load()

    chain = DirectoryLoader(
        folder, glob="**/*.txt", loader_cls=Recording
    ) | RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0)
    stream = chain.stream(None)
    first = next(stream)
    assert first.page_content == "alpha" and opened == ["a.txt"]
    rest = list(stream)
    assert opened == ["a.txt", "empty.txt", "i.txt", "j.txt"] and rest


def test_custom_loader_errors_propagate_to_directory(folder: Path) -> None:
    class Partial(BaseLoader):
        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

        def lazy_load(self):
            self._record(self.path, "page 2 unreadable", log=False)
            yield from TextLoader(self.path).lazy_load()

    loader = DirectoryLoader(folder, glob="a.txt", loader_cls=Partial, silent_errors=True)
    assert [d.page_content for d in loader.load()] == ["alpha text"]
    assert [f.reason for f in loader.errors] == ["page 2 unreadable"]


def test_a_failure_a_files_loader_records_is_logged_once_or_not_at_all(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["Subject"] = "Settings"
    msg.set_content("The settings are attached.")
    msg.add_attachment(b"{nope", maintype="application", subtype="json", filename="bad.json")
    (tmp_path / "mail.eml").write_bytes(msg.as_bytes())
    with caplog.at_level(logging.WARNING, logger="ragkit"):
        loader = DirectoryLoader(tmp_path)
        assert [d.page_content.strip() for d in loader.load()][-1].endswith("attached.")
    [failure] = loader.errors
    assert failure.path == str(tmp_path / "mail.eml" / "bad.json")
    assert [r.getMessage() for r in caplog.records] == [
        f"Could not load {failure.path}: {failure.reason}"
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ragkit"):
        quiet = DirectoryLoader(tmp_path, silent_errors=True)
        quiet.load()
    assert len(quiet.errors) == 1 and not caplog.records


def test_kept_failures_do_not_keep_what_the_failed_read_held(tmp_path: Path) -> None:
    import tracemalloc

    for i in range(2):  # 2 MB each; each read fails after holding the whole text
        (tmp_path / f"broken{i}.json").write_text("{" + "x" * 2_000_000, encoding="utf-8")
        # a field over the csv module's limit: the text is held by the loader's frame
        (tmp_path / f"broken{i}.csv").write_text('a\n"' + "x" * 2_000_000 + '"\n', "utf-8")
    tracemalloc.start()
    try:
        loader = DirectoryLoader(tmp_path)
        before = tracemalloc.get_traced_memory()[0]
        assert loader.load() == []
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert sorted(os.path.basename(f.path) for f in loader.errors) == [
        "broken0.csv", "broken0.json", "broken1.csv", "broken1.json"
    ]  # fmt: skip
    assert all(f.exception is not None and f.exception.__traceback__ for f in loader.errors)
    assert kept < 1_000_000, f"{kept:,} bytes kept by 4 failures"
