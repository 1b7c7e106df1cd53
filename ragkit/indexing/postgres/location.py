"""Where a PostgreSQL index lives: a connection URL plus the collection, in one string.

An index in PostgreSQL is named by its database URL with the collection (the PostgreSQL schema
holding the index's tables) as the query parameter ``collection``::

    postgresql://user:password@host:5432/dbname?collection=manuals

Without ``collection`` the collection is ``ragkit``. Other query parameters (``sslmode``,
``connect_timeout``, ...) are libpq's and pass through. :attr:`PGLocation.display` is the form
for messages and reprs: it never holds the password.

Example:
    >>> loc = PGLocation.parse("postgresql://app:s3cret@db:5433/rag?sslmode=disable&collection=bikes")
    >>> loc.collection, loc.display
    ('bikes', 'postgresql://app@db:5433/rag?collection=bikes')
    >>> loc.dsn
    'postgresql://app:s3cret@db:5433/rag?sslmode=disable'
    >>> is_index_url("my-index"), is_index_url("postgres://db/rag")
    (False, True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from ragkit.errors import ConfigurationError

#: The collection of an index URL without ``?collection=``.
DEFAULT_COLLECTION = "ragkit"
PARAM = "collection"


def is_index_url(value: object) -> bool:
    """Whether ``value`` names a PostgreSQL index (a ``postgresql://`` / ``postgres://`` URL)."""
    from ragkit.stores.pgvector.dsn import is_postgres_url

    if isinstance(value, os.PathLike):
        return False
    return is_postgres_url(value)


@dataclass(frozen=True)
class PGLocation:
    """A PostgreSQL index: ``dsn`` (secret: holds the password) and ``collection``."""

    dsn: str = field(repr=False)
    collection: str
    display: str

    @classmethod
    def parse(cls, url: str) -> PGLocation:
        """Split ``url`` into the connection string and the collection (see the module doc)."""
        from ragkit.stores.pgvector.dsn import Dsn
        from ragkit.stores.pgvector.schema import check_collection_name

        base, _, query = url.partition("?")
        query, _, fragment = query.partition("#")
        if fragment or "#" in base:
            raise ConfigurationError(
                "a PostgreSQL index URL names its collection with ?collection=NAME, not with a "
                "#fragment: postgresql://user:password@host:5432/dbname?collection=NAME"
            )
        kept: list[str] = []
        names: list[str] = []
        for item in query.split("&") if query else []:
            key, _, value = item.partition("=")
            if unquote(key) == PARAM:
                names.append(unquote(value))
            elif item:
                kept.append(item)
        if len(names) > 1:
            raise ConfigurationError(
                "a PostgreSQL index URL names one collection; ?collection= is given "
                f"{len(names)} times"
            )
        collection = names[0] if names else DEFAULT_COLLECTION
        try:
            check_collection_name(collection)
        except ConfigurationError as err:
            raise ConfigurationError(f"?collection= of the index URL: {err}") from None
        dsn = base + ("?" + "&".join(kept) if kept else "")
        shown = Dsn(dsn).display  # raises (without the password) when the URL is malformed
        return cls(dsn=dsn, collection=collection, display=f"{shown}?{PARAM}={quote(collection)}")

    def __str__(self) -> str:
        return self.display

    def secret_url(self) -> str:
        """The full index URL, password included: for opening the index elsewhere (a worker
        process), never for printing."""
        joiner = "&" if "?" in self.dsn else "?"
        return f"{self.dsn}{joiner}{PARAM}={quote(self.collection, safe='')}"


def shown(index: object) -> str:
    """``index`` (a folder or an index URL) as it may be printed: URLs without their password."""
    if is_index_url(index):
        try:
            return PGLocation.parse(str(index)).display
        except ConfigurationError:
            return "postgresql://***"
    return os.fspath(index) if isinstance(index, (str, os.PathLike)) else str(index)
