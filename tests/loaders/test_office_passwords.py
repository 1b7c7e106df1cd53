"""Password-protected Office files, encrypted by msoffcrypto-tool itself (ECMA-376 agile
encryption, as Office writes them): a clear per-file "password-protected" error without the
password, the text with it, and `ragkit index` going on past them (an encrypted PDF too)."""

from __future__ import annotations

import json
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
from msoffcrypto.format.ooxml import OOXMLFile

from ragkit.errors import EncryptedFileError, LoaderError
from ragkit.loaders import (
    DirectoryLoader,
    DocxLoader,
    ExcelLoader,
    OfficePasswordLoader,
    PowerPointLoader,
)
from ragkit.loaders.office_password import is_encrypted_office
from tests.cli.helpers import ragkit
from tests.loaders.conftest import write_pdf

PASSWORD = "Sädel-2024!"


def encrypt(plain: Path, secret: Path, password: str = PASSWORD) -> Path:
    with open(plain, "rb") as f, open(secret, "wb") as out:
        OOXMLFile(f).encrypt(password, out)
    return secret


def office_files(folder: Path) -> dict[str, tuple[Path, str]]:
    """Plain Word, Excel and PowerPoint files of known text, by extension, with that text."""
    folder.mkdir(exist_ok=True)
    d = docx.Document()
    d.add_heading("Payroll", 1)
    d.add_paragraph("The saddle budget is 4,200 euros.")
    d.save(str(folder / "plain.docx"))
    wb = openpyxl.Workbook()
    wb.active.title = "Salaries"
    wb.active.append(["name", "salary"])
    wb.active.append(["Ada", 5100])
    wb.save(folder / "plain.xlsx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Merger plans"
    slide.placeholders[1].text = "Acquire the tyre factory"
    deck.save(str(folder / "plain.pptx"))
    return {
        ".docx": (folder / "plain.docx", "The saddle budget is 4,200 euros."),
        ".xlsx": (folder / "plain.xlsx", "| Ada | 5100 |"),
        ".pptx": (folder / "plain.pptx", "Acquire the tyre factory"),
    }


LOADERS = {".docx": DocxLoader, ".xlsx": ExcelLoader, ".pptx": PowerPointLoader}


@pytest.mark.parametrize("ext", [".docx", ".xlsx", ".pptx"])
def test_encrypted_office_file_needs_its_password(
    tmp_path: Path, ext: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, text = office_files(tmp_path / "plain")[ext]
    secret = encrypt(plain, tmp_path / f"secret{ext}")
    assert is_encrypted_office(str(secret)) and not is_encrypted_office(str(plain))
    with pytest.raises(EncryptedFileError, match=rf"secret\{ext} is a password-protected") as info:
        LOADERS[ext](secret).load()
    assert "OfficePasswordLoader(path, password)" in str(info.value)

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr("tempfile.tempdir", None)  # the decrypted copy goes under TMPDIR
    docs = OfficePasswordLoader(secret, PASSWORD).load()
    assert text in "\n".join(d.page_content for d in docs)
    assert {d.metadata["source"] for d in docs} == {str(secret)}
    assert [d.page_content for d in docs] == [d.page_content for d in LOADERS[ext](plain).load()]
    assert list(scratch.iterdir()) == []  # the plain copy is gone once loaded

    with pytest.raises(EncryptedFileError, match=rf"secret\{ext}: the password does not open"):
        OfficePasswordLoader(secret, "wrong").load()
    assert list(scratch.iterdir()) == []


def test_a_plain_file_loads_as_it_is_and_the_inner_loader_can_be_chosen(tmp_path: Path) -> None:
    plain, _ = office_files(tmp_path)[".xlsx"]
    assert OfficePasswordLoader(plain, "unused").load()[0].metadata["sheet_name"] == "Salaries"
    secret = encrypt(plain, tmp_path / "pay.xlsm")
    [single] = OfficePasswordLoader(
        secret, PASSWORD, loader=lambda p, **kw: ExcelLoader(p, mode="single", **kw)
    ).load()
    assert single.metadata == {"source": str(secret)} and "| Ada | 5100 |" in single.page_content
    with pytest.raises(LoaderError, match=r"reads \.docx, .* not \.pdf"):
        OfficePasswordLoader(write_pdf(tmp_path / "a.pdf", ["x"]), PASSWORD).load()


def test_errors_after_decryption_name_the_original_file(tmp_path: Path) -> None:
    word, _ = office_files(tmp_path / "plain")[".docx"]
    secret = encrypt(word, tmp_path / "secret.xlsx")  # a Word package under an Excel name
    with pytest.raises(LoaderError) as info:
        OfficePasswordLoader(secret, PASSWORD).load()
    message = str(info.value)
    assert message.startswith(f"{secret} is not a readable Excel file"), message
    assert "ragkit-decrypted" not in message and info.value.path == str(secret)


def test_directory_loader_and_ragkit_index_go_on_past_encrypted_files(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for ext, (plain, _) in office_files(tmp_path / "plain").items():
        encrypt(plain, folder / f"secret{ext}")
    write_pdf(folder / "locked.pdf", ["Locked text"], password="pdf-pass")
    (folder / "open.md").write_text("# Open\n\nThe open note about chains.\n")

    loader = DirectoryLoader(folder, silent_errors=True)
    docs = loader.load()
    assert [Path(d.metadata["source"]).name for d in docs] == ["open.md"]
    reasons = {Path(f.path).name: f.reason for f in loader.errors}
    assert sorted(reasons) == ["locked.pdf", "secret.docx", "secret.pptx", "secret.xlsx"]
    for ext in (".docx", ".xlsx", ".pptx"):
        assert "is a password-protected (encrypted)" in reasons[f"secret{ext}"]
    assert "locked.pdf is encrypted; pass password=" in reasons["locked.pdf"]

    proc = ragkit("index", folder, "--index", tmp_path / "idx", "--embedding", "hash", "--json")
    assert proc.returncode == 1, proc.stderr  # some files failed, the rest is indexed
    data = json.loads(proc.stdout)
    failures = {Path(f["path"]).name: f for f in data["failures"]}
    assert sorted(failures) == ["locked.pdf", "secret.docx", "secret.pptx", "secret.xlsx"]
    assert all("password-protected" in failures[f"secret{e}"]["error"] for e in LOADERS)
    assert "Traceback" not in proc.stderr
    assert data["num_added"] >= 1 and data["files_loaded"] == 1
