"""Issue 26 lists `.org` and `.rst`: both are read as the text they are (TextLoader), by
DirectoryLoader and by `ragkit index` alike. (`ragkit index` used to pass `.org` files by,
"no loader for this file type": the 5 of the real mixed folder among them.)"""

from __future__ import annotations

import json
from pathlib import Path

from ragkit.loaders import DirectoryLoader, TextLoader
from ragkit.loaders.directory import default_loader
from tests.cli.helpers import ragkit

ORG = "* Tasks\n** TODO Wax the chain\n   SCHEDULED: <2026-11-30 Mon>\n"
RST = "Brakes\n======\n\nBleed hydraulic brakes every *eighteen* months.\n"


def test_org_and_rst_are_read_as_text(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "todo.org").write_text(ORG, encoding="utf-8")
    (docs / "brakes.rst").write_text(RST, encoding="utf-8")
    for name in ("todo.org", "brakes.rst"):
        assert isinstance(default_loader(str(docs / name)), TextLoader)
    loader = DirectoryLoader(docs)
    texts = {Path(d.metadata["source"]).name: d.page_content for d in loader.load()}
    assert loader.errors == [] and texts == {"todo.org": ORG, "brakes.rst": RST}

    out = ragkit("index", docs, "--index", tmp_path / "idx", "--embedding", "hash", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files_loaded"] == 2
