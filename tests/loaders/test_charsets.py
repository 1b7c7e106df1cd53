"""Text in every encoding, written by Python's codecs, read by TextLoader and DirectoryLoader."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.loaders import DirectoryLoader, TextLoader
from ragkit.loaders._decode import decode_bytes

WESTERN = "Grüße aus München: café crème, “smart” quotes, 5 €"

CASES = [
    # (file bytes, expected text, encoding reported)
    (WESTERN.encode("utf-8"), WESTERN, "utf-8"),
    (WESTERN.encode("utf-8-sig"), WESTERN, "utf-8-sig"),
    (WESTERN.encode("utf-16"), WESTERN, "utf-16"),  # BOM, native order
    (b"\xfe\xff" + WESTERN.encode("utf-16-be"), WESTERN, "utf-16"),
    (WESTERN.encode("utf-32"), WESTERN, "utf-32"),
    (b"\x00\x00\xfe\xff" + WESTERN.encode("utf-32-be"), WESTERN, "utf-32"),
    (WESTERN.encode("utf-16-le"), WESTERN, "utf-16-le"),  # no BOM
    (WESTERN.encode("utf-32-be"), WESTERN, "utf-32-be"),  # no BOM
    (WESTERN.encode("cp1252"), WESTERN, "cp1252"),
    (
        "Grüße aus München, schöne Äpfel".encode("latin-1"),
        "Grüße aus München, schöne Äpfel",
        "cp1252",
    ),
    (
        "日本語のテキストです。これはテストです。".encode("shift_jis"),
        "日本語のテキストです。これはテストです。",
        "cp932",
    ),
    (
        "这是一个中文测试文本，用来检测编码。".encode("gb18030"),
        "这是一个中文测试文本，用来检测编码。",
        "gb18030",
    ),
    ("這是一個繁體中文的測試文本。".encode("big5"), "這是一個繁體中文的測試文本。", "big5"),
    ("한국어 텍스트입니다. 테스트.".encode("euc_kr"), "한국어 텍스트입니다. 테스트.", "cp949"),
    (
        "Привет, это тестовый текст на русском языке.".encode("cp1251"),
        "Привет, это тестовый текст на русском языке.",
        "cp1251",
    ),
    (
        "Καλημέρα, αυτό είναι ένα ελληνικό κείμενο.".encode("cp1253"),
        "Καλημέρα, αυτό είναι ένα ελληνικό κείμενο.",
        "cp1253",
    ),
]


@pytest.mark.parametrize(
    ("data", "text", "encoding"), CASES, ids=[c[2] + str(i) for i, c in enumerate(CASES)]
)
def test_text_loader_reads_every_encoding(
    tmp_path: Path, data: bytes, text: str, encoding: str
) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(data)
    assert decode_bytes(data, str(path)) == (text, encoding)
    assert TextLoader(path).load()[0].page_content == text


def test_directory_loader_reads_every_encoding(tmp_path: Path) -> None:
    for i, (data, _, _) in enumerate(CASES):
        (tmp_path / f"{i:02d}.txt").write_bytes(data)
    loader = DirectoryLoader(tmp_path)
    docs = loader.load()
    assert loader.errors == []
    assert [d.page_content for d in docs] == [text for _, text, _ in CASES]


def test_short_western_text_stays_cp1252() -> None:
    # a few accented bytes fit cp1251 as well; Western text is read as cp1252
    assert decode_bytes("“q” €".encode("cp1252"), "x") == ("“q” €", "cp1252")
    assert decode_bytes(b"na\xefve", "x") == ("naïve", "cp1252")
