"""`ragkit index` with the document-reading options, through the real command on real files:
a password for encrypted Word/Excel/PowerPoint files (encrypted by msoffcrypto-tool) and PDFs
(encrypted by pypdf), read from --password-file or RAGKIT_DOCUMENT_PASSWORD and never shown;
the OCR bounds --max-ocr-pages, --ocr-time-limit and --max-image-pixels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from ragkit.loaders import ReadOptions
from tests.cli.helpers import ragkit
from tests.loaders.conftest import write_pdf, write_scanned_pdf
from tests.loaders.test_ocr import BRAKES, CHAIN, TYRES
from tests.loaders.test_office_passwords import PASSWORD, encrypt, office_files

SECRET_WORDS = {
    "secret.docx": "saddle budget",
    "secret.xlsx": "Ada",
    "secret.pptx": "tyre factory",
    "locked.pdf": "Locked gearbox note",
}


@pytest.fixture
def locked(tmp_path: Path) -> Path:
    """A folder of three encrypted Office files, an encrypted PDF and an open note."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for ext, (plain, _) in office_files(tmp_path / "plain").items():
        encrypt(plain, folder / f"secret{ext}")
    write_pdf(folder / "locked.pdf", ["Locked gearbox note"], password=PASSWORD)
    (folder / "open.md").write_text("# Open\n\nThe open note about chains.\n", encoding="utf-8")
    return folder


def _index(folder: Path, idx: Path, *args: object, **env: str) -> tuple[int, dict, str]:
    proc = ragkit("index", folder, "--index", idx, "--embedding", "hash", "--json", *args, **env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stdout + proc.stderr


def _found(idx: Path, words: str) -> list[str]:
    data = ragkit(
        "query", idx, words, "-k", "1", "--retriever", "bm25", "--json", check_json=True
    ).data
    return [Path(r["source"]).name for r in data["results"]]


@pytest.mark.slow  # over 5 s on an idle machine (8.6-12 s in a loaded full run)
def test_a_password_file_opens_encrypted_office_files_and_pdfs(
    locked: Path, tmp_path: Path
) -> None:
    pass_file = tmp_path / "docs.pass"
    pass_file.write_text(PASSWORD + "\n", encoding="utf-8")
    code, data, shown = _index(locked, tmp_path / "idx", "--password-file", pass_file)
    assert code == 0, data["failures"]
    assert data["files_loaded"] == 5 and data["failures"] == []
    assert PASSWORD not in shown
    for name, words in SECRET_WORDS.items():
        assert _found(tmp_path / "idx", words) == [name], name


@pytest.mark.slow
def test_the_password_from_the_environment_and_a_wrong_one(locked: Path, tmp_path: Path) -> None:
    code, data, _ = _index(locked, tmp_path / "idx", RAGKIT_DOCUMENT_PASSWORD=PASSWORD)
    assert code == 0 and data["files_loaded"] == 5, data["failures"]

    wrong = "not-the-Sädel-password"
    code, data, shown = _index(locked, tmp_path / "idx2", RAGKIT_DOCUMENT_PASSWORD=wrong)
    assert code == 1 and data["files_loaded"] == 1
    failures = {Path(f["path"]).name: f["error"] for f in data["failures"]}
    assert sorted(failures) == sorted(SECRET_WORDS)
    assert all("the password does not open" in e for e in failures.values()), failures
    assert wrong not in shown


def test_the_password_is_never_an_argument(locked: Path, tmp_path: Path) -> None:
    proc = ragkit("index", locked, "--index", tmp_path / "idx", "--password", PASSWORD)
    assert proc.returncode == 2 and "No such option" in proc.stderr
    missing = ragkit(
        "index", locked, "--index", tmp_path / "idx", "--password-file", tmp_path / "none.pass"
    )
    assert missing.returncode == 2, missing.stderr
    assert "cannot read the password file" in missing.stderr and "Traceback" not in missing.stderr
    assert PASSWORD not in repr(ReadOptions(password=PASSWORD))


def test_without_a_password_the_error_says_how_to_give_one(locked: Path, tmp_path: Path) -> None:
    code, data, _ = _index(locked, tmp_path / "idx")
    assert code == 1 and data["files_loaded"] == 1
    failures = {Path(f["path"]).name: f["error"] for f in data["failures"]}
    assert "--password-file FILE" in failures["secret.docx"]
    assert "--password-file FILE" in failures["locked.pdf"]


def test_image_pixel_bound(tmp_path: Path) -> None:
    folder = tmp_path / "images"
    folder.mkdir()
    Image.new("L", (3000, 2000), 255).save(folder / "wide.png")
    code, data, _ = _index(folder, tmp_path / "idx", "--max-image-pixels", "1000000")
    assert code == 1, data
    [failure] = data["failures"]
    assert "3000 x 2000 = 6,000,000 pixels, over max_pixels=1,000,000" in failure["error"]
    bad = ragkit("index", folder, "--index", tmp_path / "idx", "--max-image-pixels", "0")
    assert bad.returncode == 2 and "--max-image-pixels" in bad.stderr


@pytest.mark.slow
def test_ocr_page_and_time_bounds(tmp_path: Path) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    write_scanned_pdf(folder / "scan.pdf", [CHAIN, TYRES, BRAKES])
    code, data, _ = _index(folder, tmp_path / "idx", "--max-ocr-pages", "1")
    assert code == 1 and data["files_loaded"] == 1  # partly read: the rest is in the report
    [failure] = data["failures"]
    assert failure["partial"] is True
    assert (
        "pages 1-2 without a text layer not read by OCR: over max_ocr_pages=1" in failure["error"]
    )
    assert _found(tmp_path / "idx", "chains wax kilometres") == ["scan.pdf"]

    code, data, _ = _index(
        folder, tmp_path / "idx2", "--max-ocr-pages", "3", "--ocr-time-limit", "0.000001"
    )
    [failure] = data["failures"]
    assert (
        "pages 1-2 without a text layer not read by OCR: OCR of this file passed "
        in (failure["error"])
    )
    assert "ocr_time_limit=1e-06 s" in failure["error"]


@pytest.mark.slow
def test_no_attachments_indexes_the_messages_without_their_attachments(tmp_path: Path) -> None:
    from email.message import EmailMessage

    folder = tmp_path / "mail"
    folder.mkdir()
    msg = EmailMessage()
    msg["Subject"] = "Workshop rota"
    msg["From"] = "ana@example.org"
    msg.set_content("The rota for the workshop is attached.")
    msg.add_attachment(
        b"day,mechanic\nMonday,derailleur specialist\n",
        maintype="text",
        subtype="csv",
        filename="rota.csv",
    )
    (folder / "rota.eml").write_bytes(bytes(msg))
    code, data, _ = _index(folder, tmp_path / "off", "--no-attachments")
    assert code == 0, data["failures"]
    assert data["chunks"] == 1 and data["failures"] == []
    code, data, _ = _index(folder, tmp_path / "on")
    assert code == 0 and data["chunks"] == 2, data

    def texts(idx: Path) -> list[str]:
        found = ragkit(
            "query",
            idx,
            "derailleur specialist",
            "-k",
            "1",
            "--retriever",
            "bm25",
            "--json",
            check_json=True,
        )
        return [r["text"] for r in found.data["results"]]

    assert "derailleur specialist" in texts(tmp_path / "on")[0]
    assert all("derailleur" not in text for text in texts(tmp_path / "off"))
