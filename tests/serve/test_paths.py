"""Result paths never leave the indexed folders: unit rules, and through a real server."""

from __future__ import annotations

import json
import os
import shutil

import httpx
import pytest

from ragkit.indexing.index_dir import Index
from ragkit.serve import create_app
from ragkit.serve.paths import SourcePaths, infer_roots
from tests.serve.helpers import DOCS, ServerThread, cli_server


def test_paths_are_shown_relative_to_the_roots():
    paths = SourcePaths(["/srv/docs", "/srv/docs/private-notes", "/data"])
    assert paths.show("/srv/docs/a/b.md") == "a/b.md"
    assert paths.show("/srv/docs/private-notes/x.md") == "x.md"  # the deepest root wins
    assert paths.show("/data/c.txt") == "c.txt"
    for hidden in ("/srv/docsX/a.md", "/etc/passwd", "/srv/docs", "/srv/docs/../etc/passwd"):
        assert paths.show(hidden) is None, hidden
    for hidden in ("../up.md", "a/../../up.md", "C:\\Users\\me\\a.md", "\\\\host\\share\\a.md"):
        assert paths.show(hidden) is None, hidden
    assert paths.show("a/./b.md") == "a/b.md"
    assert paths.show("https://example.org/page?x=1") == "https://example.org/page?x=1"
    assert paths.show(None) is None and paths.show(3) is None and paths.show("") is None
    meta = {
        "source": "/srv/docs/a.md",
        "duplicates": ["/srv/docs/b.md", "/home/me/copy.md"],
        "parent": "/var/lib/x",
        "page": 3,
        "title": "Brakes / pads",
    }
    assert paths.clean(meta) == {
        "source": "a.md",
        "duplicates": ["b.md"],
        "page": 3,
        "title": "Brakes / pads",
    }
    assert SourcePaths(["/"]).show("/etc/x") == "etc/x"


def test_roots_are_inferred_from_the_indexed_files():
    assert infer_roots(["/a/b/c.md", "/a/b/d/e.md"]) == ("/a/b",)
    assert infer_roots(["/a/b/c.md", "/a/x/y.md"]) == ("/a",)
    assert infer_roots(["notes/a.md"]) == ()
    assert infer_roots([]) == ()


@pytest.mark.integration
def test_a_server_on_two_folders_shows_no_absolute_path(tmp_path):
    one, two = tmp_path / "kb" / "manuals", tmp_path / "kb" / "faq"
    for folder, names in ((one, ["bc01.md", "bc02.md"]), (two, ["bc08.md", "bc09.md"])):
        folder.mkdir(parents=True)
        for name in names:
            shutil.copy(DOCS / name, folder / name)
    index = tmp_path / "index"
    Index.create(index, embeddings="hash").add([one, two])
    with ServerThread(create_app(index)) as server:
        data = httpx.post(server.url + "/query", json={"query": "brake tyre", "k": 4}).json()
        sources = sorted(r["source"] for r in data["results"])
        assert sources == ["faq/bc08.md", "faq/bc09.md", "manuals/bc01.md", "manuals/bc02.md"]
        docs = httpx.post(server.url + "/retriever/invoke", json={"input": "brake"}).json()
        info = httpx.get(server.url + "/info").json()
        for text in (json.dumps(data), json.dumps(docs), json.dumps(info)):
            assert str(tmp_path) not in text
        flt = {"source": "faq/bc08.md"}
        only = httpx.post(server.url + "/query", json={"query": "brake", "filter": flt}).json()
        assert [r["source"] for r in only["results"]] == ["faq/bc08.md"]
    # --root narrows what may be shown: files outside it keep their text but lose their path
    with cli_server(index, "--root", one) as (url, _):
        data = httpx.post(url + "/query", json={"query": "brake tyre", "k": 4}).json()
        shown = sorted(str(r["source"]) for r in data["results"])
        assert shown == ["None", "None", "bc01.md", "bc02.md"]
        assert str(tmp_path) not in json.dumps(data)
        assert all("source" not in r["metadata"] for r in data["results"] if r["source"] is None)


@pytest.mark.integration
def test_symlinks_out_of_the_folder_are_not_served(tmp_path):
    docs, outside = tmp_path / "docs", tmp_path / "secret"
    docs.mkdir()
    outside.mkdir()
    shutil.copy(DOCS / "bc01.md", docs / "bc01.md")
    (outside / "keys.md").write_text("the vault code is XYZZY-PLUGH tyre", encoding="utf-8")
    os.symlink(outside / "keys.md", docs / "keys.md")
    index = tmp_path / "index"
    Index.create(index, embeddings="hash").add([docs])
    with ServerThread(create_app(index)) as server:
        data = httpx.post(server.url + "/query", json={"query": "vault code tyre", "k": 5}).json()
    assert [r["source"] for r in data["results"]] == ["bc01.md"]
    assert "XYZZY" not in json.dumps(data)  # not hex: a chunk id cannot hold it by chance
