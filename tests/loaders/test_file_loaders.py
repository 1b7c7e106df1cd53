"""Single-file loaders on real files: encodings, CSV, JSON, HTML, Markdown, PDF, bad input."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from ragkit.errors import EncryptedFileError, LoaderError, RagkitError, UnsupportedFileError
from ragkit.loaders import CSVLoader, HTMLLoader, JSONLoader, MarkdownLoader, PDFLoader, TextLoader
from ragkit.splitters import CharacterTextSplitter, RecursiveCharacterTextSplitter

TEXT = "Caf\u00e9 \u201cquotes\u201d \u2014 na\u00efve r\u00e9sum\u00e9 \u20ac5\nsecond line"


# -- TextLoader: encodings --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "text"),
    [
        ("utf-8", TEXT),
        ("utf-8-sig", TEXT),
        ("utf-16", TEXT),  # with BOM
        ("utf-16-le", TEXT),  # no BOM
        ("utf-16-be", TEXT),
        ("utf-32", TEXT),
        ("cp1252", TEXT),
        ("latin-1", "Ma\u00f1ana \u00bfqu\u00e9? \u00a9 \u0081 control-range byte"),
    ],
)
def test_text_loader_detects_encodings(tmp_path: Path, encoding: str, text: str) -> None:
    path = tmp_path / f"{encoding}.txt"
    path.write_bytes(text.encode(encoding))
    docs = TextLoader(path).load()
    assert [d.page_content for d in docs] == [text]
    assert docs[0].metadata == {"source": str(path)}


def test_text_loader_explicit_and_wrong_encodings(tmp_path: Path) -> None:
    path = tmp_path / "cp.txt"
    path.write_bytes(TEXT.encode("cp1252"))
    assert TextLoader(path, encoding="cp1252").load()[0].page_content == TEXT
    with pytest.raises(LoaderError, match=r"cp\.txt.*utf-8"):
        TextLoader(path, encoding="utf-8").load()
    with pytest.raises(LoaderError, match="autodetect_encoding"):
        TextLoader(path, autodetect_encoding=False).load()
    with pytest.raises(LoaderError, match="no-such-codec"):
        TextLoader(path, encoding="no-such-codec").load()


def test_text_loader_bad_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert [d.page_content for d in TextLoader(empty).load()] == [""]

    binary = tmp_path / "image.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(UnsupportedFileError, match="image.txt.*binary"):
        TextLoader(binary).load()

    folder = tmp_path / "folder.txt"
    folder.mkdir()
    with pytest.raises(UnsupportedFileError, match="directory"):
        TextLoader(folder).load()

    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)  # opening it for reading would block forever
    with pytest.raises(UnsupportedFileError, match="not a regular file"):
        TextLoader(fifo).load()

    with pytest.raises(LoaderError, match="does not exist"):
        TextLoader(tmp_path / "missing.txt").load()


def test_hundred_megabyte_single_line_streams_through_a_splitter(tmp_path: Path) -> None:
    path = tmp_path / "one-line.txt"
    path.write_bytes(b"x" * 100_000_000)
    chain = TextLoader(path) | RecursiveCharacterTextSplitter(chunk_size=4000, chunk_overlap=0)
    count = sum(1 for _ in chain.stream(None))
    assert count == 25_000


# -- CSVLoader -------------------------------------------------------------------------------


def _langchain_csv(path: Path, **kwargs):
    from langchain_community.document_loaders import CSVLoader as LCCSVLoader

    return [(d.page_content, d.metadata) for d in LCCSVLoader(str(path), **kwargs).load()]


def test_csv_quoted_newlines_and_langchain_parity(tmp_path: Path) -> None:
    path = tmp_path / "people.csv"
    path.write_text(
        'name,bio,url\nAda,"wrote the first\nprogram, in 1843",https://a.example\n'
        'Grace," COBOL, ""bugs"" ",https://g.example\n',
        encoding="utf-8",
        newline="",
    )
    docs = CSVLoader(path).load()
    assert [(d.page_content, d.metadata) for d in docs] == _langchain_csv(path)
    assert (
        docs[0].page_content
        == "name: Ada\nbio: wrote the first\nprogram, in 1843\nurl: https://a.example"
    )
    assert docs[1].metadata == {"source": str(path), "row": 1}

    by_url = CSVLoader(path, source_column="url", metadata_columns=["name"])
    assert [(d.page_content, d.metadata) for d in by_url.load()] == _langchain_csv(
        path, source_column="url", metadata_columns=["name"]
    )
    only_bio = CSVLoader(path, content_columns=["bio"]).load()
    assert only_bio[1].page_content == 'bio: COBOL, "bugs"'


def test_csv_options_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "semi.csv"
    path.write_bytes("a;b\n1;\u00e9t\u00e9\n".encode("cp1252"))
    docs = CSVLoader(path, csv_args={"delimiter": ";"}).load()
    assert docs[0].page_content == "a: 1\nb: \u00e9t\u00e9"
    with pytest.raises(LoaderError, match="'nope'"):
        CSVLoader(path, csv_args={"delimiter": ";"}, metadata_columns=["nope"]).load()
    with pytest.raises(LoaderError, match="source_column"):
        CSVLoader(path, csv_args={"delimiter": ";"}, source_column="zzz").load()
    bad = tmp_path / "bad.csv"
    bad.write_text('a,b\n"unterminated,1\n', encoding="utf-8")
    with pytest.raises(LoaderError, match="bad.csv"):
        CSVLoader(bad, csv_args={"strict": True}).load()


# -- JSONLoader ------------------------------------------------------------------------------


def test_json_nested_paths(tmp_path: Path) -> None:
    data = {
        "feed": {
            "items": [{"body": "first", "meta": {"id": 1}}, {"body": "second", "meta": {"id": 2}}]
        }
    }
    path = tmp_path / "feed.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    docs = JSONLoader(path, jq_schema=".feed.items[].body").load()
    assert [(d.page_content, d.metadata) for d in docs] == [
        ("first", {"source": str(path), "seq_num": 1}),
        ("second", {"source": str(path), "seq_num": 2}),
    ]

    def add_id(record: dict, metadata: dict) -> dict:
        return {**metadata, "id": record["meta"]["id"]}

    docs = JSONLoader(
        path, jq_schema=".feed.items[]", content_key="body", metadata_func=add_id
    ).load()
    assert [(d.page_content, d.metadata["id"]) for d in docs] == [("first", 1), ("second", 2)]

    whole = JSONLoader(path, jq_schema=".feed.items[1]", text_content=False).load()
    assert json.loads(whole[0].page_content) == data["feed"]["items"][1]
    assert (
        JSONLoader(path, jq_schema='."feed"."items"[0].meta.id', text_content=False)
        .load()[0]
        .page_content
        == "1"
    )

    with pytest.raises(LoaderError, match="not a string"):
        JSONLoader(path, jq_schema=".feed.items[]").load()
    with pytest.raises(ValueError, match="jq_schema"):
        JSONLoader(path, jq_schema="feed")
    with pytest.raises(LoaderError, match="iterate"):
        JSONLoader(path, jq_schema=".feed.items[0].body[]").load()


def test_json_lines_keeps_going_after_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"text": "a"}\n\n{broken\n{"text": "b"}\n', encoding="utf-8")
    loader = JSONLoader(path, jq_schema=".text", json_lines=True)
    docs = loader.load()
    assert [(d.page_content, d.metadata["seq_num"]) for d in docs] == [("a", 1), ("b", 2)]
    assert len(loader.errors) == 1 and "line 3" in loader.errors[0].reason
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": ', encoding="utf-8")
    with pytest.raises(LoaderError, match="broken.json is not valid JSON"):
        JSONLoader(broken).load()


# -- HTMLLoader ------------------------------------------------------------------------------

MALFORMED = """<!DOCTYPE html><html><head><title> My page </title>
<style>p { color: red }</style><script>alert("x")</script></head>
<body><div><p>First <b>bold<i> and italic</b> text<p>Second &amp; unclosed
<ul><li>one<li>two</ul></div></span><noscript>enable JS</noscript>
<template><p>hidden</p></template><pre>  keep   spaces </pre>
<!-- a comment --><table><tr><td>cell</table>  \n  <p>end &nbsp; &copy; &#8212; &bogus;
"""


def _bs4_reference(html: str) -> str:
    soup = BeautifulSoup(html, "lxml")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    return soup.get_text("\n")


def test_html_loader_malformed_matches_beautifulsoup(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(MALFORMED, encoding="utf-8")
    doc = HTMLLoader(path).load()[0]
    assert doc.page_content == _bs4_reference(MALFORMED)
    assert doc.metadata == {"source": str(path), "title": "My page"}
    for gone in ("alert", "color: red", "enable JS", "hidden", "a comment"):
        assert gone not in doc.page_content
    assert "  keep   spaces " in doc.page_content and "\u2014" in doc.page_content
    slow = HTMLLoader(path, bs_kwargs={"features": "lxml"}).load()[0]
    assert slow.page_content == doc.page_content


@pytest.mark.parametrize(
    "html",
    [
        "",
        "just text",
        "<p>unclosed <b>tags <i>everywhere",
        "</div></p>stray ends<br/><br>",
        "<html><body>a<!--c-->b<?pi x?>c</body></html>\n<!-- after -->tail",
        "<p>\u00e9t\u00e9 <textarea>  x  </textarea> <ruby>k<rt>yomi</rt></ruby></p>",
        "<svg><title>icon</title></svg><math><mi>x</mi></math>",
    ],
)
def test_html_text_matches_beautifulsoup_on_odd_input(tmp_path: Path, html: str) -> None:
    path = tmp_path / "odd.html"
    path.write_text(html, encoding="utf-8")
    assert HTMLLoader(path).load()[0].page_content == _bs4_reference(html)


def test_html_loader_xhtml_declaration_and_legacy_encoding(tmp_path: Path) -> None:
    xhtml = tmp_path / "x.xhtml"
    xhtml.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><html><body><p>Caf\u00e9</p></body></html>',
        encoding="utf-8",
    )
    assert "Caf\u00e9" in HTMLLoader(xhtml).load()[0].page_content
    legacy = tmp_path / "old.html"
    legacy.write_bytes("<p>\u201cq\u201d \u20ac</p>".encode("cp1252"))
    assert HTMLLoader(legacy).load()[0].page_content == "\u201cq\u201d \u20ac"


# -- MarkdownLoader --------------------------------------------------------------------------

MARKDOWN = """# Guide

Intro paragraph
over two lines.

## Install

- pip install ragkit
- run it

```bash
# not a heading
ragkit index
```

| a | b |
|---|---|
| 1 | 2 |

> quoted

# Next
Last words.
"""


def test_markdown_elements(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    single = MarkdownLoader(path).load()
    assert [(d.page_content, d.metadata) for d in single] == [(MARKDOWN, {"source": str(path)})]
    docs = MarkdownLoader(path, mode="elements").load()
    got = [(d.metadata["category"], d.page_content, d.metadata["headers"]) for d in docs]
    assert got == [
        ("heading", "Guide", ["Guide"]),
        ("paragraph", "Intro paragraph\nover two lines.", ["Guide"]),
        ("heading", "Install", ["Guide", "Install"]),
        ("list", "- pip install ragkit\n- run it", ["Guide", "Install"]),
        ("code", "# not a heading\nragkit index\n", ["Guide", "Install"]),
        ("table", "| a | b |\n|---|---|\n| 1 | 2 |", ["Guide", "Install"]),
        ("quote", "> quoted", ["Guide", "Install"]),
        ("heading", "Next", ["Next"]),
        ("paragraph", "Last words.", ["Next"]),
    ]
    code = next(d for d in docs if d.metadata["category"] == "code")
    assert code.metadata["language"] == "bash" and code.metadata["line"] == 11
    with pytest.raises(ValueError, match="mode"):
        MarkdownLoader(path, mode="paged")  # type: ignore[arg-type]


# -- PDFLoader -------------------------------------------------------------------------------


def test_pdf_pages_and_single(pdf_factory) -> None:
    path = pdf_factory("doc.pdf", ["Hello page one", "Second page text", "Third"])
    docs = PDFLoader(path).load()
    assert [(d.page_content, d.metadata["page"], d.metadata["total_pages"]) for d in docs] == [
        ("Hello page one", 0, 3),
        ("Second page text", 1, 3),
        ("Third", 2, 3),
    ]
    assert all(d.metadata["source"] == str(path) for d in docs)
    single = PDFLoader(path, mode="single").load()
    assert [d.page_content for d in single] == ["Hello page one\n\fSecond page text\n\fThird"]


def test_pdf_encrypted_and_truncated(pdf_factory, tmp_path: Path) -> None:
    secret = pdf_factory("secret.pdf", ["Classified"], password="s3cret")
    with pytest.raises(EncryptedFileError, match="secret.pdf is encrypted; pass password="):
        PDFLoader(secret).load()
    with pytest.raises(EncryptedFileError, match="password does not open"):
        PDFLoader(secret, password="wrong").load()
    assert PDFLoader(secret, password="s3cret").load()[0].page_content == "Classified"

    good = pdf_factory("good.pdf", ["abc", "def"])
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(LoaderError, match="truncated.pdf"):
        PDFLoader(truncated).load()
    not_pdf = tmp_path / "fake.pdf"
    not_pdf.write_text("plain text", encoding="utf-8")
    with pytest.raises(LoaderError, match="fake.pdf"):
        PDFLoader(not_pdf).load()


# -- the BaseLoader surface ----------------------------------------------------------------------


def test_loader_is_a_runnable_and_async(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one two three", encoding="utf-8")
    loader = TextLoader(path)
    assert loader.invoke(None) == loader.load()
    chain = loader | CharacterTextSplitter(separator=" ", chunk_size=3, chunk_overlap=0)
    assert [d.page_content for d in chain.invoke(None)] == ["one", "two", "three"]
    assert [d.page_content for d in chain.stream(None)] == ["one", "two", "three"]
    assert [
        d.page_content
        for d in loader.load_and_split(
            CharacterTextSplitter(separator=" ", chunk_size=7, chunk_overlap=0)
        )
    ] == [
        "one two",
        "three",
    ]

    async def run():
        return (
            await loader.aload(),
            [d async for d in loader.alazy_load()],
            await chain.ainvoke(None),
        )

    loaded, streamed, chunks = asyncio.run(run())
    assert loaded == streamed == loader.load() and len(chunks) == 3


def test_all_loader_errors_are_ragkit_errors() -> None:
    for cls in (LoaderError, EncryptedFileError, UnsupportedFileError):
        assert issubclass(cls, RagkitError)
