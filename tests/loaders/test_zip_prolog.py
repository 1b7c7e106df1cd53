"""check_xml_prolog: a DOCTYPE with an internal subset is found however long the prolog is."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders._zip_guard import check_xml_members, check_xml_prolog

SUBSET = '<!DOCTYPE r [<!ENTITY x "y">]>'
COMMENT = "<!-- " + "padding " * 400 + "-->\n"  # 3 KB of prolog before the DOCTYPE


def _zip(tmp_path: Path, members: dict[str, bytes]) -> zipfile.ZipFile:
    path = tmp_path / "p.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return zipfile.ZipFile(path)


@pytest.mark.parametrize(
    "text",
    [
        '<?xml version="1.0"?>\n' + SUBSET + "<r>&x;</r>",
        '<?xml version="1.0"?>\n' + COMMENT + SUBSET + "<r/>",
        '<?xml version="1.0"?>\n' + COMMENT * 8 + SUBSET + "<r/>",  # past the second read
    ],
)
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_an_internal_subset_is_refused(tmp_path: Path, text: str, encoding: str) -> None:
    with _zip(tmp_path, {"word/document.xml": text.encode(encoding)}) as zf:
        with pytest.raises(LoaderError, match="word/document.xml declares XML entities"):
            check_xml_members(zf, "p.docx")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_a_long_prolog_without_a_subset_passes(tmp_path: Path, encoding: str) -> None:
    text = '<?xml version="1.0"?>\n' + COMMENT * 3 + '<!DOCTYPE r SYSTEM "r.dtd"><r>[x]</r>'
    with _zip(tmp_path, {"a.xml": text.encode(encoding), "b.xml": b"<r/>"}) as zf:
        check_xml_prolog(zf, "a.xml", "p.zip")
        check_xml_members(zf, "p.zip")
