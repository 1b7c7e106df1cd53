"""process_attachments (LangChain's name) on .eml, .mbox and .msg files written by the stdlib
email package and by cfb_writer: False reads no attachment and lists their names."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from ragkit.errors import ConfigurationError
from ragkit.loaders import (
    EmailLoader,
    MboxLoader,
    OutlookMessageLoader,
    UnstructuredEmailLoader,
)
from tests.loaders.cfb_writer import write_msg
from tests.loaders.test_email import MSG_STRINGS, message, nested_message, write


def with_bad_attachment() -> EmailMessage:
    """A message whose PDF attachment fails when it is read (a failure on loader.errors)."""
    msg = message()
    msg.set_content("Spokes are in.")
    msg.add_attachment(b"a,b\n1,2\n", maintype="text", subtype="csv", filename="rows.csv")
    msg.add_attachment(
        b"%PDF-1.7 broken", maintype="application", subtype="pdf", filename="bad.pdf"
    )
    return msg


def test_eml_default_reads_attachments_and_off_reads_none(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.eml", with_bad_attachment())
    on = EmailLoader(path)
    docs = on.load()
    assert [d.metadata.get("attachment") for d in docs] == [None, "rows.csv"]
    assert [f.path for f in on.errors] == [f"{path}/bad.pdf"]
    assert "attachments" not in docs[0].metadata
    off = EmailLoader(path, process_attachments=False)
    [doc] = off.load()
    assert off.errors == []  # the broken PDF was never parsed
    assert doc.metadata["attachments"] == ["rows.csv", "bad.pdf"]
    assert doc.page_content.endswith("Spokes are in.\n")
    assert doc.metadata["subject"] == "Tyre pressure"
    assert doc.page_content == docs[0].page_content


def test_eml_off_names_an_attached_message_without_reading_it(tmp_path: Path) -> None:
    path = write(tmp_path / "outer.eml", nested_message())
    [doc] = EmailLoader(path, process_attachments=False).load()
    assert doc.metadata["attachments"] == ["parts.csv", "attachment-2.eml"]
    [plain] = EmailLoader(write(tmp_path / "plain.eml", message())).load()
    assert "attachments" not in plain.metadata
    [none] = EmailLoader(tmp_path / "plain.eml", process_attachments=False).load()
    assert none.metadata["attachments"] == []


def test_the_two_names_are_one_switch(tmp_path: Path) -> None:
    path = write(tmp_path / "outer.eml", nested_message())
    assert EmailLoader(path).process_attachments is True
    assert EmailLoader(path, attachments=False).process_attachments is False
    assert EmailLoader(path, process_attachments=False).attachments is False
    assert len(EmailLoader(path, attachments=False).load()) == 1
    assert len(EmailLoader(path, False, process_attachments=False).load()) == 1
    with pytest.raises(ConfigurationError, match="disagree"):
        EmailLoader(path, attachments=False, process_attachments=True)
    assert UnstructuredEmailLoader(path).process_attachments is False  # LangChain's default
    [doc] = UnstructuredEmailLoader(path).load()
    assert doc.metadata["attachments"] == ["parts.csv", "attachment-2.eml"]


def test_mbox_off_lists_each_messages_attachments(tmp_path: Path) -> None:
    first = with_bad_attachment()
    second = message(subject="second")
    second.set_content("No attachments here.")
    raw = b"".join(
        b"From ana@example.com Tue Mar  3 10:00:00 2026\n" + m.as_bytes() + b"\n"
        for m in (first, second)
    )
    path = write(tmp_path / "box.mbox", raw)
    assert len(MboxLoader(path).load()) == 3  # both messages and the CSV's row
    loader = MboxLoader(path, process_attachments=False)
    docs = loader.load()
    assert loader.errors == []
    assert [d.metadata["attachments"] for d in docs] == [["rows.csv", "bad.pdf"], []]
    assert [d.metadata["message_index"] for d in docs] == [0, 1]


def test_msg_off_reads_names_not_data(tmp_path: Path) -> None:
    path = write_msg(
        tmp_path / "order.msg",
        MSG_STRINGS,
        attachments=[("sizes.csv", b"size,count\n28,40\n"), ("bad.pdf", b"%PDF-1.7 broken")],
        embedded={0x0037: "Inner", 0x1000: "inner body"},
    )
    on = OutlookMessageLoader(path)
    docs = on.load()
    assert [d.page_content for d in docs] == [
        "Order 40 tyres, width 28 mm.\nThanks",
        "size: 28\ncount: 40",
        "inner body",
    ]
    assert [f.path for f in on.errors] == [f"{path}/bad.pdf"]
    off = OutlookMessageLoader(path, process_attachments=False)
    [doc] = off.load()
    assert off.errors == []
    assert doc.page_content == docs[0].page_content
    assert doc.metadata == {
        **docs[0].metadata,
        "attachments": ["sizes.csv", "bad.pdf", "inner.msg"],
    }
    [via_eml] = EmailLoader(path, process_attachments=False).load()  # LangChain's dispatch
    assert via_eml.metadata["attachments"] == ["sizes.csv", "bad.pdf", "inner.msg"]


def test_msg_off_without_attachments(tmp_path: Path) -> None:
    path = write_msg(tmp_path / "plain.msg", {0x0037: "Plain", 0x1000: "body"})
    [doc] = OutlookMessageLoader(path, process_attachments=False).load()
    assert doc.metadata["attachments"] == [] and doc.page_content == "body"
    assert doc.metadata["subject"] == "Plain"
