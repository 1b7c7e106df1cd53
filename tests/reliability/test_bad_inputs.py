"""Regression tests: one bad input never sinks an indexing run, and nothing is lost without a report."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragkit._io.sizes import parse_size
from ragkit.errors import ConfigurationError
from ragkit.indexing.index_dir import Index
from ragkit.loaders import TextLoader
from tests.cli.helpers import env
from tests.indexing.corpus import minimal_pdf

from .measure import run_python
from .privileges import drop_file_access_override


def index_dir(tmp_path: Path) -> Index:
    return Index.create(tmp_path / "idx", "hash-64")


def by_code(entries: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in entries:
        out.setdefault(e["code"], []).append(os.path.basename(e["path"]))
    return out


def test_a_name_that_is_not_utf8_fails_alone_and_the_rest_is_committed(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text("good chain wax")
    with open(os.path.join(os.fsencode(docs), b"caf\xe9.txt"), "wb") as fh:
        fh.write(b"latin-1 name")
    idx = index_dir(tmp_path)
    report = idx.add(docs)
    assert report.committed and [f["code"] for f in report.failures] == ["bad-name"]
    assert report.failures[0]["path"].endswith("caf\\xe9.txt")
    assert "UTF-8" in report.failures[0]["error"]
    assert [os.path.basename(s) for s in Index.open(idx.path).sources()] == ["good.txt"]
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")  # printable as UTF-8


def test_json_with_a_lone_surrogate_escape_is_indexed_and_reruns_work(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "s.json").write_text('{"text": "sprocket \\ud800 wear"}')
    (docs / "ok.txt").write_text("chain wear gauge")
    idx = index_dir(tmp_path)
    first = idx.add(docs)
    assert first.committed and first.failures == []
    (docs / "ok.txt").write_text("chain wear gauge, updated")
    second = idx.add(docs)  # the save used to fail here, on every rerun
    assert second.committed and second.failures == []
    hits = Index.open(idx.path).retriever("bm25", k=1).invoke("sprocket")
    assert hits and "\ufffd" in hits[0].page_content and "\ud800" not in hits[0].page_content


def test_documents_with_lone_surrogates_get_a_clear_error(tmp_path):
    from ragkit.documents import Document

    idx = index_dir(tmp_path)
    with pytest.raises(ConfigurationError, match="lone surrogate"):
        idx.add([Document("bad \ud800 text", metadata={"source": "x"})])
    assert idx.add([Document("fine text", metadata={"source": "y"})]).committed


@pytest.mark.slow
def test_bad_json_lines_and_damaged_pdfs_are_in_the_report(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "l.jsonl").write_text('{"a": "first line"}\nnot json\n{"a": "third"}\n')
    pdf = minimal_pdf(["Spoke tension."])
    (docs / "zero.pdf").write_bytes(pdf.replace(b"/Kids [3 0 R] /Count 1", b"/Kids [] /Count 0"))
    flate = pdf.replace(b"<< /Length", b"<< /Filter /FlateDecode /Length")
    # says FlateDecode, holds bytes that do not inflate: no library reads this page
    (docs / "damaged.pdf").write_bytes(flate.replace(b"BT /F1 12 Tf", b"x\x9c\x8b\x01\x02\xff"))
    # says FlateDecode, is not compressed: PDFium (the registry's PDF reader) reads it anyway
    (docs / "mislabelled.pdf").write_bytes(flate)
    (docs / "good.pdf").write_bytes(pdf)
    index = index_dir(tmp_path)
    report = index.add(docs)
    failures = {
        (os.path.basename(f["path"]), f["code"], bool(f.get("partial"))) for f in report.failures
    }
    assert failures == {
        ("l.jsonl", "part-failed", True),  # lines 1 and 3 are indexed
        ("zero.pdf", "load-failed", False),
        ("damaged.pdf", "part-failed", True),
    }
    assert any("line 2" in f["error"] for f in report.failures)
    assert by_code(report.ignored) == {"no-text": ["damaged.pdf"]}  # its only page had no text
    indexed = sorted(os.path.basename(s) for s in index.sources())
    assert indexed == ["good.pdf", "l.jsonl", "mislabelled.pdf"]


def test_folder_symlinks_fifos_and_hidden_entries_are_in_ignored(tmp_path):
    docs = tmp_path / "docs"
    (docs / "real").mkdir(parents=True)
    (docs / "real" / "a.txt").write_text("brake pads")
    os.symlink(docs / "real", docs / "alias")
    os.mkfifo(docs / "pipe.txt")
    (docs / ".env").write_text("SECRET=1")
    (docs / "empty.md").write_text("")
    report = index_dir(tmp_path).add(docs)  # a FIFO would block a reader: it is not opened
    assert by_code(report.ignored) == {
        "hidden": [".env"],
        "symlink-folder": ["alias"],
        "empty": ["empty.md"],
        "special": ["pipe.txt"],
    }
    assert report.failures == [] and report.files_loaded == 1


def test_max_file_size_fails_big_files_before_reading(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "small.txt").write_text("small file")
    (docs / "big.txt").write_text("x" * 5000)
    report = index_dir(tmp_path).add(docs, max_file_size="4KiB")
    assert by_code(report.failures) == {"too-large": ["big.txt"]}
    assert "over the file size limit of 4 KiB" in report.failures[0]["error"]
    assert "--max-file-size" in report.failures[0]["error"]
    assert index_dir(tmp_path).add(docs, max_file_size=0).failures == []  # 0: no limit
    with pytest.raises(ConfigurationError, match="not a size"):
        parse_size("ten megs")


def test_a_sparse_binary_file_is_refused_without_being_read(tmp_path):
    """A 2 GiB sparse .txt with no size limit: refused from its first 8 KiB (peak RSS stays small)."""
    path = tmp_path / "sparse.txt"
    with open(path, "wb") as fh:
        fh.truncate(2 << 30)
    code = (
        "import sys\n"
        "from ragkit.loaders import TextLoader\n"
        "from ragkit.errors import UnsupportedFileError\n"
        "try:\n"
        f"    TextLoader({str(path)!r}, max_file_size=0).load()\n"
        "except UnsupportedFileError as e:\n"
        "    print('refused:', e)\n"
    )
    run = run_python(["-c", code], env=env())
    assert run.returncode == 0 and "refused:" in run.stdout and "binary" in run.stdout, run.stderr
    assert run.peak_rss_kb < 300_000  # reading it whole took over 2 GiB
    with pytest.raises(Exception, match="over the file size limit"):
        TextLoader(path).load()  # the default limit refuses it before any read


def test_an_unreadable_folder_fails_and_keeps_its_earlier_chunks(tmp_path):
    docs = tmp_path / "docs"
    (docs / "locked").mkdir(parents=True)
    (docs / "locked" / "inner.txt").write_text("derailleur hanger alignment")
    (docs / "open.txt").write_text("tyre pressure")
    idx = tmp_path / "idx"
    first = run_python(
        ["-m", "ragkit", "index", str(docs), "--index", str(idx), "--embedding", "hash"],
        env=env(),
    )
    assert first.returncode == 0, first.stderr
    os.chmod(docs / "locked", 0)
    try:
        second = run_python(
            ["-m", "ragkit", "index", str(docs), "--index", str(idx), "--json"],
            env=env(),
            preexec_fn=drop_file_access_override,  # so that mode 000 denies root too
        )
    finally:
        os.chmod(docs / "locked", 0o755)
    assert second.returncode == 1 and "Traceback" not in second.stderr, second.stderr
    data = json.loads(second.stdout)
    assert [(os.path.basename(f["path"]), f["code"]) for f in data["failures"]] == [
        ("locked", "unreadable-folder")
    ]
    assert data["num_deleted"] == 0
    assert sorted(os.path.basename(s) for s in Index.open(idx).sources()) == [
        "inner.txt",
        "open.txt",
    ]


UNREADABLE = (
    "pdf docx pptx xlsx odt epub rtf eml mbox msg ipynb xml html md txt csv tsv json png zip"
).split()


def test_a_file_without_read_permission_says_permission_denied_in_every_loader(tmp_path):
    # mode 000: the content is never reached, so any bytes do; each loader must say why
    for ext in UNREADABLE:
        path = tmp_path / f"locked.{ext}"
        path.write_bytes(b"never read")
        os.chmod(path, 0)
    code = (
        "import json, sys\n"
        "from ragkit.loaders.directory import default_loader\n"
        "out = {}\n"
        "for ext in sys.argv[2:]:\n"
        "    path = f'{sys.argv[1]}/locked.{ext}'\n"
        "    try:\n"
        "        default_loader(path, sniff=False).load()\n"
        "        out[ext] = 'loaded'\n"
        "    except Exception as e:\n"
        "        out[ext] = f'{type(e).__name__}: {e}'\n"
        "print(json.dumps(out))\n"
    )
    try:
        run = run_python(
            ["-c", code, str(tmp_path), *UNREADABLE],
            env=env(),
            preexec_fn=drop_file_access_override,  # so that mode 000 denies root too
        )
    finally:
        for ext in UNREADABLE:
            os.chmod(tmp_path / f"locked.{ext}", 0o644)
    assert run.returncode == 0, run.stderr
    said = json.loads(run.stdout)
    # the words of the other loaders, not a guess that the file is damaged
    wrong = {
        ext: msg for ext, msg in said.items() if "cannot be read: Permission denied" not in msg
    }
    assert not wrong, wrong
    assert all(f"locked.{ext}" in said[ext] for ext in UNREADABLE), said
