"""Connection strings: parse once, show without the password, scrub it from any message.

A DSN may be a URL (``postgresql://user:secret@host:5432/db``) or libpq's ``key=value`` form.
:class:`Dsn` keeps the original string for connecting and offers :attr:`Dsn.display`, a form
without the password, for reprs, logs and error messages. :meth:`Dsn.scrub` removes the
password (in plain and URL-encoded form) from any text, e.g. a driver's error message.

Example:
    >>> dsn = Dsn("postgresql://app:s3cret@db.example:5433/rag")
    >>> dsn.display
    'postgresql://app@db.example:5433/rag'
    >>> dsn.scrub("login failed for s3cret")
    'login failed for ***'
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ragkit.errors import ConfigurationError

URL_PREFIXES = ("postgresql://", "postgres://", "postgresql+psycopg://")


def is_postgres_url(value: object) -> bool:
    """Whether ``value`` is a PostgreSQL URL (``postgresql://...`` or ``postgres://...``)."""
    return isinstance(value, str) and value.startswith(URL_PREFIXES)


class Dsn:
    """A PostgreSQL connection string whose password never shows (see the module doc)."""

    __slots__ = ("_conninfo", "_password", "params", "display", "host", "port", "dbname", "user")

    def __init__(self, conninfo: str) -> None:
        if not isinstance(conninfo, str) or not conninfo.strip():
            raise ConfigurationError(
                "connection must be a PostgreSQL connection string such as "
                "'postgresql://user:password@host:5432/dbname'"
            )
        if conninfo.startswith("postgresql+psycopg://"):  # SQLAlchemy's spelling (LangChain's docs)
            conninfo = "postgresql://" + conninfo[len("postgresql+psycopg://") :]
        from psycopg.conninfo import conninfo_to_dict

        try:
            params = conninfo_to_dict(conninfo)
        except Exception:  # the driver's message may quote the password: do not chain it
            raise ConfigurationError(
                "the PostgreSQL connection string is malformed (details withheld because they may "
                "contain the password); expected 'postgresql://user:password@host:5432/dbname' or "
                "'host=... port=... dbname=... user=... password=...', with special characters "
                "in a URL percent-encoded"
            ) from None
        self._conninfo = conninfo
        self._password = str(params.get("password") or "")
        self.params: dict[str, Any] = {k: v for k, v in params.items() if k != "password"}
        self.display = _display(self.params)
        # where the connection goes, with libpq's defaults for what the string leaves out
        self.host = _first(self.params, "host", "hostaddr") or "localhost"
        self.port = _first(self.params, "port") or "5432"
        self.dbname = _first(self.params, "dbname", "user") or "postgres"
        self.user = _first(self.params, "user")

    @property
    def conninfo(self) -> str:
        """The string to connect with (includes the password: never print it)."""
        return self._conninfo

    def scrub(self, text: str) -> str:
        """``text`` with every occurrence of the password (plain or URL-encoded) replaced by ***."""
        secret = self._password
        if not secret:
            return text
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            text = text.replace(form, "***")
        return text

    def __repr__(self) -> str:
        return f"Dsn({self.display!r})"

    def __str__(self) -> str:
        return self.display

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dsn) and other._conninfo == self._conninfo

    def __hash__(self) -> int:
        return hash(self._conninfo)


def _first(params: dict[str, Any], *keys: str) -> str:
    """The first of ``keys`` that ``params`` sets, as text ("" when none is set)."""
    return next((str(params[k]) for k in keys if params.get(k)), "")


def _display(params: dict[str, Any]) -> str:
    host = _first(params, "host", "hostaddr")
    user = _first(params, "user")
    port = _first(params, "port")
    dbname = _first(params, "dbname")
    if "/" in host or "," in host:  # a Unix socket directory or several hosts
        return f"postgresql://{quote(user, safe='')}@/{quote(dbname, safe='')}?host={host}"
    netloc = (quote(user, safe="") + "@" if user else "") + host + (f":{port}" if port else "")
    return f"postgresql://{netloc}/{quote(dbname, safe='')}"
