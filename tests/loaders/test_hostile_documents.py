"""Hostile files: zip bombs, entity expansion, external entities, encrypted and corrupted files.

Each is a clear per-file LoaderError naming the file; in a folder the other files still load.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from ragkit.errors import EncryptedFileError, LoaderError
from ragkit.loaders import (
    DirectoryLoader,
    DocxLoader,
    EPubLoader,
    ExcelLoader,
    OpenDocumentLoader,
    PowerPointLoader,
    XMLLoader,
)
from ragkit.loaders._zip_guard import ZipLimits, check_zip
from ragkit.loaders.epub import write_minimal_epub
from tests.loaders.office_corpus import write_docx, write_odf, write_pptx, write_xlsx

LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n'
)
XXE = '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'


def _replace_member(src: Path, dst: Path, member: str, transform) -> Path:  # type: ignore[no-untyped-def]
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            zout.writestr(info.filename, transform(data) if info.filename == member else data)
    return dst


def _with_doctype(doctype: str, ref: str):  # type: ignore[no-untyped-def]
    def transform(data: bytes) -> bytes:
        text = data.decode("utf-8")
        body = text.split("?>", 1)[1] if text.startswith("<?xml") else text
        body = body.replace("<w:t>Ship", f"<w:t>{ref}Ship", 1) if ref else body
        return (doctype + body.lstrip()).encode("utf-8")

    return transform


CASES = {
    "docx": (write_docx, "word/document.xml", DocxLoader),
    "pptx": (write_pptx, "ppt/slides/slide1.xml", PowerPointLoader),
    "xlsx": (write_xlsx, "xl/worksheets/sheet1.xml", ExcelLoader),
}


@pytest.mark.parametrize("kind", sorted(CASES))
@pytest.mark.parametrize("doctype", [LAUGHS, XXE], ids=["billion-laughs", "external-entity"])
def test_entity_declarations_are_refused(tmp_path: Path, kind: str, doctype: str) -> None:
    write, member, loader = CASES[kind]
    good = write(tmp_path / f"good.{kind}")
    bad = _replace_member(good, tmp_path / f"bad.{kind}", member, _with_doctype(doctype, ""))
    with pytest.raises(LoaderError, match=rf"bad.{kind}: {member} declares XML entities"):
        loader(bad).load()


def test_entities_refused_in_opendocument_epub_and_xml(tmp_path: Path) -> None:
    odt, _, _ = write_odf(tmp_path)
    bad = _replace_member(odt, tmp_path / "bad.odt", "content.xml", _with_doctype(LAUGHS, ""))
    with pytest.raises(LoaderError, match="bad.odt: content.xml declares XML entities"):
        OpenDocumentLoader(bad).load()
    book = Path(write_minimal_epub(str(tmp_path / "b.epub"), "T", "A", ["<p>x</p>"]))
    bad_book = _replace_member(
        book, tmp_path / "bad.epub", "OEBPS/text/c0.xhtml", _with_doctype(XXE, "")
    )
    with pytest.raises(LoaderError, match="bad.epub: OEBPS/text/c0.xhtml declares XML entities"):
        EPubLoader(bad_book).load()
    xml = tmp_path / "lol.xml"
    xml.write_text(LAUGHS + "<lolz>&lol3;</lolz>")
    with pytest.raises(LoaderError, match="lol.xml declares XML entities"):
        XMLLoader(xml).load()
    xxe = tmp_path / "xxe.xml"
    xxe.write_text(XXE + "<r>&x;</r>")
    with pytest.raises(LoaderError, match="xxe.xml declares XML entities"):
        XMLLoader(xxe).load()


def test_public_doctype_without_entities_is_allowed(tmp_path: Path) -> None:
    book = Path(write_minimal_epub(str(tmp_path / "b.epub"), "T", "A", ["<p>kept</p>"]))
    doctype = (
        '<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" '
        '"http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">\n'
    )
    ok = _replace_member(
        book, tmp_path / "ok.epub", "OEBPS/text/c0.xhtml", _with_doctype(doctype, "")
    )
    assert EPubLoader(ok).load()[0].page_content == "kept"


def _bomb(path: Path, member: str, size: int) -> Path:
    good = write_docx(path.with_name("base.docx"))
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info))
        zout.writestr(member, b"\0" * size)
    return path


def test_zip_bomb_by_ratio(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "ratio.docx", "word/media/zeros.bin", 20 << 20)
    with pytest.raises(
        LoaderError, match=r"ratio.docx: member 'word/media/zeros.bin' expands .* times"
    ):
        DocxLoader(bomb).load()


def test_zip_bomb_by_total_size(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "size.docx", "word/media/zeros.bin", 20 << 20)
    with pytest.raises(LoaderError, match=r"size.docx expands to more than 10 MiB"):
        DocxLoader(bomb, zip_limits=ZipLimits(max_total_size=10 << 20, max_ratio=None)).load()
    assert (
        DocxLoader(bomb, zip_limits=ZipLimits(max_ratio=None))
        .load()[0]
        .page_content.startswith("# Overview")
    )


def test_zip_member_count_bound(tmp_path: Path) -> None:
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w") as z:
        for i in range(30):
            z.writestr(f"f{i}.txt", "x")
    with pytest.raises(LoaderError, match="many.zip holds 30 members, over the bound of 20"):
        check_zip(path, ZipLimits(max_members=20))
    assert len(check_zip(path)) == 30


def _ole_with(path: Path, stream_name: str) -> Path:
    """An OLE compound file header and a directory entry naming ``stream_name`` (UTF-16LE)."""
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504
    entry = stream_name.encode("utf-16-le").ljust(64, b"\0")
    path.write_bytes(header + entry + b"\0" * 448)
    return path


def test_encrypted_ooxml_says_so(tmp_path: Path) -> None:
    for name, loader in (
        ("secret.docx", DocxLoader),
        ("secret.xlsx", ExcelLoader),
        ("secret.pptx", PowerPointLoader),
    ):
        path = _ole_with(tmp_path / name, "EncryptedPackage")
        with pytest.raises(EncryptedFileError, match=f"{name} is a password-protected"):
            loader(path).load()
    legacy = _ole_with(tmp_path / "old.docx", "WordDocument")
    with pytest.raises(LoaderError, match="old.docx is a legacy binary"):
        DocxLoader(legacy).load()


def test_corrupted_files_name_the_file(tmp_path: Path) -> None:
    good = write_docx(tmp_path / "good.docx")
    cut = tmp_path / "cut.docx"
    cut.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    with pytest.raises(LoaderError, match="cut.docx is not a readable Word file"):
        DocxLoader(cut).load()
    noise = tmp_path / "noise.xlsx"
    noise.write_bytes(os.urandom(2000))
    with pytest.raises(LoaderError, match="noise.xlsx is not a readable Excel file"):
        ExcelLoader(noise).load()
    empty_zip = tmp_path / "empty.pptx"
    with zipfile.ZipFile(empty_zip, "w") as z:
        z.writestr("hello.txt", "no parts")
    with pytest.raises(LoaderError, match="empty.pptx is not a readable PowerPoint file"):
        PowerPointLoader(empty_zip).load()


def test_macro_files_load_text_only(tmp_path: Path) -> None:
    """A .xlsm with a vbaProject part: its cells load, the macro part is never read or run."""
    good = write_xlsx(tmp_path / "book.xlsx")
    xlsm = tmp_path / "macro.xlsm"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(xlsm, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info))
        zout.writestr(
            "xl/vbaProject.bin", b"\xd0\xcf\x11\xe0" + b'Sub AutoOpen() Shell("rm -rf /")'
        )
    docs = ExcelLoader(xlsm).load()
    assert [d.metadata["sheet_name"] for d in docs] == ["Parts", "Staff"]
    assert all("Shell" not in d.page_content for d in docs)


def test_directory_loader_keeps_going_past_hostile_files(tmp_path: Path) -> None:
    write_docx(tmp_path / "fine.docx")
    _bomb(tmp_path / "bomb.docx", "word/media/zeros.bin", 20 << 20)
    (tmp_path / "base.docx").unlink()
    _ole_with(tmp_path / "secret.xlsx", "EncryptedPackage")
    (tmp_path / "lol.xml").write_text(LAUGHS + "<lolz>&lol3;</lolz>")
    (tmp_path / "broken.pptx").write_bytes(b"PK\x03\x04 not really")
    (tmp_path / "note.txt").write_text("still here")
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    docs = loader.load()
    assert sorted(os.path.basename(d.metadata["source"]) for d in docs) == ["fine.docx", "note.txt"]
    failed = sorted(os.path.basename(f.path) for f in loader.errors)
    assert failed == ["bomb.docx", "broken.pptx", "lol.xml", "secret.xlsx"]
    assert all(os.path.basename(f.path) in f.reason for f in loader.errors)
