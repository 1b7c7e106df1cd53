"""Builds a hostile folder: every kind of bad input ``ragkit index`` must survive, with the outcome
each entry must get (``indexed``, ``failed`` or ``ignored``, and the report's ``code``).

Used by ``tests/reliability/test_hostile_folder.py`` and ``benchmarks/index_memory.py``.
Paths are bytes so that names which are not valid UTF-8 can be made.

Example:
    >>> # entries = build(Path("/tmp/hostile"), Path("/tmp/outside"))
    >>> # len(entries) >= 200
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import random
import socket
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.indexing.corpus import minimal_pdf

WORDS = (
    "brake chain saddle wheel spoke tyre valve pedal crank gear cable lever hub rim frame fork "
    "stem bar grip bell light pump sealant tubeless derailleur cassette bearing torque"
).split()


@dataclass(frozen=True)
class Entry:
    """One thing in the folder and the outcome it must get."""

    rel: bytes
    expect: str  # "indexed", "failed", "ignored" or "partial" (indexed, with a part failed)
    code: str = ""
    note: str = ""


def _text(seed: int, words: int = 60) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(words)) + f" marker{seed}."


class _Builder:
    def __init__(self, root: Path) -> None:
        self.root = os.fsencode(root)
        self.entries: list[Entry] = []

    def path(self, rel: bytes) -> bytes:
        return os.path.join(self.root, rel)

    def write(
        self, rel: bytes, data: bytes | str, expect: str, code: str = "", note: str = ""
    ) -> None:
        full = self.path(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        self.entries.append(Entry(rel, expect, code, note))

    def add(self, rel: bytes, expect: str, code: str = "", note: str = "") -> None:
        self.entries.append(Entry(rel, expect, code, note))


def build(root: Path, outside: Path, csv_rows: int = 500_000) -> list[Entry]:
    """Create the hostile folder at ``root`` (and a few targets at ``outside``); returns its entries.

    Unreadable entries are made with mode 000: they deny a normal user, and root only once
    CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH are dropped (see ``without_root_file_access``).
    """
    root.mkdir(parents=True)
    outside.mkdir(parents=True, exist_ok=True)
    b = _Builder(root)
    seed = 0

    def nxt() -> int:
        nonlocal seed
        seed += 1
        return seed

    # -- good files of every supported kind (indexed) ----------------------------------
    for i in range(30):
        b.write(f"good/text{i:02d}.txt".encode(), _text(nxt()), "indexed")
    for i in range(10):
        b.write(f"good/guide{i}.md".encode(), f"# Guide {i}\n\n{_text(nxt())}\n", "indexed")
    for i in range(5):
        body = f"<html><head><title>P{i}</title></head><body><p>{_text(nxt())}</p></body></html>"
        b.write(f"good/page{i}.html".encode(), body, "indexed")
    for i in range(5):
        b.write(f"good/data{i}.json".encode(), json.dumps({"text": _text(nxt())}), "indexed")
    for i in range(3):
        b.write(f"good/table{i}.csv".encode(), f"part,note\nchain,{_text(nxt(), 10)}\n", "indexed")
    for i in range(3):
        b.write(
            f"good/code{i}.py".encode(), f"def f{i}():\n    return '{_text(nxt(), 8)}'\n", "indexed"
        )
    b.write(
        b"good/lines.jsonl",
        "".join(json.dumps({"t": _text(nxt(), 8)}) + "\n" for _ in range(5)),
        "indexed",
    )
    b.write(
        b"good/manual.pdf",
        minimal_pdf(["Tubeless sealant is topped up every three months."]),
        "indexed",
    )
    b.write(b"good/utf16.txt", _text(nxt()).encode("utf-16"), "indexed")
    b.write(b"good/latin1.txt", ("caf\xe9 " + _text(nxt())).encode("latin-1"), "indexed")
    b.write("good/日本語の名前.txt".encode(), _text(nxt()), "indexed")
    b.write(b"good/" + b"n" * 240 + b".txt", _text(nxt()), "indexed", note="a 244-byte name")
    deep = b"/".join(b"d%02d" % i for i in range(40))
    b.write(b"deep/" + deep + b"/bottom.txt", _text(nxt()), "indexed", note="40 folders deep")
    b.write(
        b"huge-line.txt",
        " ".join(_text(nxt(), 20) for _ in range(20_000)),
        "indexed",
        note="3 MB, one line",
    )
    b.write(
        b"rows.csv",
        "n\n" + "".join(f"{i % 10}\n" for i in range(csv_rows)),
        "indexed",
        note="tiny rows",
    )
    for i in range(3):  # JSON escapes of lone surrogates
        b.write(
            f"surrogate{i}.json".encode(),
            '{"text": "broken \\ud800 text ' + str(i) + '"}',
            "indexed",
        )

    # -- names with control characters (indexed; printed escaped) ----------------------
    for name in (
        "new\nline.txt",
        "esc\x1b[31mred.txt",
        "tab\tname.md",
        "cr\rname.txt",
        "bell\x07.txt",
        "bidi\u202etxt.md",
        "back\\slash.txt",
    ):
        b.write(
            b"names/" + name.encode(),
            _text(nxt()),
            "indexed",
            note="control characters in the name",
        )

    b.write(b"names/evil\x1b[2J\nname.json", "{", "failed", "load-failed")
    b.write(b"names/ring\x07\rx.exe", b"MZ", "ignored", "no-loader")

    # -- names that are not valid UTF-8 (failed: bad-name) -----------------------------
    for raw in (b"caf\xe9.txt", b"\xff\xfe.md", b"bad\x80name.json", b"dir\xe9/inside.txt"):
        b.write(b"badnames/" + raw, _text(nxt()), "failed", "bad-name")

    # -- binary content under text extensions (failed) ---------------------------------
    rng = random.Random(7)
    for i in range(10):
        data = bytes(rng.randrange(256) for _ in range(4096)) + b"\x00" * 16
        b.write(f"binary/blob{i}.txt".encode(), data, "failed", "load-failed")
    b.write(b"binary/image.md", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "failed", "load-failed")

    # -- sparse files --------------------------------------------------------------------
    for rel, size, expect, code in (
        (b"sparse/huge.txt", 1 << 30, "failed", "too-large"),
        (b"sparse/big.json", 150 << 20, "failed", "too-large"),
        (b"sparse/medium.txt", 50 << 20, "failed", "load-failed"),  # under the limit: sniffed
    ):
        full = b.path(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.truncate(size)
        b.add(rel, expect, code, note="sparse")

    # -- JSON that cannot be read (failed), JSON Lines with bad lines (partial) ------------
    b.write(b"json/deep-array.json", "[" * 100_000 + "]" * 100_000, "failed", "load-failed")
    b.write(b"json/deep-object.json", '{"a":' * 5_000 + "1" + "}" * 5_000, "failed", "load-failed")
    b.write(b"json/big-int.json", "1" * 5_000, "failed", "load-failed")
    b.write(b"json/truncated.json", '{"text": "no end', "failed", "load-failed")
    for i in range(3):
        lines = [
            json.dumps({"t": _text(nxt(), 5)}),
            "not json {",
            "[" * 50_000,
            json.dumps({"t": "ok"}),
        ]
        b.write(f"json/mixed{i}.jsonl".encode(), "\n".join(lines) + "\n", "partial", "part-failed")

    # -- PDFs ----------------------------------------------------------------------------
    good_pdf = minimal_pdf(["Spoke tension is checked by plucking."])
    b.write(b"pdf/truncated.pdf", good_pdf[: len(good_pdf) // 2], "failed", "load-failed")
    b.write(b"pdf/garbage.pdf", b"%PDF-1.4 this file was cut in transit", "failed", "load-failed")
    b.write(
        b"pdf/no-pages.pdf",
        good_pdf.replace(b"/Kids [3 0 R] /Count 1", b"/Kids [] /Count 0"),
        "failed",
        "load-failed",
    )
    # a page whose stream says FlateDecode and holds bytes that do not inflate (PDFium reads an
    # uncompressed stream mislabelled FlateDecode, so the damage must be real)
    damaged = good_pdf.replace(b"<< /Length", b"<< /Filter /FlateDecode /Length").replace(
        b"BT /F1 12 Tf", b"x\x9c\x8b\x01\x02\xff"
    )
    b.write(b"pdf/damaged-page.pdf", _joined_pdf(good_pdf, damaged), "partial", "part-failed")
    b.write(b"pdf/encrypted.pdf", _encrypted_pdf(good_pdf), "failed", "load-failed")
    b.write(b"pdf/blank.pdf", _blank_pdf(), "ignored", "no-text")

    # -- CSV that cannot be read -------------------------------------------------------
    b.write(b"csv/huge-field.csv", 'a\n"' + "x" * 200_000 + '"\n', "failed", "load-failed")

    # -- empty and whitespace-only files -------------------------------------------------
    for ext in ("txt", "md", "json", "csv", "pdf"):
        b.write(f"empty/empty.{ext}".encode(), b"", "ignored", "empty")
    b.write(b"empty/spaces.txt", " \n\t\n" * 10, "ignored", "no-text")

    # -- no loader for the type (ignored, summarised by extension) ----------------------
    for i in range(100):
        b.write(f"media/song{i:03d}.mp3".encode(), b"ID3\x03\x00\x00", "ignored", "no-loader")
    for i in range(20):
        b.write(f"media/setup{i:02d}.exe".encode(), b"MZ\x90\x00", "ignored", "no-loader")
    for i in range(10):
        b.write(f"media/NOEXT{i}".encode(), b"data", "ignored", "no-loader")

    # -- a type with a loader, damaged (failed: the image and archive loaders say why) ---
    for i in range(5):
        b.write(f"media/photo{i}.png".encode(), b"\x89PNG\r\n\x1a\n", "failed", "load-failed")
        b.write(f"media/archive{i}.zip".encode(), b"PK\x03\x04", "failed", "load-failed")

    # -- hidden (ignored; not descended) -------------------------------------------------
    b.write(b".hidden.txt", "secret", "ignored", "hidden")
    os.makedirs(b.path(b".git/objects"))
    with open(b.path(b".git/objects/blob.txt"), "w") as fh:
        fh.write("not indexed")
    b.add(b".git", "ignored", "hidden")

    # -- symlinks --------------------------------------------------------------------------
    links = b.path(b"links")
    os.makedirs(links)
    os.symlink(b"loop-b", os.path.join(links, b"loop-a.txt"))
    os.symlink(b"loop-a.txt", os.path.join(links, b"loop-b"))
    os.symlink(b"self.txt", os.path.join(links, b"self.txt"))
    os.symlink(b"missing.txt", os.path.join(links, b"dangling.txt"))
    b.add(b"links/loop-a.txt", "ignored", "symlink-loop")
    b.add(b"links/loop-b", "ignored", "symlink-loop")
    b.add(b"links/self.txt", "ignored", "symlink-loop")
    b.add(b"links/dangling.txt", "ignored", "broken-symlink")
    (outside / "secret.txt").write_text("outside the root")
    (outside / "folder").mkdir(exist_ok=True)
    os.symlink(os.fsencode(outside / "secret.txt"), os.path.join(links, b"out.txt"))
    os.symlink(os.fsencode(outside / "folder"), os.path.join(links, b"out-folder"))
    b.add(b"links/out.txt", "ignored", "symlink-outside")
    b.add(b"links/out-folder", "ignored", "symlink-outside")
    os.symlink(b"../good", os.path.join(links, b"to-good"))
    os.symlink(b"..", os.path.join(links, b"to-parent"))
    b.add(b"links/to-good", "ignored", "symlink-folder")
    b.add(b"links/to-parent", "ignored", "symlink-folder")
    os.symlink(b"../good/text00.txt", os.path.join(links, b"alias.txt"))
    b.add(b"links/alias.txt", "indexed", note="a file symlink inside the root")

    # -- FIFOs and sockets (ignored: special) ------------------------------------------
    special = b.path(b"special")
    os.makedirs(special)
    for name in (b"pipe.txt", b"pipe.md", b"pipe"):
        os.mkfifo(os.path.join(special, name))
        b.add(b"special/" + name, "ignored", "special")
    here = os.getcwd()
    os.chdir(special)  # socket paths are limited to ~108 bytes: bind relative names
    try:
        for name in ("sock.txt", "sock"):
            s = socket.socket(socket.AF_UNIX)
            s.bind(name)
            s.close()
            b.add(b"special/" + name.encode(), "ignored", "special")
    finally:
        os.chdir(here)

    # -- unreadable files and folders (failed) -------------------------------------------
    for i in range(3):
        b.write(f"locked/secret{i}.txt".encode(), _text(nxt()), "failed", "load-failed")
        os.chmod(b.path(f"locked/secret{i}.txt".encode()), 0)
    b.write(b"closed/a.txt", _text(nxt()), "hidden-by-parent")
    b.write(b"closed/sub/b.txt", _text(nxt()), "hidden-by-parent")
    os.chmod(b.path(b"closed"), 0)
    b.add(b"closed", "failed", "unreadable-folder")
    b.write(b"listonly/c.txt", _text(nxt()), "failed", "cannot-stat")
    b.write(b"listonly/d.md", _text(nxt()), "failed", "cannot-stat")
    os.chmod(b.path(b"listonly"), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    return [e for e in b.entries if e.expect != "hidden-by-parent"]


@contextlib.contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """pypdf warns (on stderr) about the damaged PDFs this module makes on purpose."""
    log, quiet = logging.getLogger("pypdf"), logging.NullHandler()
    propagate = log.propagate
    log.propagate = False
    log.addHandler(quiet)  # else logging's last-resort handler prints them
    try:
        yield
    finally:
        log.removeHandler(quiet)
        log.propagate = propagate


def _encrypted_pdf(plain: bytes) -> bytes:
    from pypdf import PdfReader, PdfWriter

    with _quiet_pypdf():
        writer = PdfWriter(clone_from=PdfReader(io.BytesIO(plain)))
        writer.encrypt("a password nobody gave", algorithm="AES-256")
        out = io.BytesIO()
        writer.write(out)
    return out.getvalue()


def _joined_pdf(*parts: bytes) -> bytes:
    from pypdf import PdfReader, PdfWriter

    with _quiet_pypdf():
        writer = PdfWriter()
        for part in parts:
            for page in PdfReader(io.BytesIO(part)).pages:
                writer.add_page(page)
        out = io.BytesIO()
        writer.write(out)
    return out.getvalue()


def _blank_pdf() -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(72, 72)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def restore_permissions(root: Path) -> None:
    """Make everything under ``root`` removable again (for clean-up)."""
    for folder, dirs, _files in os.walk(root):
        for d in dirs:
            path = os.path.join(folder, d)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
    for folder, _dirs, files in os.walk(root):
        for f in files:
            path = os.path.join(folder, f)
            if not os.path.islink(path) and stat.S_ISREG(os.lstat(path).st_mode):
                os.chmod(path, 0o644)
