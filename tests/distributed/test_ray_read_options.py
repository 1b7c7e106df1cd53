"""`ragkit index --engine ray --password-file FILE --max-image-pixels N`: the reading options
travel to the cluster's read tasks: encrypted Office files and PDFs are opened there with the
password (never shown), and an image over the pixel bound is refused there, as locally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.distributed.test_ray_ocr import chunks, ragkit
from tests.loaders.conftest import write_pdf
from tests.loaders.test_office_passwords import PASSWORD, encrypt, office_files


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_password_and_pixel_bound_on_the_ray_workers(ray_cluster: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    plain, _ = office_files(tmp_path / "plain")[".xlsx"]
    encrypt(plain, docs / "pay.xlsx")
    write_pdf(docs / "locked.pdf", ["Locked gearbox note"], password=PASSWORD)
    Image.new("L", (3000, 2000), 255).save(docs / "wide.png")
    pass_file = tmp_path / "docs.pass"
    pass_file.write_text(PASSWORD + "\n", encoding="utf-8")
    far = tmp_path / "ray-index"
    cli = ragkit(
        "index", docs, "--index", far, "--embedding", "hash-64", "--engine", "ray",
        "--address", ray_cluster, "--password-file", pass_file,
        "--max-image-pixels", "1000000", "--json",
    )  # fmt: skip
    assert "Traceback" not in cli.stderr and PASSWORD not in cli.stdout + cli.stderr
    report = json.loads(cli.stdout)
    assert report["files_loaded"] == 2, report
    [failure] = report["failures"]
    assert (
        Path(failure["path"]).name == "wide.png"
        and "over max_pixels=1,000,000" in (failure["error"])
    )
    texts = {name: text for (name, _page), (text, _meta) in chunks(far).items()}
    assert "| Ada | 5100 |" in texts["pay.xlsx"] and "Locked gearbox note" in texts["locked.pdf"]
