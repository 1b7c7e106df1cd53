"""RAGKIT_OCR=never: OCR off for the whole process, each image and scanned page given a reason.

No OCR model may run with the switch off: ``OcrEngine._engine`` is replaced by one that
raises, so a page read by OCR anyway would show up as an "OCR failed" reason (and the
assertions on the exact reasons fail).
"""

from __future__ import annotations

import tarfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from ragkit._cli.index_flags import IndexFlags
from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders import DirectoryLoader, EmailLoader, ImageLoader, PDFLoader, ReadOptions
from ragkit.loaders.ocr import OCR_OFF, OCR_VARIABLE, OcrEngine, ocr_switched_off
from tests.loaders.conftest import text_image
from tests.loaders.mixed_folder import is_reason
from tests.loaders.test_ocr import CHAIN, TYRES, mixed_pdf


@pytest.fixture
def ocr_off(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_model(self: OcrEngine) -> None:
        raise AssertionError("an OCR model was used with RAGKIT_OCR=never")

    monkeypatch.setattr(OcrEngine, "_engine", no_model)
    monkeypatch.setenv(OCR_VARIABLE, "never")


def scanned_reasons(pages: tuple[int, ...]) -> list[str]:
    return [f"page {i} has no text layer (a scan?); not read: {OCR_OFF}" for i in pages]


def test_the_variable_is_read_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(OCR_VARIABLE, raising=False)
    assert ocr_switched_off() is False
    monkeypatch.setenv(OCR_VARIABLE, "NEVER")
    assert ocr_switched_off() is True
    monkeypatch.setenv(OCR_VARIABLE, "auto")
    assert ocr_switched_off() is False
    monkeypatch.setenv(OCR_VARIABLE, "sometimes")
    with pytest.raises(ConfigurationError, match="RAGKIT_OCR='sometimes'.*'never'"):
        ocr_switched_off()


def test_scanned_pdf_pages_get_a_reason_not_ocr(tmp_path: Path, ocr_off: None) -> None:
    path = mixed_pdf(tmp_path)
    for ocr in ("auto", "always"):  # the switch wins over the loader's own setting
        loader = PDFLoader(path, ocr=ocr)  # type: ignore[arg-type]
        assert [d.page_content for d in loader.load()] == ["Typed page about saddles", "", ""]
        assert [e.reason for e in loader.errors] == scanned_reasons((1, 2))
        assert all(is_reason(e.reason) for e in loader.errors)


def test_an_image_is_refused_with_the_reason(tmp_path: Path, ocr_off: None) -> None:
    image = tmp_path / "tyres.png"
    text_image(TYRES).save(image)
    with pytest.raises(LoaderError, match=r"tyres\.png is an image: .*OCR is off"):
        ImageLoader(image).load()


def test_a_folder_with_images_inside_mail_and_archives(tmp_path: Path, ocr_off: None) -> None:
    text_image(CHAIN).save(tmp_path / "chain.png")
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@example.com", "b@example.com", "scan"
    msg.set_content("The scan is attached.")
    msg.add_attachment(
        (tmp_path / "chain.png").read_bytes(), maintype="image", subtype="png", filename="c.png"
    )
    (tmp_path / "mail.eml").write_bytes(msg.as_bytes())
    with tarfile.open(tmp_path / "scans.tar", "w") as tar:
        tar.add(tmp_path / "chain.png", arcname="inner.png")
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    docs = loader.load()
    [text] = [d.page_content.strip() for d in docs if d.page_content.strip()]
    assert text.startswith("Subject: scan") and text.endswith("The scan is attached.")
    reasons = [e.reason for e in loader.errors]
    assert len(reasons) == 3, reasons
    for name in ("chain.png", "c.png", "inner.png"):
        [reason] = [r for r in reasons if name in r]
        assert "OCR is off (RAGKIT_OCR=never" in reason and is_reason(reason), reason
    mail = EmailLoader(tmp_path / "mail.eml")
    assert len(mail.load()) == 1 and "OCR is off" in mail.errors[0].reason


def test_read_options_turn_ocr_off_for_a_run(tmp_path: Path) -> None:
    path = mixed_pdf(tmp_path)
    options = ReadOptions(ocr="never")
    pdf = options.apply(PDFLoader(path))
    assert isinstance(pdf, PDFLoader) and pdf.ocr == "never"
    assert [d.page_content for d in pdf.load()][1:] == ["", ""]
    image = options.apply(ImageLoader(tmp_path / "x.png"))
    assert isinstance(image, ImageLoader) and image.ocr == "never"
    with pytest.raises(LoaderError, match="ocr='never'"):
        (tmp_path / "x.png").write_bytes(b"")
        image.load()
    assert ReadOptions(ocr="auto").apply(PDFLoader(path)).ocr == "auto"  # type: ignore[attr-defined]
    with pytest.raises(ConfigurationError, match="ReadOptions ocr must be"):
        ReadOptions(ocr="off")  # type: ignore[arg-type]
    assert "ocr='never'" in repr(options)


def test_ragkit_index_ocr_flag_makes_the_read_options() -> None:
    reading = IndexFlags(ocr="never").reading()
    assert reading is not None and reading.ocr == "never"
    assert IndexFlags(ocr="auto").reading() is None
    assert IndexFlags().reading() is None
