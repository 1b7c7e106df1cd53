"""Abused chat histories: symlinks, bad session ids, damaged rows and files, FIFOs, kill -9.

Every case ends in a ChatHistoryError (or ConfigurationError) naming the file and, for a
message, its row or position; with ``on_error="skip"`` the good messages load and the bad ones
are listed; nothing hangs and no temp file is left behind.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from ragkit.chains import ChatHistoryError, FileChatMessageHistory, SQLiteChatMessageHistory
from ragkit.errors import ConfigurationError, InputTypeError
from ragkit.messages import AIMessage, HumanMessage
from tests.cli.helpers import env

REPO = Path(__file__).resolve().parents[2]


def run_child(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env(),
        cwd=REPO,
    )


# -- file histories --------------------------------------------------------------------


def test_a_history_reached_through_a_symlink_stays_one_file(tmp_path):
    real_dir, link_dir = tmp_path / "real", tmp_path / "links"
    real_dir.mkdir()
    link_dir.mkdir()
    real = real_dir / "chat.json"
    link = link_dir / "chat.json"
    FileChatMessageHistory(real).add_user_message("first")
    link.symlink_to(real)
    writers = [
        threading.Thread(
            target=lambda p=p, i=i: [
                FileChatMessageHistory(p).add_user_message(f"{i}-{n}") for n in range(20)
            ]
        )
        for i, p in enumerate([real, link, link, real])
    ]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    assert link.is_symlink() and os.path.realpath(link) == str(real)
    contents = [m.content for m in FileChatMessageHistory(link).messages]
    assert len(contents) == 81 and contents == [
        m.content for m in FileChatMessageHistory(real).messages
    ]
    assert not (link_dir / "chat.json.lock").exists()  # one lock, next to the real file


def test_a_symlink_to_a_missing_file_creates_the_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "target.json")
    FileChatMessageHistory(link).add_ai_message("hello")
    assert (
        link.is_symlink() and json.loads((tmp_path / "target.json").read_text())[0]["type"] == "ai"
    )


@pytest.mark.parametrize(
    "content, match",
    [
        (b"\xff\xfe not utf-8 \x80", "not valid utf-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"[1, 2]", r"message 0 .*expected a message object"),
        (b'{"type": "human"}', "not a JSON list of messages .found a dict"),
        (b'[{"type": "wizard", "data": {"content": "x"}}]', "message 0 .*unknown message type"),
        (b'[{"type": "human", "data": {"content": {"a": 1}}}]', "message 0 .*not a valid message"),
        (b'[{"type": "human", "data": [1]}]', "message 0 .*'data' is not an object"),
        (b'[{"type": "human", "data": {"content": "ok"}}, ', "not a JSON list of messages"),
    ],
)
def test_damaged_json_histories_raise_clear_errors(tmp_path, content, match):
    path = tmp_path / "chat.json"
    path.write_bytes(content)
    with pytest.raises(ChatHistoryError, match=match) as info:
        _ = FileChatMessageHistory(path).messages
    assert "chat.json" in str(info.value)


def test_skip_mode_loads_the_good_messages_and_keeps_the_bad_ones_on_disk(tmp_path):
    path = tmp_path / "chat.json"
    good = {"type": "human", "data": {"content": "good"}}
    path.write_text(json.dumps([good, {"type": "wizard"}, 7, good]))
    h = FileChatMessageHistory(path, on_error="skip")
    assert [m.content for m in h.messages] == ["good", "good"]
    assert len(h.skipped) == 2 and "message 1" in h.skipped[0] and "message 2" in h.skipped[1]
    h.add_ai_message("new")
    stored = json.loads(path.read_text())
    assert len(stored) == 5 and stored[1] == {"type": "wizard"} and stored[2] == 7  # not lost
    with pytest.raises(ConfigurationError, match="on_error"):
        FileChatMessageHistory(path, on_error="ignore")  # type: ignore[arg-type]


def test_a_folder_or_a_fifo_in_place_of_the_file_does_not_hang(tmp_path):
    folder = tmp_path / "dir.json"
    folder.mkdir()
    with pytest.raises(ChatHistoryError, match="is a folder"):
        _ = FileChatMessageHistory(folder).messages
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    result: list[BaseException] = []
    reader = threading.Thread(
        target=lambda: result.append(_raises(lambda: FileChatMessageHistory(fifo).messages)),
        daemon=True,
    )
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "reading a FIFO history hung"
    assert isinstance(result[0], ChatHistoryError) and "not a regular file" in str(result[0])


def _raises(fn):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001 - handed to the test
        return e
    return None


def test_a_writer_killed_before_its_rename_leaves_no_temp_file(tmp_path):
    path = tmp_path / "chat.json"
    FileChatMessageHistory(path).add_user_message("kept")
    child = run_child(
        f"""
        import os, signal
        from ragkit.chains import FileChatMessageHistory
        h = FileChatMessageHistory({str(path)!r})
        os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # die between fsync and rename
        h.add_user_message("lost")
        """
    )
    assert child.returncode == -9
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] != []  # what kill -9 left
    h = FileChatMessageHistory(path)  # opening cleans up
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []
    assert [m.content for m in h.messages] == ["kept"]


def test_a_message_that_cannot_be_encoded_writes_nothing(tmp_path):
    path = tmp_path / "chat.json"
    h = FileChatMessageHistory(path, ensure_ascii=False)
    h.add_user_message("before")
    with pytest.raises(ChatHistoryError, match="lone surrogate"):
        h.add_user_message("bad \ud800")
    assert [m.content for m in h.messages] == ["before"]
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []
    FileChatMessageHistory(tmp_path / "ascii.json").add_user_message("kept \ud800")  # escaped
    with pytest.raises(InputTypeError, match="item 0"):
        h.add_messages(["not a message"])  # type: ignore[list-item]
    with pytest.raises(TypeError):  # still what LangChain code catches
        h.add_messages([42])  # type: ignore[list-item]


# -- SQLite histories ------------------------------------------------------------------


def test_a_session_id_with_a_lone_surrogate_is_refused(tmp_path):
    with pytest.raises(ConfigurationError, match="not valid Unicode"):
        SQLiteChatMessageHistory("user-\udce9", tmp_path / "c.sqlite")


BAD_ROWS = [
    (
        "unknown type",
        json.dumps({"type": "wizard", "data": {"content": "x"}}),
        "unknown message type",
    ),
    ("wrong field type", json.dumps({"type": "ai", "data": {"content": 5}}), "not a valid message"),
    ("data not an object", json.dumps({"type": "ai", "data": "text"}), "'data' is not an object"),
    ("a list", json.dumps([1, 2]), "expected a message object"),
    ("deep nesting", "[" * 50_000 + "]" * 50_000, "nested too deeply"),
    ("not JSON", "{'python': 'repr'}", "not JSON"),
    ("invalid UTF-8", b"\xff\xfe\x00junk", "not UTF-8"),
    ("a number", 12345, "expected a message object, found int"),  # TEXT affinity: "12345"
]


def seeded(tmp_path: Path, bad: object) -> tuple[Path, int]:
    db = tmp_path / "chats.sqlite"
    h = SQLiteChatMessageHistory("s1", db)
    h.add_messages([HumanMessage("q1"), AIMessage(content="a1")])
    conn = sqlite3.connect(db)
    with conn:
        cur = conn.execute(
            "INSERT INTO message_store (session_id, message) VALUES ('s1', ?)", (bad,)
        )
    row = cur.lastrowid
    conn.close()
    h.add_messages([HumanMessage("q2")])
    return db, int(row or 0)


@pytest.mark.parametrize("name, bad, match", BAD_ROWS, ids=[b[0] for b in BAD_ROWS])
def test_one_bad_row_names_itself_and_can_be_skipped(tmp_path, name, bad, match):
    db, row = seeded(tmp_path, bad)
    with pytest.raises(ChatHistoryError, match=match) as info:
        _ = SQLiteChatMessageHistory("s1", db).messages
    assert f"row {row} of table 'message_store'" in str(info.value) and "chats.sqlite" in str(
        info.value
    )
    h = SQLiteChatMessageHistory("s1", db, on_error="skip")
    assert [m.content for m in h.messages] == ["q1", "a1", "q2"]
    assert len(h.skipped) == 1 and f"row {row}" in h.skipped[0]
    assert [m.content for m in SQLiteChatMessageHistory("other", db).messages] == []


def test_a_database_path_that_is_a_fifo_or_a_folder_is_refused(tmp_path):
    fifo = tmp_path / "fifo.sqlite"
    os.mkfifo(fifo)
    with pytest.raises(ChatHistoryError, match="not a regular file"):
        SQLiteChatMessageHistory("s", fifo)
    (tmp_path / "dir.sqlite").mkdir()
    with pytest.raises(ChatHistoryError, match="not a regular file"):
        SQLiteChatMessageHistory("s", tmp_path / "dir.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ChatHistoryError, match="junk.sqlite"):
        SQLiteChatMessageHistory("s", junk)
