"""SQLiteChatMessageHistory: many conversations in one SQLite file, safe under concurrent writers.

Rows of ``(id, session_id, message)`` with the message as JSON (the table
layout of LangChain's ``SQLChatMessageHistory``). The database runs in WAL
mode; each append is one ``BEGIN IMMEDIATE`` transaction, so writers in
several threads or processes queue up (``timeout`` seconds at most) instead
of failing, and readers are never blocked.

A row that cannot be read (not JSON, not UTF-8, nested too deeply, an unknown
message type, fields of the wrong type) raises a
:class:`~ragkit.errors.ChatHistoryError` naming the database, the table and
the row id; with ``on_error="skip"`` it is left out and listed in
``history.skipped``, and the session's other messages load. A session id must
be valid Unicode, and ``db_path`` a regular file (or a new one).

Example:
    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "chats.sqlite")
    >>> SQLiteChatMessageHistory("s1", db).add_ai_message("hello")
    >>> [m.content for m in SQLiteChatMessageHistory("s1", db).messages]
    ['hello']
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

from ragkit.chains.history.base import (
    BaseChatMessageHistory,
    OnError,
    _checked,
    check_on_error,
    decode_messages,
    logger,
    sql_row_fix,
)
from ragkit.errors import ChatHistoryError, ConfigurationError
from ragkit.messages import BaseMessage, message_to_dict


def _db_path(db_path: str | os.PathLike[str] | None, connection_string: str | None) -> Path:
    if db_path is not None:
        return Path(db_path)
    if connection_string and connection_string.startswith("sqlite:///"):
        return Path(connection_string[len("sqlite:///") :])
    raise ConfigurationError(
        "SQLiteChatMessageHistory needs db_path='chats.sqlite' (or connection_string='sqlite:///chats.sqlite')"
    )


class SQLiteChatMessageHistory(BaseChatMessageHistory):
    """The messages of ``session_id`` in table ``table_name`` of the SQLite file ``db_path``."""

    def __init__(
        self,
        session_id: str,
        db_path: str | os.PathLike[str] | None = None,
        *,
        connection_string: str | None = None,
        table_name: str = "message_store",
        timeout: float = 30.0,
        on_error: OnError = "raise",
    ) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", table_name):
            raise ConfigurationError(
                f"table_name {table_name!r} must be a plain SQL identifier (letters, digits, _)"
            )
        if not isinstance(session_id, str) or not session_id:
            raise ConfigurationError(f"session_id must be a non-empty string, got {session_id!r}")
        try:
            session_id.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ConfigurationError(
                f"session_id {session_id!r} is not valid Unicode (a lone surrogate at position "
                f"{e.start}); use a session id that can be stored as UTF-8"
            ) from None
        self.on_error = check_on_error(on_error, "SQLiteChatMessageHistory")
        self.skipped: list[str] = []
        self.session_id = session_id
        self.db_path = _db_path(db_path, connection_string)
        self.table_name = table_name
        self.timeout = timeout
        if not self.db_path.parent.is_dir():
            raise ChatHistoryError(
                f"Chat history folder {str(self.db_path.parent)!r} does not exist; create it first"
            )
        if self.db_path.exists() and not self.db_path.is_file():
            raise ChatHistoryError(  # a FIFO would hang SQLite, a folder cannot be opened
                f"Chat history database {str(self.db_path)!r} is not a regular file; point "
                "db_path at an SQLite file (or a new path)"
            )
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {table_name} "
                "(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message TEXT NOT NULL)"
            )
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS {table_name}_session ON {table_name} (session_id, id)"
            )

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(self.db_path, timeout=self.timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise ChatHistoryError(
                f"Cannot open chat history database {str(self.db_path)!r}: {e}"
            ) from e
        try:
            conn.execute("PRAGMA synchronous=NORMAL")
            yield conn
        except sqlite3.DatabaseError as e:
            raise ChatHistoryError(
                f"Chat history database {str(self.db_path)!r} (table {self.table_name!r}) failed: {e}"
            ) from e
        finally:
            conn.close()

    def _where(self, row_id: object) -> str:
        return f"row {row_id} of table {self.table_name!r} in {str(self.db_path)!r}"

    def _fix(self, where: str) -> str:
        return sql_row_fix(self.table_name)

    @property
    def messages(self) -> list[BaseMessage]:
        with self._connect() as conn:
            conn.text_factory = bytes  # decoded per row below, so one bad row names itself
            rows = conn.execute(
                f"SELECT id, message FROM {self.table_name} WHERE session_id = ? ORDER BY id",
                (self.session_id,),
            ).fetchall()
        self.skipped = []
        located = []
        for row_id, raw in rows:
            where = self._where(row_id)
            try:
                if not isinstance(raw, bytes):
                    raise ValueError(f"the message column holds a {type(raw).__name__}, not text")
                located.append((where, json.loads(raw.decode("utf-8"))))
            except RecursionError:
                self._bad_row(where, "its JSON is nested too deeply")
            except UnicodeDecodeError as e:
                self._bad_row(where, f"it is not UTF-8 text ({e.reason} at byte {e.start})")
            except ValueError as e:
                self._bad_row(where, f"it is not JSON ({' '.join(str(e).split())[:200]})")
        return decode_messages(located, self.on_error, self.skipped, self._fix)

    def _bad_row(self, where: str, why: str) -> None:
        reason = f"{where} is not a valid message: {why}"
        if self.on_error == "raise":
            raise ChatHistoryError(f"{reason}; {self._fix(where)}")
        self.skipped.append(reason)
        logger.warning("skipped %s", reason)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        rows = [(self.session_id, json.dumps(message_to_dict(m))) for m in _checked(messages)]
        if not rows:
            return
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    f"INSERT INTO {self.table_name} (session_id, message) VALUES (?, ?)", rows
                )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def clear(self) -> None:
        with self._connect() as conn:
            conn.execute(f"DELETE FROM {self.table_name} WHERE session_id = ?", (self.session_id,))
