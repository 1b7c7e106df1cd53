"""Legacy binary .doc/.ppt through LibreOffice, on files LibreOffice itself writes.

The test writes a .docx and a .pptx with python-docx and python-pptx, has ``soffice`` save
them as Word 97-2003 ``.doc`` and PowerPoint 97-2003 ``.ppt``, and loads those. (No table: LibreOffice 7.4 writes
a python-docx table to ``.doc`` as one run of its cells' text, so it cannot be checked here.) ``make
setup`` installs LibreOffice (headless Writer and Impress); without it these tests fail.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import docx
import pptx
import pytest

from ragkit.loaders import DirectoryLoader, LegacyOfficeLoader

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the Compound File header of .doc/.ppt/.xls


def soffice() -> str:
    path = shutil.which("soffice")
    assert path, "LibreOffice is missing: `make setup` installs it (soffice on PATH)"
    return path


def save_as_legacy(source: Path, target_ext: str) -> Path:
    """``source`` saved by LibreOffice as ``target_ext`` (``doc`` or ``ppt``) beside it."""
    with tempfile.TemporaryDirectory(prefix="ragkit-test-profile-") as profile:
        subprocess.run(
            [
                soffice(),
                f"-env:UserInstallation=file://{profile}",
                "--headless",
                "--norestore",
                "--convert-to",
                target_ext,
                "--outdir",
                str(source.parent),
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
    legacy = source.with_suffix(f".{target_ext}")
    assert legacy.read_bytes()[:8] == OLE_MAGIC, f"{legacy} is not a binary Office file"
    return legacy


@pytest.fixture(scope="module")
def legacy_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("legacy")
    word = docx.Document()
    word.core_properties.author = "Ada Lovelace"
    word.add_heading("Service intervals", level=1)
    word.add_paragraph("Wax the chain every three hundred kilometres.")
    word.add_heading("Brakes", level=2)
    word.add_paragraph("Check the pads monthly.")
    word.save(folder / "service.docx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Brake check"
    slide.placeholders[1].text = "Pads wear faster in wet weather"
    slide.notes_slide.notes_text_frame.text = "Show the worn pad"
    deck.save(folder / "brakes.pptx")
    legacy = {
        "doc": save_as_legacy(folder / "service.docx", "doc"),
        "ppt": save_as_legacy(folder / "brakes.pptx", "ppt"),
    }
    (folder / "service.docx").unlink()
    (folder / "brakes.pptx").unlink()
    return legacy


@pytest.mark.slow
def test_doc_written_by_libreoffice_reads_as_markdown(legacy_files: dict[str, Path]) -> None:
    [doc] = LegacyOfficeLoader(legacy_files["doc"]).load()
    assert doc.page_content == (
        "# Service intervals\n\nWax the chain every three hundred kilometres.\n\n"
        "## Brakes\n\nCheck the pads monthly."
    )
    assert doc.metadata["source"] == str(legacy_files["doc"])
    assert doc.metadata["author"] == "Ada Lovelace"


@pytest.mark.slow
def test_ppt_written_by_libreoffice_reads_per_slide(legacy_files: dict[str, Path]) -> None:
    [slide] = LegacyOfficeLoader(legacy_files["ppt"]).load()
    assert slide.page_content == (
        "# Brake check\n\nPads wear faster in wet weather\n\nSpeaker notes:\nShow the worn pad"
    )
    assert slide.metadata["slide_number"] == 1 and slide.metadata["title"] == "Brake check"
    assert slide.metadata["source"] == str(legacy_files["ppt"])


@pytest.mark.slow
def test_a_folder_reads_legacy_files_and_leaves_no_converted_copy(
    legacy_files: dict[str, Path],
) -> None:
    folder = legacy_files["doc"].parent
    before = sorted(p.name for p in folder.iterdir())
    loader = DirectoryLoader(folder, silent_errors=True)
    docs = loader.load()
    assert loader.errors == []
    assert sorted(Path(d.metadata["source"]).name for d in docs) == ["brakes.ppt", "service.doc"]
    assert sorted(p.name for p in folder.iterdir()) == before
