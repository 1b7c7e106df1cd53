"""One way in for every index (ragkit.indexing.open): folder or URL decided once, the recorded
settings read on the connection the index then uses, a URL never read as a folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit._cli.settings import index_defaults
from ragkit.cli import main
from ragkit.errors import ConfigurationError
from ragkit.indexing import Index
from ragkit.indexing.folder.config_file import read_toml, write_toml
from ragkit.indexing.open import create_index, folder_defaults, open_index
from ragkit.indexing.postgres.index import PGIndex
from ragkit.stores.pgvector.client import PGClient


def _docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(3):
        (folder / f"f{i}.txt").write_text(f"file {i} is about gears and chains " * 4)
    return folder


def test_unset_settings_come_from_defaults_then_the_record_then_built_in(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    first = create_index(root, "hash-16", chunk_size=300, chunk_overlap=50)
    assert (first.embedding_name, first.settings.chunk_size) == ("hash-16", 300)
    assert first.settings.name == "recursive"  # built in
    again = create_index(root)  # a rerun keeps what the index recorded
    assert (again.embedding_name, again.settings.chunk_size) == ("hash-16", 300)
    data = read_toml(root / "ragkit.toml")
    data["defaults"] = {"chunk_size": 200}
    write_toml(root / "ragkit.toml", data)
    assert create_index(root).settings.chunk_size == 200  # the index's defaults win over it
    assert create_index(root, chunk_size=150).settings.chunk_size == 150  # and you over both
    assert open_index(root).config.model_id == first.config.model_id


def test_open_index_refuses_a_folder_that_is_not_an_index(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="is not a ragkit index"):
        open_index(tmp_path)


def test_index_defaults_of_a_url_never_read_a_folder_named_like_it(tmp_path, monkeypatch) -> None:
    url = "postgresql://app@db/rag?collection=manuals"
    monkeypatch.chdir(tmp_path)
    lookalike = Path(url)  # "postgresql:/app@db/rag?collection=manuals", a relative folder
    lookalike.mkdir(parents=True)
    write_toml(lookalike / "ragkit.toml", {"defaults": {"k": 9}})
    assert folder_defaults(lookalike) == {"k": 9}  # the folder is read as a folder
    assert index_defaults(url) == {} and folder_defaults(url) == {}


@pytest.mark.integration
def test_one_ragkit_index_into_postgres_connects_once(
    tmp_path, pg_dsn, pg_collection, pg_server, monkeypatch
) -> None:
    url = f"{pg_dsn}?collection={pg_collection}"
    docs = _docs(tmp_path / "docs")
    made: list[str] = []
    checked: list[str] = []
    init, check = PGClient.__init__, PGClient._check_server

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        made.append("client")
        init(self, *args, **kwargs)

    def counting_check(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        checked.append("check")
        check(self, *args, **kwargs)

    monkeypatch.setattr(PGClient, "__init__", counting_init)
    monkeypatch.setattr(PGClient, "_check_server", counting_check)
    # the local model caches its vectors in the collection: the cache shares the index's pool
    for run in ("new", "rerun"):
        made.clear(), checked.clear()
        args = ["index", str(docs), "--index", url, "--embedding", "local", "--quiet", "--json"]
        assert main(args) == 0, run
        assert (len(made), len(checked)) == (1, 1), run
    idx = Index.open(url)
    try:
        assert isinstance(idx, PGIndex) and idx.info()["documents"] == 3
    finally:
        idx.shutdown()


def test_a_rewrite_of_the_record_keeps_defaults_and_sections_ragkit_does_not_use(
    tmp_path: Path,
) -> None:
    root = tmp_path / "idx"
    create_index(root, "hash-16")
    data = read_toml(root / "ragkit.toml")
    data.update(defaults={"k": 6}, notes={"owner": "docs team"})
    write_toml(root / "ragkit.toml", data)
    report = open_index(root).add([_docs(tmp_path / "docs")])  # a commit rewrites ragkit.toml
    assert report.committed
    after = read_toml(root / "ragkit.toml")
    assert after["defaults"] == {"k": 6} and after["notes"] == {"owner": "docs team"}
    assert after["index"]["updated"] and after["splitter"]["chunk_size"] == 1000
