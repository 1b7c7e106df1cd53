"""``ragkit inspect`` and ``ragkit index --dry-run``: per format, what would be loaded and what
not and why, on files written by the format libraries, and nothing written (the index folder is
not created, an existing one is left byte for byte)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
from PIL import Image

from ragkit.indexing.inventory import inventory
from ragkit.loaders import registry
from ragkit.loaders.text import TextLoader
from tests.loaders.conftest import write_pdf

from .helpers import ragkit


def write_folder(root: Path) -> Path:
    """Two Word files, a workbook, a deck saved as .ppt (content says .pptx), two PDFs, an
    image, an mp3, an empty note, a hidden file and a large log."""
    root.mkdir()
    for name in ("memo.docx", "plan.docx"):
        d = docx.Document()
        d.add_heading("Brakes", 1)
        d.add_paragraph("Check the pads every month.")
        d.save(str(root / name))
    wb = openpyxl.Workbook()
    wb.active.append(["part", "price"])
    wb.active.append(["chain", 30])
    wb.save(root / "parts.xlsx")
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = "Tyres"
    deck.save(str(root / "talk.ppt"))  # a .pptx under a legacy name: sniffed
    write_pdf(root / "manual.pdf", ["Brake manual"])
    (root / "sub").mkdir()
    write_pdf(root / "sub" / "guide.pdf", ["Chain guide"])
    Image.new("RGB", (40, 20), "white").save(root / "photo.png")
    (root / "song.mp3").write_bytes(b"ID3\x03\x00\x00\x00" + bytes(200))
    (root / "empty.txt").write_text("")
    (root / ".env").write_text("SECRET=1")
    (root / "big.log").write_text("x" * 1_100_000)
    return root


def tree_digest(path: Path) -> dict[str, str]:
    """Every file under ``path`` with its content's hash (and its mtime)."""
    out = {}
    for folder, _dirs, names in os.walk(path):
        for name in names:
            p = Path(folder) / name
            out[str(p.relative_to(path))] = (
                hashlib.sha256(p.read_bytes()).hexdigest() + f"@{p.stat().st_mtime_ns}"
            )
    return out


def by_type(data: dict) -> dict[str, tuple]:
    return {f["type"]: (f["loader"], f["load"], f["not_loaded"]) for f in data["formats"]}


def test_dry_run_lists_per_format_and_creates_no_index(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs")
    index = tmp_path / "idx"
    before = tree_digest(folder)
    proc = ragkit(
        "index", folder, "--index", index, "--dry-run", "--json", "--max-file-size", "1M",
        check_json=True,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # big.log would fail, as `ragkit index` would
    data = proc.data  # type: ignore[attr-defined]
    assert not index.exists()  # nothing written, not even the folder
    assert tree_digest(folder) == before
    assert data["dry_run"] is True and data["files_seen"] == 11 and data["would_load"] == 7
    types = by_type(data)
    assert types[".docx"] == ("Word", 2, {})
    assert types[".xlsx"] == ("Excel", 1, {})
    assert types[".pptx"] == ("PowerPoint", 1, {})  # talk.ppt, by its content
    assert types[".pdf"] == ("PDF", 2, {})
    assert types[".png"] == ("image (OCR)", 1, {})
    assert types[".mp3"] == (None, 0, {"no-loader": 1})
    assert types[".txt"] == ("text", 0, {"empty": 1})
    assert types[".log"][1:] == (0, {"too-large": 1})
    assert types["(no extension)"] == (None, 0, {"hidden": 1})  # .env
    reasons = {Path(s["path"]).name: (s["status"], s["code"]) for s in data["not_loaded"]}
    assert reasons == {
        "song.mp3": ("ignored", "no-loader"),
        "empty.txt": ("ignored", "empty"),
        "big.log": ("failed", "too-large"),
        ".env": ("ignored", "hidden"),
    }
    big = next(s for s in data["not_loaded"] if s["code"] == "too-large")
    assert "over the file size limit of 1 MiB" in big["reason"]


def test_dry_run_leaves_an_existing_index_untouched_and_uses_its_defaults(
    tmp_path: Path,
) -> None:
    folder = write_folder(tmp_path / "docs")
    index = tmp_path / "idx"
    built = ragkit("index", folder / "manual.pdf", "--index", index, "--embedding", "hash", "-q")
    assert built.returncode == 0, built.stderr
    (index / "ragkit.toml").write_text(
        (index / "ragkit.toml").read_text() + '\n[defaults]\nexclude = ["*.pdf"]\n'
    )
    before = tree_digest(index)
    proc = ragkit("index", folder, "--index", index, "--dry-run", "--json", check_json=True)
    assert proc.returncode == 0, proc.stderr
    assert tree_digest(index) == before
    types = by_type(proc.data)  # type: ignore[attr-defined]
    assert ".pdf" not in types  # the index's [defaults] exclude applies, as in a real run
    assert types[".log"] == ("text", 1, {})


def test_inspect_text_output_names_loaders_extras_and_reasons(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs")
    proc = ragkit("inspect", folder, "--exclude", "*.log")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith(f"Would load 7 of 10 files under {folder} (dry run")
    table = out.split("Not loaded:")[0].splitlines()[2:]
    rows = {line.split()[0]: line for line in table}
    assert rows[".docx"].split()[1:4] == ["Word", "[documents]", "2"]
    assert rows[".mp3"].split()[1:] == ["-", "0", "1", "no-loader"]
    assert f".mp3 (no-loader): {folder / 'song.mp3'}: no loader for this file type" in out
    assert ".log" not in out


def test_dry_run_with_a_postgresql_url_connects_to_nothing(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs")
    url = "postgresql://nobody@127.0.0.1:9/nowhere?collection=manuals"  # port 9: nothing there
    proc = ragkit("index", folder, "--index", url, "--dry-run", "--json", check_json=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.data["would_load"] == 8  # type: ignore[attr-defined]


def test_inspect_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    proc = ragkit("inspect", tmp_path / "nowhere")
    assert proc.returncode == 2 and "no such file or folder" in proc.stderr


def test_a_type_whose_extra_is_missing_is_counted_with_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "_TABLE", dict(registry._TABLE))  # restored after the test
    registry.register_loader(
        ".note",
        lambda p, max_file_size=None: TextLoader(p),
        name="notes",
        extra="notes",
        modules=("ragkit_test_module_that_is_not_installed",),
    )
    (tmp_path / "a.note").write_text("hello")
    shutil.copy(tmp_path / "a.note", tmp_path / "b.note")
    inv = inventory([tmp_path])
    [counts] = inv.formats
    assert (counts.type, counts.loader, counts.extra, counts.load) == (".note", "notes", "notes", 0)
    assert counts.not_loaded == {"needs-extra": 2}
    assert {s.reason for s in inv.skipped} == {
        "notes files need ragkit_test_module_that_is_not_installed: install ragkit[notes] "
        "(pip install 'ragkit[notes]')"
    }
