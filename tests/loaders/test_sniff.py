"""Type from content: files of every sniffed type under a wrong name or no name, written by their libraries."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from ragkit.loaders import DirectoryLoader, sniff_type
from ragkit.loaders.directory import default_loader
from ragkit.loaders.sniff import HEAD_BYTES, loading_extension, sniff_bytes
from tests.loaders.cfb_writer import write_cfb, write_msg
from tests.loaders.conftest import write_pdf

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8"
    "cfc0f01f0005000201f6a2bd7c0000000049454e44ae426082"
)


def zip_with(path: Path, members: dict[str, bytes], stored_first: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        if stored_first:
            z.writestr(stored_first, members.pop(stored_first), compress_type=zipfile.ZIP_STORED)
        for name, data in members.items():
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return path


def bmp() -> bytes:
    pixels = b"\x00\x00\xff\x00"  # one 24-bit pixel, padded to 4 bytes
    header = (
        b"BM" + (54 + len(pixels)).to_bytes(4, "little") + b"\x00" * 4 + (54).to_bytes(4, "little")
    )
    info = (40).to_bytes(4, "little") + (1).to_bytes(4, "little") * 2 + (1).to_bytes(2, "little")
    info += (24).to_bytes(2, "little") + b"\x00" * 24
    return header + info + pixels


def tar_bytes() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as t:
        info = tarfile.TarInfo("a.txt")
        info.size = 2
        t.addfile(info, io.BytesIO(b"hi"))
    return buffer.getvalue()


def eml_bytes() -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@example.com", "b@example.com", "Spokes"
    msg.set_content("Tension the spokes evenly.")
    return msg.as_bytes()


def make(tmp_path: Path, kind: str, name: str) -> Path:
    path = tmp_path / name
    if kind == ".pdf":
        return write_pdf(path, ["hello pdf"])
    if kind in (".docx", ".pptx", ".xlsx"):
        top = {".docx": "word", ".pptx": "ppt", ".xlsx": "xl"}[kind]
        return zip_with(path, {"[Content_Types].xml": b"<Types/>", f"{top}/document.xml": b"<x/>"})
    if kind in (".odt", ".epub"):
        mime = {
            ".odt": b"application/vnd.oasis.opendocument.text",
            ".epub": b"application/epub+zip",
        }
        return zip_with(path, {"mimetype": mime[kind], "content.xml": b"<x/>"}, "mimetype")
    if kind == ".zip":
        return zip_with(path, {"a.txt": b"alpha"})
    if kind == ".msg":
        return write_msg(path, {0x0037: "s", 0x1000: "b"})
    if kind in (".doc", ".xls", ".ppt"):
        stream = {".doc": "WordDocument", ".xls": "Workbook", ".ppt": "PowerPoint Document"}[kind]
        return write_cfb(path, {stream: b"\x00" * 100})
    data = {
        ".png": PNG,
        ".jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
        ".gif": b"GIF89a\x01\x00\x01\x00\x00\x00\x00;",
        ".tiff": b"II*\x00\x08\x00\x00\x00",
        ".bmp": bmp(),
        ".webp": b"RIFF\x1a\x00\x00\x00WEBPVP8 ",
        ".gz": gzip.compress(b"zipped text"),
        ".tar": tar_bytes(),
        ".eml": eml_bytes(),
        ".mbox": b"From a@example.com Tue Mar  3 10:00:00 2026\n" + eml_bytes(),
        ".html": b"<!DOCTYPE html>\n<html><body><p>page</p></body></html>",
        ".json": json.dumps({"spokes": 32}).encode(),
        ".rtf": b"{\\rtf1\\ansi hello}",
    }[kind]
    path.write_bytes(data)
    return path


KINDS = ".pdf .png .jpg .gif .tiff .bmp .webp .docx .pptx .xlsx .odt .epub .zip .msg .doc .xls .ppt .gz .tar .eml .mbox .html .json .rtf".split()


@pytest.mark.parametrize("kind", KINDS)
def test_every_type_is_sniffed_under_a_wrong_name(tmp_path: Path, kind: str) -> None:
    path = make(tmp_path, kind, "mystery.dat")
    assert sniff_type(path) == kind
    assert sniff_type(make(tmp_path, kind, "noname")) == kind


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        (".pptx", "deck.ppt", ".pptx"),  # a .ppt that is really a .pptx
        (".docx", "letter.doc", ".docx"),
        (".xlsx", "sheet.xls", ".xlsx"),
        (".rtf", "letter.doc", ".rtf"),
        (".pdf", "report.txt", ".pdf"),
        (".html", "page.txt", ".html"),
        (".zip", "bundle.docx", ".docx"),  # inside the zip family the name is trusted
        (".xlsx", "deck.pptx", ".pptx"),
        (".eml", "mail.txt", ".txt"),  # text is not re-read as e-mail by content
        (".json", "data.txt", ".txt"),
        (".eml", "maildir-entry", ".eml"),  # no extension: the content decides
        (".json", "config", ".json"),
        (".html", "notes.md", ".md"),
        (".gz", "notes.txt.gz", ".gz"),
        (".gz", "a.tar.gz", ".tar.gz"),
        (".tar", "a.tar.gz", ".tar"),  # not compressed after all: still an archive
        (".png", "photo.jpg", ".jpg"),
        (".pdf", "scan.png", ".pdf"),
    ],
)
def test_loading_extension_rule(tmp_path: Path, kind: str, name: str, expected: str) -> None:
    assert loading_extension(make(tmp_path, kind, name)) == expected


def test_plain_text_and_short_files_are_not_sniffed_as_anything() -> None:
    for head in (
        b"",
        b"hello",
        b"[core]\nname = x\n",
        b"BMW is a car",
        b"Subject only\n",
        b"From x\nhi",
    ):
        assert sniff_bytes(head) is None, head
    assert HEAD_BYTES <= 8192


def test_directory_loader_loads_mislabelled_files_by_content(tmp_path: Path) -> None:
    make(tmp_path, ".pdf", "report.txt")
    make(tmp_path, ".html", "page.txt")
    make(tmp_path, ".eml", "maildir-entry")
    make(tmp_path, ".zip", "bundle")
    make(tmp_path, ".gz", "squeezed.txt")
    (tmp_path / "plain.txt").write_text("just text")
    loader = DirectoryLoader(tmp_path)
    docs = {Path(d.metadata["source"]).name: d for d in loader.load()}
    assert loader.errors == []
    assert docs["report.txt"].page_content.strip() == "hello pdf"
    assert docs["report.txt"].metadata["page"] == 0
    assert docs["page.txt"].page_content == "page"
    assert docs["maildir-entry"].metadata["subject"] == "Spokes"
    assert docs["a.txt"].metadata["archive"].endswith("bundle")
    assert docs["squeezed.txt"].page_content == "zipped text"
    assert docs["plain.txt"].page_content == "just text"
    assert type(default_loader(str(tmp_path / "report.txt"))).__name__ == "PyPDFium2Loader"
    assert type(default_loader(str(tmp_path / "report.txt"), sniff=False)).__name__ == "TextLoader"
