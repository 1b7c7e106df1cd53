"""SQLiteCache: replies kept as JSON in a SQLite file, shared by processes and runs.

One row per (prompt, model): the SHA-256 of each as the key, the texts beside them, and the
generations as JSON (no pickle). Writes are one statement each under SQLite's own locking,
so concurrent writers (threads or processes) do not corrupt the file.

Example:
    >>> import tempfile, os
    >>> from ragkit.models.outputs import Generation
    >>> path = os.path.join(tempfile.mkdtemp(), "cache.db")
    >>> SQLiteCache(path).update("p", "m", [Generation(text="a")])
    >>> SQLiteCache(path).lookup("p", "m")[0].text
    'a'
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from ragkit.caches.base import (
    RETURN_VAL_TYPE,
    BaseCache,
    check_json,
    digest,
    generations_from_json,
)
from ragkit.errors import StoreError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_cache (
    prompt_key TEXT NOT NULL,
    llm_key TEXT NOT NULL,
    prompt TEXT NOT NULL,
    llm_string TEXT NOT NULL,
    generations TEXT NOT NULL,
    PRIMARY KEY (prompt_key, llm_key)
)
"""


class SQLiteCache(BaseCache):
    """LangChain's ``SQLiteCache(database_path=...)``, storing JSON."""

    def __init__(self, database_path: str = ".ragkit_llm_cache.db") -> None:
        self.database_path = str(database_path)
        Path(self.database_path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._connect() as conn:
            conn.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.database_path, timeout=30)
            except sqlite3.Error as err:
                raise StoreError(
                    f"{self.database_path}: cannot open the LLM cache: {err}"
                ) from None
            conn.execute("PRAGMA journal_mode=WAL")
            self._local.conn = conn
        return conn

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        row = (
            self._connect()
            .execute(
                "SELECT prompt, llm_string, generations FROM llm_cache WHERE prompt_key=? AND llm_key=?",
                (digest(prompt), digest(llm_string)),
            )
            .fetchone()
        )
        if row is None or row[0] != prompt or row[1] != llm_string:
            return None
        return generations_from_json(row[2])

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        data = check_json(return_val)
        with self._connect() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO llm_cache VALUES (?, ?, ?, ?, ?)",
                (digest(prompt), digest(llm_string), prompt, llm_string, data),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._connect() as conn:
            conn.execute("DELETE FROM llm_cache")


__all__ = ["SQLiteCache"]
