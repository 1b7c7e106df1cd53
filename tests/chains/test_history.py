"""Chat histories on real files and real SQLite, across real processes."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from ragkit.chains import (
    ChatHistoryError,
    ChatMessageHistory,
    FileChatMessageHistory,
    SQLiteChatMessageHistory,
)
from ragkit.errors import ConfigurationError
from ragkit.messages import AIMessage, HumanMessage, ToolMessage
from tests.chains.chain_helpers import run_python


def test_in_memory_history():
    h = ChatMessageHistory()
    h.add_user_message("hi")
    h.add_ai_message(AIMessage(content="hello"))
    assert [(m.type, m.content) for m in h.messages] == [("human", "hi"), ("ai", "hello")]
    h.clear()
    assert h.messages == []
    with pytest.raises(TypeError, match="item 0"):
        h.add_messages(["not a message"])  # type: ignore[list-item]


def test_file_history_round_trips_every_message_kind(tmp_path: Path):
    path = tmp_path / "chat.json"
    h = FileChatMessageHistory(path)
    assert json.loads(path.read_text()) == []
    msgs = [
        HumanMessage("Größe?"),
        AIMessage(
            content="",
            tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}],
            usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        ),
        ToolMessage(content="42", tool_call_id="c1", status="error"),
    ]
    h.add_messages(msgs)
    again = FileChatMessageHistory(path).messages
    assert again == msgs
    assert "\\u00f6" in path.read_text()  # ensure_ascii default, like LangChain
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []  # no temp files left
    h.clear()
    assert h.messages == []


def test_file_history_reports_a_corrupt_file_and_a_missing_folder(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"type": "human", "data": {"content": "x"}}, ')
    with pytest.raises(ChatHistoryError, match="bad.json.*fix or delete"):
        _ = FileChatMessageHistory(bad).messages
    with pytest.raises(ChatHistoryError, match="does not exist"):
        FileChatMessageHistory(tmp_path / "nope" / "chat.json")


def test_file_history_is_readable_by_langchain_and_the_other_way_round(tmp_path: Path):
    from langchain_community.chat_message_histories import FileChatMessageHistory as LCFile
    from langchain_core.messages import AIMessage as LCAI
    from langchain_core.messages import HumanMessage as LCHuman

    theirs = LCFile(str(tmp_path / "lc.json"))
    theirs.add_messages([LCHuman(content="q"), LCAI(content="a")])
    assert [(m.type, m.content) for m in FileChatMessageHistory(tmp_path / "lc.json").messages] == [
        ("human", "q"),
        ("ai", "a"),
    ]
    ours = FileChatMessageHistory(tmp_path / "ours.json")
    ours.add_messages([HumanMessage("q2"), AIMessage(content="a2")])
    assert [(m.type, m.content) for m in LCFile(str(tmp_path / "ours.json")).messages] == [
        ("human", "q2"),
        ("ai", "a2"),
    ]


WRITER = """
import sys, time
from pathlib import Path
from ragkit.chains import FileChatMessageHistory, SQLiteChatMessageHistory
from ragkit.messages import HumanMessage
kind, target, go, name = sys.argv[1:5]
h = FileChatMessageHistory(target) if kind == "file" else SQLiteChatMessageHistory("shared", target)
for _ in range(3000):
    if Path(go).exists():
        break
    time.sleep(0.01)
for i in range(15):
    h.add_message(HumanMessage(f"{name}-{i}"))
print("done")
"""


@pytest.mark.parametrize("kind", ["file", "sqlite"])
def test_concurrent_writer_processes_lose_nothing(tmp_path: Path, kind: str):
    target = tmp_path / ("chat.json" if kind == "file" else "chats.sqlite")
    (
        FileChatMessageHistory(target)
        if kind == "file"
        else SQLiteChatMessageHistory("shared", target)
    )
    go = tmp_path / "go"
    procs = [run_python(WRITER, kind, str(target), str(go), f"w{n}", wait=False) for n in range(4)]
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    history = (
        FileChatMessageHistory(target)
        if kind == "file"
        else SQLiteChatMessageHistory("shared", target)
    )
    contents = [m.content for m in history.messages]
    assert len(contents) == 60
    for n in range(4):  # every writer's messages are all there, in its own order
        assert [c for c in contents if c.startswith(f"w{n}-")] == [f"w{n}-{i}" for i in range(15)]


def test_concurrent_writer_threads_on_sqlite_lose_nothing(tmp_path: Path):
    db = tmp_path / "t.sqlite"

    def write(n: int) -> None:
        h = SQLiteChatMessageHistory(f"s{n % 2}", db)
        for i in range(20):
            h.add_messages([HumanMessage(f"{n}-{i}"), AIMessage(content=f"r{n}-{i}")])

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s0, s1 = (
        SQLiteChatMessageHistory("s0", db).messages,
        SQLiteChatMessageHistory("s1", db).messages,
    )
    assert len(s0) == len(s1) == 80
    # the pair written in one call stays adjacent
    for msgs in (s0, s1):
        for human, ai in zip(msgs[::2], msgs[1::2]):
            assert ai.content == "r" + human.content


def test_sqlite_history_uses_wal_keeps_sessions_apart_and_reports_bad_rows(tmp_path: Path):
    db = tmp_path / "c.sqlite"
    a = SQLiteChatMessageHistory("a", db)
    b = SQLiteChatMessageHistory("b", connection_string=f"sqlite:///{db}")
    a.add_user_message("for a")
    b.add_user_message("for b")
    a.clear()
    assert a.messages == [] and [m.content for m in b.messages] == ["for b"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.execute("INSERT INTO message_store (session_id, message) VALUES ('b', 'not json')")
    with pytest.raises(ChatHistoryError, match="message_store"):
        _ = b.messages
    with pytest.raises(ConfigurationError, match="identifier"):
        SQLiteChatMessageHistory("a", db, table_name="x; DROP TABLE y")
    with pytest.raises(ConfigurationError, match="db_path"):
        SQLiteChatMessageHistory("a")


def test_history_written_in_one_process_is_read_in_another(tmp_path: Path):
    db, path = tmp_path / "h.sqlite", tmp_path / "h.json"
    run_python(
        """
        import sys
        from ragkit.chains import FileChatMessageHistory, SQLiteChatMessageHistory
        from ragkit.messages import HumanMessage, AIMessage
        for h in (SQLiteChatMessageHistory("s", sys.argv[1]), FileChatMessageHistory(sys.argv[2])):
            h.add_messages([HumanMessage("from child"), AIMessage(content="child reply")])
        """,
        str(db),
        str(path),
    )
    for h in (SQLiteChatMessageHistory("s", db), FileChatMessageHistory(path)):
        assert [m.content for m in h.messages] == ["from child", "child reply"]
        h.add_user_message("from parent")
    out = run_python(
        """
        import sys, json
        from ragkit.chains import FileChatMessageHistory, SQLiteChatMessageHistory
        print(json.dumps([[m.content for m in h.messages] for h in
              (SQLiteChatMessageHistory("s", sys.argv[1]), FileChatMessageHistory(sys.argv[2]))]))
        """,
        str(db),
        str(path),
    )
    assert json.loads(out.stdout) == [["from child", "child reply", "from parent"]] * 2
