"""Key-value stores: in-memory and on-disk, same behaviour; keys cannot escape the root."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from ragkit.documents import Document
from ragkit.errors import InvalidKeyError, RagkitError
from ragkit.stores import InMemoryByteStore, InMemoryStore, LocalFileStore


@pytest.fixture(params=["memory", "file"])
def byte_store(request: pytest.FixtureRequest, tmp_path: Path):
    return InMemoryByteStore() if request.param == "memory" else LocalFileStore(tmp_path / "kv")


def test_mget_mset_mdelete_roundtrip(byte_store) -> None:
    assert byte_store.mget(["a", "b"]) == [None, None]
    byte_store.mset([("a", b"1"), ("ns/b", b"\x00\xff"), ("ns/deep/c", b"")])
    assert byte_store.mget(["a", "ns/b", "ns/deep/c", "zz"]) == [b"1", b"\x00\xff", b"", None]
    byte_store.mset([("a", b"2")])
    assert byte_store.mget(["a"]) == [b"2"]
    byte_store.mdelete(["a", "never-existed"])
    assert byte_store.mget(["a"]) == [None]
    assert sorted(byte_store.yield_keys()) == ["ns/b", "ns/deep/c"]
    assert sorted(byte_store.yield_keys(prefix="ns/d")) == ["ns/deep/c"]
    assert sorted(byte_store.yield_keys("ns/")) == ["ns/b", "ns/deep/c"]
    assert list(byte_store.yield_keys(prefix="x")) == []


def test_async_twins(byte_store) -> None:
    async def go():
        await byte_store.amset([("k1", b"v1"), ("k2", b"v2")])
        got = await byte_store.amget(["k1", "k2", "k3"])
        await byte_store.amdelete(["k1"])
        keys = [k async for k in byte_store.ayield_keys(prefix="k")]
        return got, keys

    got, keys = asyncio.run(go())
    assert got == [b"v1", b"v2", None]
    assert keys == ["k2"]


def test_byte_stores_reject_non_bytes(byte_store) -> None:
    with pytest.raises(TypeError, match="bytes"):
        byte_store.mset([("k", "a string")])
    assert byte_store.mget(["k"]) == [None]


@pytest.mark.parametrize(
    "key",
    [
        "../outside",
        "a/../../outside",
        "/etc/passwd",
        "a//b",
        "./a",
        "a/.",
        "",
        "sp ace",
        "semi;colon",
        "uni\u00e9",
        "trailing/",
        "x" * 256,
        "name.ragkit-tmp",
        "back\\slash",
    ],
)
def test_local_file_store_refuses_escaping_or_malformed_keys(tmp_path: Path, key: str) -> None:
    store = LocalFileStore(tmp_path / "root")
    with pytest.raises(InvalidKeyError) as info:
        store.mset([(key, b"x")])
    assert isinstance(info.value, ValueError) and isinstance(info.value, RagkitError)
    assert repr(key) in str(info.value)
    with pytest.raises(InvalidKeyError):
        store.mget([key])
    with pytest.raises(InvalidKeyError):
        store.mdelete([key])
    outside = [p for p in tmp_path.rglob("*") if not str(p).startswith(str(tmp_path / "root"))]
    assert outside == []


def test_local_file_store_refuses_symlink_escape(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "link")
    store = LocalFileStore(root)
    with pytest.raises(InvalidKeyError, match="outside the store's root"):
        store.mset([("link/evil", b"x")])
    assert list(outside.iterdir()) == []


def test_local_file_store_bad_keys_in_batch_write_nothing(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path)
    with pytest.raises(InvalidKeyError) as info:
        store.mset([("good", b"1"), ("../bad1", b"2"), ("bad 2", b"3")])
    assert "'../bad1'" in str(info.value) and "'bad 2'" in str(info.value)
    assert store.mget(["good"]) == [None]


def test_local_file_store_is_one_file_per_key_and_persists(tmp_path: Path) -> None:
    LocalFileStore(tmp_path, chmod_file=0o600).mset([("emb/abc", b"data")])
    assert (tmp_path / "emb" / "abc").read_bytes() == b"data"
    assert (tmp_path / "emb" / "abc").stat().st_mode & 0o777 == 0o600
    assert LocalFileStore(tmp_path).mget(["emb/abc"]) == [b"data"]
    leftovers = [p.name for p in tmp_path.rglob("*") if p.name.endswith(".ragkit-tmp")]
    assert leftovers == []


def test_local_file_store_ignores_stray_temp_files(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path)
    store.mset([("a", b"1")])
    (tmp_path / ".a.123.ragkit-tmp").write_bytes(b"half written")
    assert list(store.yield_keys()) == ["a"]


def test_local_file_store_without_fsync_still_atomic_rename(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path, fsync=False)
    store.mset([("k", b"v" * 1000)])
    assert store.mget(["k"]) == [b"v" * 1000]


def test_in_memory_store_holds_documents() -> None:
    store = InMemoryStore()
    doc = Document("parent text", metadata={"source": "a.txt"})
    store.mset([("p1", doc), ("p2", {"any": "value"})])
    got = store.mget(["p1", "p2", "p3"])
    assert got[0] is doc and got[1] == {"any": "value"} and got[2] is None
    assert len(store) == 2
    store.mdelete(["p1"])
    assert list(store.yield_keys()) == ["p2"]
