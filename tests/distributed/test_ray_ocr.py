"""OCR on the Ray engine: `ragkit index --engine ray` on the session's real local cluster reads a
scanned PDF and a PNG of known text inside the cluster's read tasks (each worker builds its own
OCR engine from the rapidocr wheel), and the text is found by a query; the local engine gives
the same chunks. Word recall as in tests/loaders/test_ocr.py (at least 0.9)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragkit import Index
from tests.loaders.conftest import text_image, write_scanned_pdf
from tests.loaders.test_ocr import BRAKES, CHAIN, TYRES, recall


def write_scans(root: Path) -> Path:
    root.mkdir()
    write_scanned_pdf(root / "scan.pdf", [CHAIN, TYRES])
    text_image(BRAKES).save(root / "notice.png")
    (root / "typed.md").write_text(
        "# Saddles\n\nSaddle height is set with the leg almost straight.\n"
    )
    return root


def chunks(index_dir: Path) -> dict[tuple[str, object], tuple[str, dict]]:
    with Index.open(index_dir) as idx:
        store = idx.vectorstore
        docs = store.get_by_ids(list(store.ids))
    return {
        (Path(d.metadata["source"]).name, d.metadata.get("page")): (d.page_content, d.metadata)
        for d in docs
    }


def ragkit(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragkit", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_scans_are_read_by_ocr_on_the_ray_workers(ray_cluster: str, tmp_path: Path) -> None:
    docs = write_scans(tmp_path / "docs")
    far = tmp_path / "ray-index"
    cli = ragkit(
        "index", docs, "--index", far, "--embedding", "hash-64", "--engine", "ray",
        "--address", ray_cluster, "--json",
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    report = json.loads(cli.stdout)
    assert report["failures"] == [] and report["files_loaded"] == 3, report
    got = chunks(far)
    pdf_pages = {page: got[("scan.pdf", page)] for page in (0, 1)}
    for (text, meta), lines in zip(pdf_pages.values(), (CHAIN, TYRES)):
        assert meta["ocr"] is True and meta["total_pages"] == 2
        assert recall(lines, text) >= 0.9, text
    [(image_text, image_meta)] = [v for k, v in got.items() if k[0] == "notice.png"]
    assert recall(BRAKES, image_text) >= 0.9 and image_meta["ocr_confidence"] > 0.8

    found = ragkit(
        "query", far, "tyre pressure road bikes", "--retriever", "bm25", "-k", "1", "--json"
    )
    assert found.returncode == 0, found.stderr
    [hit] = json.loads(found.stdout)["results"]
    assert Path(hit["metadata"]["source"]).name == "scan.pdf" and hit["metadata"]["page"] == 1

    local = tmp_path / "local-index"
    Index.create(local, "hash-64").add([docs])
    assert {k: v[0] for k, v in chunks(local).items()} == {k: v[0] for k, v in got.items()}
