"""ReadOptions applied to the loaders the registry picks, and through Index.add(reading=...)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit import Index
from ragkit.errors import ConfigurationError
from ragkit.loaders import ImageLoader, OfficePasswordLoader, PDFLoader, ReadOptions
from ragkit.loaders.directory import default_loader
from tests.loaders.conftest import write_pdf
from tests.loaders.test_office_passwords import PASSWORD, encrypt, office_files


def test_apply_sets_the_password_and_bounds_of_the_chosen_loader(tmp_path: Path) -> None:
    options = ReadOptions(PASSWORD, max_ocr_pages=3, ocr_time_limit=5.0, max_pixels=10_000)
    pdf = options.apply(default_loader(str(write_pdf(tmp_path / "a.pdf", ["x"]))))
    assert isinstance(pdf, PDFLoader) and pdf.password == PASSWORD
    assert (pdf.ocr_bounds.max_pages, pdf.ocr_bounds.time_limit, pdf.ocr_bounds.dpi) == (
        3,
        5.0,
        200,
    )
    (tmp_path / "b.png").write_bytes(b"")
    image = options.apply(default_loader(str(tmp_path / "b.png"), sniff=False))
    assert isinstance(image, ImageLoader) and (image.max_pixels, image.max_pages) == (10_000, 3)

    plain, _ = office_files(tmp_path / "plain")[".docx"]
    secret = encrypt(plain, tmp_path / "secret.docx")
    assert isinstance(options.apply(default_loader(str(secret))), OfficePasswordLoader)
    assert not isinstance(options.apply(default_loader(str(plain))), OfficePasswordLoader)
    assert not isinstance(ReadOptions().apply(default_loader(str(secret))), OfficePasswordLoader)
    untouched = ReadOptions().apply(default_loader(str(tmp_path / "a.pdf")))
    assert isinstance(untouched, PDFLoader) and untouched.ocr_bounds.max_pages == 100


@pytest.mark.parametrize(
    "kwargs", [{"max_ocr_pages": 0}, {"ocr_time_limit": 0.0}, {"max_pixels": -1}]
)
def test_bad_bounds_are_configuration_errors(kwargs: dict) -> None:
    with pytest.raises(ConfigurationError):
        ReadOptions(**kwargs)


def test_index_add_reads_encrypted_files_with_the_password(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    plain, _ = office_files(tmp_path / "plain")[".xlsx"]
    encrypt(plain, folder / "pay.xlsx")
    idx = Index.create(tmp_path / "idx", embeddings="hash")
    report = idx.add([folder])
    assert report.files_loaded == 0 and "password-protected" in report.failures[0]["error"]
    report = idx.add([folder], reading=ReadOptions(password=PASSWORD))
    assert report.ok and report.files_loaded == 1
    [hit] = idx.retriever("bm25", k=1).invoke("Ada salary")
    assert hit.metadata["source"].endswith("pay.xlsx") and "| Ada | 5100 |" in hit.page_content


def test_attachments_off_reaches_every_mail_loader_and_nothing_else(tmp_path: Path) -> None:
    from email.message import EmailMessage

    from ragkit.loaders import EmailLoader, MboxLoader, OutlookMessageLoader, TextLoader

    msg = EmailMessage()
    msg["Subject"] = "Wheels"
    msg.set_content("Truing notes.")
    msg.add_attachment(b"spoke,tension\n1,110\n", maintype="text", subtype="csv", filename="t.csv")
    eml = tmp_path / "wheels.eml"
    eml.write_bytes(bytes(msg))
    off = ReadOptions(attachments=False)
    for cls in (EmailLoader, MboxLoader, OutlookMessageLoader):
        assert off.apply(cls(tmp_path / "x")).process_attachments is False
        assert ReadOptions().apply(cls(tmp_path / "x")).process_attachments is True
        assert ReadOptions(attachments=True).apply(cls(tmp_path / "x")).process_attachments
    text = TextLoader(tmp_path / "note.txt")
    assert off.apply(text) is text
    [doc] = off.apply(EmailLoader(eml)).load()
    assert doc.metadata["attachments"] == ["t.csv"]
    assert len(ReadOptions().apply(EmailLoader(eml)).load()) == 2
    assert "attachments=False" in repr(off)
