"""Gzip-compressed files read transparently by DirectoryLoader and ``ragkit index``, bombs refused."""

from __future__ import annotations

import gzip
import shutil
import zlib
from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders import DirectoryLoader, GzipFileLoader
from ragkit.loaders.gzip_file import content_extension, gunzip
from tests.cli.helpers import ragkit

FILES = {
    "guide.md": "# Tubeless\n\nTop up the sealant every three months.\n\n## Plugs\n\nUse a plug for big holes.\n",
    "notes.txt": "Chain wax lasts longer in dry weather.\r\nRe-wax every 300 km.\n",
    "parts.csv": "part,price\nchain,30\ncassette,80\n",
    "page.html": "<html><head><title>Brakes</title></head><body><p>Bed in new pads.</p></body></html>",
    "rows.jsonl": '{"text": "first row"}\n{"text": "second row"}\n',
    "script.py": "def pump(psi):\n    return psi * 0.069\n",
    "latin.txt": None,  # written in cp1252 below
}


def make_pair(tmp_path: Path) -> tuple[Path, Path]:
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    plain.mkdir()
    packed.mkdir()
    for name, text in FILES.items():
        data = "caf\u00e9 \u20ac".encode("cp1252") if text is None else text.encode("utf-8")
        (plain / name).write_bytes(data)
        (packed / (name + ".gz")).write_bytes(gzip.compress(data))
    return plain, packed


def _key(doc, root: Path) -> tuple:
    meta = {k: v for k, v in doc.metadata.items() if k != "source"}
    name = Path(doc.metadata["source"]).name.removesuffix(".gz")
    return name, doc.page_content, sorted(meta.items())


def test_directory_loader_reads_gz_files_as_their_inner_type(tmp_path: Path) -> None:
    plain, packed = make_pair(tmp_path)
    expected = sorted(_key(d, plain) for d in DirectoryLoader(plain).load())
    loader = DirectoryLoader(packed)
    docs = loader.load()
    assert loader.errors == []
    assert sorted(_key(d, packed) for d in docs) == expected
    assert all(d.metadata["source"].endswith(".gz") for d in docs)
    csv_rows = [d for d in docs if "parts.csv" in d.metadata["source"]]
    assert [d.metadata["row"] for d in csv_rows] == [0, 1]
    assert (
        "Bed in new pads."
        in next(d for d in docs if "page.html" in d.metadata["source"]).page_content
    )


def test_a_gzip_bomb_is_stopped_at_the_size_limit(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = bomb.compress(b"\0" * (64 * 1024 * 1024)) + bomb.flush()
    assert len(data) < 100_000
    (folder / "bomb.txt.gz").write_bytes(data)
    (folder / "ok.txt.gz").write_bytes(gzip.compress(b"fine"))
    loader = DirectoryLoader(folder, max_file_size=1024 * 1024)
    docs = loader.load()
    assert [d.page_content for d in docs] == ["fine"]
    assert len(loader.errors) == 1 and loader.errors[0].path.endswith("bomb.txt.gz")
    assert "decompresses to more than the file size limit of 1 MiB" in loader.errors[0].reason


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not gzip at all", "not a valid gzip file"),
        (gzip.compress(b"hello world" * 100, mtime=0)[:-20], "truncated"),  # ids alike in every run
        (b"", "empty"),
    ],
)
def test_damaged_gzip_files_are_loader_errors(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "bad.md.gz"
    path.write_bytes(data)
    with pytest.raises(LoaderError, match=message) as info:
        GzipFileLoader(path).load()
    assert info.value.path == str(path)


def test_members_binary_content_and_naming(tmp_path: Path) -> None:
    two = tmp_path / "two.txt.gz"
    two.write_bytes(gzip.compress(b"first ") + gzip.compress(b"second"))
    assert GzipFileLoader(two).load()[0].page_content == "first second"
    assert gunzip(gzip.compress(b"x") + b"\0\0garbage", "g") == b"x"
    binary = tmp_path / "image.txt.gz"
    binary.write_bytes(gzip.compress(b"\x89PNG\x00\x00\x01" * 100))
    with pytest.raises(LoaderError, match="binary"):
        GzipFileLoader(binary).load()
    assert content_extension("A/B.Tar.GZ") == ".tar" and content_extension("x.json") == ".json"


@pytest.mark.integration
def test_ragkit_index_reads_gz_files(tmp_path: Path) -> None:
    plain, packed = make_pair(tmp_path)
    (packed / "archive.tar.gz").write_bytes(gzip.compress(b"\0" * 1000))  # an empty tar
    (packed / "blob.bin").write_bytes(b"\x00\x01" * 100)
    idx = tmp_path / "idx"
    run = ragkit("index", packed, "--index", idx, "--embedding", "hash", "--json", check_json=True)
    assert run.returncode == 0, run.stderr
    data = run.data
    # a .tar.gz is an archive (read by ArchiveLoader, here with no members), not gzipped text
    assert data["failures"] == [] and data["files_loaded"] == len(FILES) + 1
    ignored = {Path(i["path"]).name: i["code"] for i in data["ignored"]}
    assert ignored == {"archive.tar.gz": "no-text", "blob.bin": "no-loader"}
    hit = ragkit("query", idx, "sealant three months", "-k", "1", "--json", check_json=True)
    result = hit.data["results"][0]
    assert result["source"].endswith("guide.md.gz") and "sealant" in result["text"]
    # the same folder uncompressed gives the same chunks
    shutil.rmtree(idx)
    again = ragkit("index", plain, "--index", idx, "--embedding", "hash", "--json", check_json=True)
    assert again.data["chunks"] == data["chunks"]
