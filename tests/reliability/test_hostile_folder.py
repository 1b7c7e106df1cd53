"""`ragkit index` on a generated hostile folder: one run, every entry accounted for, no traceback.

The folder (``hostile.py``) holds more than 250 entries: names that are not UTF-8 or hold
control characters, binary and sparse files named ``.txt``, a 3 MB single line, nesting too
deep for JSON, JSON escapes of lone surrogates, bad JSON Lines, damaged and encrypted PDFs,
unreadable files and folders, symlink loops and folder symlinks, FIFOs, sockets, empty files,
a CSV of 500,000 tiny rows, 131 files without a loader, hidden files. The command runs in a
child process that cannot bypass permission bits even as root (``privileges.py``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from ragkit.indexing.index_dir import Index
from ragkit.indexing.report import display_path
from tests.cli.helpers import env

from .hostile import Entry, build, restore_permissions
from .measure import Measured, run_python
from .privileges import drop_file_access_override

pytestmark = pytest.mark.integration


def run_index(*args: object) -> Measured:
    return run_python(
        ["-m", "ragkit", "index", *map(str, args)],
        env=env(),
        preexec_fn=drop_file_access_override,
    )


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("hostile")
    root = base / "folder"
    entries = build(root, base / "outside")
    yield root, entries, base
    restore_permissions(root)
    shutil.rmtree(base, ignore_errors=True)


def shown(root: Path, entry: Entry) -> str:
    return display_path(os.fsdecode(os.path.join(os.fsencode(root), entry.rel)))


@pytest.mark.slow
def test_every_entry_is_indexed_failed_or_ignored_in_one_run(hostile) -> None:
    root, entries, base = hostile
    assert len(entries) >= 200
    idx = base / "index"
    proc = run_index(root, "--index", idx, "--embedding", "hash", "--json")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr  # some files failed; the run still committed
    data = json.loads(proc.stdout)
    assert data["committed"] is True

    failed = {f["path"]: f for f in data["failures"] if not f.get("partial")}
    partly = {f["path"] for f in data["failures"] if f.get("partial")}
    ignored = {i["path"]: i for i in data["ignored"]}
    sources = set(Index.open(idx).sources())
    wrong = []
    for entry in entries:
        path = shown(root, entry)
        got = (
            "failed"
            if path in failed
            else "ignored"
            if path in ignored
            else "partial"
            if path in partly and path in sources
            else "indexed"
            if path in sources
            else "missing"
        )
        code = (failed.get(path) or ignored.get(path) or {}).get("code", "part-failed")
        if got != entry.expect or (entry.code and code != entry.code):
            wrong.append((path, entry.expect, entry.code, got, code))
    assert wrong == [], wrong

    # nothing else was reported, and the counts add up
    expected = {shown(root, e) for e in entries}
    assert set(failed) | partly | set(ignored) <= expected
    by_outcome = Counter(e.expect for e in entries)
    assert len(failed) == by_outcome["failed"] and len(ignored) == by_outcome["ignored"]
    indexed = {shown(root, e) for e in entries if e.expect in ("indexed", "partial")}
    assert indexed == sources
    assert data["files_loaded"] == by_outcome["indexed"] + by_outcome["partial"] + sum(
        1 for e in entries if e.code == "no-text"
    )
    # the 500,000-row CSV is packed into chunks, not one chunk per row
    assert data["chunks"] < 20_000
    # peak memory stays far below the folder's apparent size (1.2 GB of sparse files); before
    # the fix the sparse files and the CSV took 4 GB
    assert proc.peak_rss_kb < 1_000_000, f"peak RSS {proc.peak_rss_kb} KiB"


@pytest.mark.slow
def test_text_report_summarises_and_escapes(hostile) -> None:
    root, entries, base = hostile
    idx = base / "index-text"
    proc = run_index(root, "--index", idx, "--embedding", "hash")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    # no raw control characters reach the terminal: names are escaped
    assert not [ln for ln in lines if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in ln)]
    assert "\u202e" not in proc.stdout
    assert any("names/evil\\x1b[2J\\nname.json" in ln for ln in lines)
    assert any("badnames/caf\\xe9.txt" in ln for ln in lines)
    # 131 files without a loader are one line, by extension
    summary = [ln for ln in lines if "no loader" in ln]
    assert summary == [
        "    131 with no loader for their type: .mp3 100, .exe 21, (no extension) 10"
    ]
    assert not any("song001.mp3" in ln for ln in lines)
    # a rerun gives the same failures (nothing fails silently the second time)
    again = run_index(root, "--index", idx, "--embedding", "hash")
    assert again.returncode == 1

    def entries_of(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if ln.startswith("    ")]

    assert entries_of(again.stdout) == entries_of(proc.stdout) != []
