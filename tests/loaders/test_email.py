"""E-mail loaders on messages written by the stdlib email package and .msg files written by cfb_writer."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from ragkit.errors import ConfigurationError, LoaderError
from ragkit.loaders import (
    ArchiveLimits,
    DirectoryLoader,
    EmailLoader,
    MboxLoader,
    OutlookMessageLoader,
    UnstructuredEmailLoader,
)
from ragkit.loaders.directory import default_loader
from tests.loaders.cfb_writer import write_msg


def message(subject: str = "Tyre pressure", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"] = "Ana Lima <ana@example.com>"
    msg["To"] = "Bo <bo@example.com>, cy@example.com"
    msg["Cc"] = "dee@example.com"
    msg["Date"] = "Tue, 03 Mar 2026 10:00:00 +0100"
    msg["Message-ID"] = "<m1@example.com>"
    for name, value in headers.items():
        msg[name] = value
    return msg


def body(doc) -> str:
    """A message Document's text after its header block (other Documents: their text)."""
    text = doc.page_content
    if (
        "subject" not in doc.metadata
        or "attachment" in doc.metadata
        and "message_id" not in doc.metadata
    ):
        return text
    assert text.startswith(("Subject: ", "From: ", "To: ", "Date: ")), text[:80]
    return text.split("\n\n", 1)[1]


def write(path: Path, msg: EmailMessage | bytes) -> Path:
    path.write_bytes(msg if isinstance(msg, bytes) else msg.as_bytes())
    return path


def test_multipart_alternative_takes_the_plain_body_and_headers(tmp_path: Path) -> None:
    msg = message()
    msg.set_content("Pump road tyres to 6 bar.\n")
    msg.add_alternative("<html><body><p>HTML version</p></body></html>", subtype="html")
    path = write(tmp_path / "a.eml", msg)
    [doc] = EmailLoader(path).load()
    assert doc.page_content == (
        "Subject: Tyre pressure\nFrom: Ana Lima <ana@example.com>\n"
        "To: Bo <bo@example.com>, cy@example.com\nCc: dee@example.com\n"
        "Date: 2026-03-03T10:00:00+01:00\n\nPump road tyres to 6 bar.\n"
    )
    [bare] = EmailLoader(path, headers=False).load()
    assert bare.page_content == "Pump road tyres to 6 bar.\n"
    assert bare.metadata == doc.metadata
    assert doc.metadata == {
        "source": str(path),
        "subject": "Tyre pressure",
        "from": "Ana Lima <ana@example.com>",
        "to": "Bo <bo@example.com>, cy@example.com",
        "cc": "dee@example.com",
        "date": "2026-03-03T10:00:00+01:00",
        "message_id": "<m1@example.com>",
    }


def test_html_only_body_is_converted_to_text(tmp_path: Path) -> None:
    msg = message()
    msg.set_content(
        "<html><head><style>p{}</style></head><body><h1>Brakes</h1><p>Bed in the pads.</p></body></html>",
        subtype="html",
    )
    [doc] = EmailLoader(write(tmp_path / "h.eml", msg)).load()
    assert body(doc) == "Brakes\nBed in the pads."


def test_utf16_body_and_encoded_subject(tmp_path: Path) -> None:
    msg = message(subject="Réunion — 会議")
    msg.set_content("Grüße, 東京 ☂".encode("utf-16"), maintype="text", subtype="plain")
    msg.replace_header("Content-Type", 'text/plain; charset="utf-16"')
    [doc] = EmailLoader(write(tmp_path / "u.eml", msg)).load()
    assert body(doc) == "Grüße, 東京 ☂"
    assert doc.metadata["subject"] == "Réunion — 会議"


@pytest.mark.parametrize(
    ("declared", "payload", "expected"),
    [
        ("x-unknown-charset", "Grüße aus München".encode("cp1252"), "Grüße aus München"),
        ("utf-8", "café crème brûlée".encode("cp1252"), "café crème brûlée"),  # a wrong label
        ("us-ascii", "“smart” quotes €5".encode("cp1252"), "“smart” quotes €5"),
        ("shift_jis", "日本語のメールです。".encode("shift_jis"), "日本語のメールです。"),
    ],
)
def test_broken_or_legacy_charset_declarations(
    tmp_path: Path, declared: str, payload: bytes, expected: str
) -> None:
    raw = (
        b"From: a@example.com\nTo: b@example.com\nSubject: s\nMIME-Version: 1.0\n"
        b"Content-Type: text/plain; charset=" + declared.encode() + b"\n"
        b"Content-Transfer-Encoding: 8bit\n\n" + payload + b"\n"
    )
    [doc] = EmailLoader(write(tmp_path / "b.eml", raw)).load()
    assert body(doc).strip() == expected


def nested_message() -> EmailMessage:
    inner = message(subject="Forwarded: chain wear", **{})
    inner.replace_header("Message-ID", "<inner@example.com>")
    inner.set_content("Replace the chain at 0.5% stretch.")
    outer = message()
    outer.set_content("See the attachments.")
    outer.add_attachment(
        b"part,price\nchain,30\ntyre,45\n", maintype="text", subtype="csv", filename="parts.csv"
    )
    outer.add_attachment(inner)
    return outer


def test_attachments_are_their_own_documents_naming_the_parent(tmp_path: Path) -> None:
    path = write(tmp_path / "outer.eml", nested_message())
    loader = EmailLoader(path)
    docs = loader.load()
    assert loader.errors == []
    assert [body(d).strip() for d in docs] == [
        "See the attachments.",
        "part: chain\nprice: 30",
        "part: tyre\nprice: 45",
        "Replace the chain at 0.5% stretch.",
    ]
    rows = docs[1:3]
    assert [d.metadata["row"] for d in rows] == [0, 1]
    for doc in rows:
        assert doc.metadata["source"] == f"{path}/parts.csv"
        assert doc.metadata["parent_source"] == str(path)
        assert doc.metadata["attachment"] == "parts.csv"
        assert doc.metadata["message_id"] == "<m1@example.com>"
    inner = docs[3].metadata
    assert inner["subject"] == "Forwarded: chain wear"
    assert inner["message_id"] == "<inner@example.com>"
    assert inner["parent_source"] == str(path)
    assert inner["source"].startswith(f"{path}/") and inner["source"].endswith(".eml")
    assert len(EmailLoader(path, attachments=False).load()) == 1


def test_attachment_bounds_and_a_bad_attachment(tmp_path: Path) -> None:
    msg = message()
    msg.set_content("body")
    for i in range(4):
        msg.add_attachment(
            f"note {i}".encode(), maintype="text", subtype="plain", filename=f"n{i}.txt"
        )
    msg.add_attachment(
        b"%PDF-1.7 broken", maintype="application", subtype="pdf", filename="bad.pdf"
    )
    path = write(tmp_path / "many.eml", msg)
    loader = EmailLoader(path, limits=ArchiveLimits(max_attachments=3))
    docs = loader.load()
    assert [d.page_content for d in docs[1:]] == ["note 0", "note 1", "note 2"]
    assert "more than 3 attachments" in loader.errors[-1].reason
    loader = EmailLoader(path, limits=ArchiveLimits(max_member_size=5))
    loader.load()
    assert all("max_member_size" in f.reason or "bad.pdf" in f.path for f in loader.errors)
    loader = EmailLoader(path)
    assert len(loader.load()) == 5
    [failure] = loader.errors
    assert failure.path == f"{path}/bad.pdf"


def test_unstructured_email_loader_signature(tmp_path: Path) -> None:
    path = write(tmp_path / "outer.eml", nested_message())
    assert len(UnstructuredEmailLoader(path).load()) == 1
    assert len(UnstructuredEmailLoader(path, process_attachments=True).load()) == 4
    with pytest.raises(ConfigurationError, match="mode='elements' is not offered"):
        UnstructuredEmailLoader(path, mode="elements")


def test_mbox_one_document_per_message(tmp_path: Path) -> None:
    parts = []
    for i in range(3):
        msg = message(subject=f"note {i}")
        msg.replace_header("Message-ID", f"<n{i}@example.com>")
        msg.set_content(f"Body {i}\nFrom the workshop\n")
        parts.append(b"From ana@example.com Tue Mar  3 10:00:00 2026\n" + msg.as_bytes())
    raw = b"\n".join(parts).replace(b"\nFrom the workshop", b"\n>From the workshop")
    path = write(tmp_path / "box.mbox", raw)
    docs = MboxLoader(path).load()
    assert [d.metadata["subject"] for d in docs] == ["note 0", "note 1", "note 2"]
    assert [d.metadata["message_index"] for d in docs] == [0, 1, 2]
    assert body(docs[1]).strip() == "Body 1\nFrom the workshop"
    assert docs[2].metadata["message_id"] == "<n2@example.com>"
    assert all(d.metadata["source"] == str(path) for d in docs)
    with pytest.raises(LoaderError, match="not an mbox file"):
        MboxLoader(write(tmp_path / "x.mbox", b"hello\n")).load()


def test_mbox_of_one_message_without_a_from_line(tmp_path: Path) -> None:
    """A single message saved under an .mbox name (no 'From ' line) is read as that message."""
    msg = message(subject="alone")
    msg.set_content("Just one.\n")
    [doc] = MboxLoader(write(tmp_path / "one.mbox", msg)).load()
    assert doc.metadata["subject"] == "alone" and body(doc) == "Just one.\n"


MSG_STRINGS = {
    0x0037: "Quarterly tyres",
    0x1000: "Order 40 tyres, width 28 mm.\r\nThanks",
    0x0C1A: "Ana Lima",
    0x0C1F: "ana@example.com",
    0x0E04: "Bo",
    0x0E03: "Cy",
    0x007D: "Date: Tue, 3 Mar 2026 10:00:00 +0100\r\nMessage-ID: <m9@example.com>\r\n",
}


def test_outlook_msg(tmp_path: Path) -> None:
    path = write_msg(
        tmp_path / "order.msg",
        MSG_STRINGS,
        attachments=[("sizes.csv", b"size,count\n28,40\n"), ("long.txt", b"spoke " * 1000)],
        embedded={0x0037: "Inner", 0x1000: "inner body"},
    )
    loader = OutlookMessageLoader(path)
    docs = loader.load()
    assert loader.errors == []
    assert docs[0].page_content == "Order 40 tyres, width 28 mm.\nThanks"
    assert docs[0].metadata == {
        "source": str(path),
        "subject": "Quarterly tyres",
        "from": "Ana Lima <ana@example.com>",
        "sender": "Ana Lima <ana@example.com>",
        "to": "Bo",
        "cc": "Cy",
        "date": "2026-03-03T10:00:00+01:00",
        "message_id": "<m9@example.com>",
    }
    assert docs[1].page_content == "size: 28\ncount: 40"
    assert docs[1].metadata["parent_source"] == str(path)
    assert docs[1].metadata["attachment"] == "sizes.csv"
    assert docs[2].page_content == "spoke " * 1000  # over 4096 bytes: outside the mini stream
    assert docs[3].metadata["subject"] == "Inner" and docs[3].page_content == "inner body"
    assert type(default_loader(str(path))).__name__ == "OutlookMessageLoader"
    as_email = UnstructuredEmailLoader(path, process_attachments=True).load()
    assert [d.page_content for d in as_email] == [d.page_content for d in docs]
    too_deep = OutlookMessageLoader(path, limits=ArchiveLimits(max_depth=1))
    assert len(too_deep.load()) == 3
    assert "deeper than max_depth=1" in too_deep.errors[0].reason


def test_outlook_msg_html_body_and_submit_time(tmp_path: Path) -> None:
    # 2026-03-03T09:00:00Z as a FILETIME
    filetime = (1772528400 + 11644473600) * 10**7
    path = write_msg(
        tmp_path / "h.msg",
        {0x0037: "Html only"},
        binaries={0x1013: b"<html><body><p>Wheels &amp; tyres</p></body></html>"},
        submit_time=filetime,
    )
    [doc] = OutlookMessageLoader(path).load()
    assert doc.page_content == "Wheels & tyres"
    assert doc.metadata["date"] == "2026-03-03T09:00:00+00:00"


def test_bad_mail_files_fail_alone_in_a_directory(tmp_path: Path) -> None:
    write(tmp_path / "good.eml", nested_message())
    (tmp_path / "not-ole.msg").write_bytes(b"just text")
    (tmp_path / "broken.msg").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100)
    (tmp_path / "empty.eml").write_bytes(b"")
    (tmp_path / "binary.eml").write_bytes(bytes(range(256)) * 4)
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    docs = loader.load()
    assert len(docs) == 4
    failed = sorted(Path(f.path).name for f in loader.errors)
    assert failed == ["binary.eml", "broken.msg", "empty.eml", "not-ole.msg"]
    assert all(Path(f.path).name in f.reason for f in loader.errors)


def test_gzipped_eml_and_nested_messages_bounded_by_depth(tmp_path: Path) -> None:
    import gzip

    level3 = message(subject="level 3")
    level3.set_content("third")
    level2 = message(subject="level 2")
    level2.set_content("second")
    level2.add_attachment(level3)
    level1 = message(subject="level 1")
    level1.set_content("first")
    level1.add_attachment(level2)
    path = tmp_path / "chain.eml.gz"
    path.write_bytes(gzip.compress(level1.as_bytes()))
    loader = DirectoryLoader(tmp_path)
    docs = loader.load()
    assert [d.metadata["subject"] for d in docs] == ["level 1", "level 2"]
    assert docs[0].metadata["source"] == str(path)
    assert docs[1].metadata["source"] == f"{path}/attachment-1.eml"
    assert docs[1].metadata["parent_source"] == str(path)
    [failure] = loader.errors
    assert "nested deeper than max_depth=2" in failure.reason
    deep = EmailLoader(write(tmp_path / "chain.eml", level1), limits=ArchiveLimits(max_depth=3))
    assert [body(d).strip() for d in deep.load()] == ["first", "second", "third"]
