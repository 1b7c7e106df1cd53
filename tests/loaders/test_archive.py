"""ArchiveLoader on archives written by zipfile and tarfile: members, nesting, and every bound."""

from __future__ import annotations

import io
import tarfile
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders import ArchiveLimits, ArchiveLoader, DirectoryLoader
from ragkit.loaders.directory import default_loader

MEMBERS = {
    "docs/guide.md": b"# Tubeless\n\nTop up the sealant.\n",
    "docs/parts.csv": b"part,price\nchain,30\n",
    "notes.txt": b"Re-wax every 300 km.\n",
}


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def make_tar(path: Path, members: dict[str, bytes], mode: str = "w") -> Path:
    with tarfile.open(path, mode) as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return path


def summary(docs) -> list[tuple[str, str]]:
    return [(d.metadata["member"], d.page_content) for d in docs]


EXPECTED = [
    ("docs/guide.md", "# Tubeless\n\nTop up the sealant."),
    ("docs/parts.csv", "part: chain\nprice: 30"),
    ("notes.txt", "Re-wax every 300 km.\n"),
]


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("a.zip", None),
        ("a.tar", "w"),
        ("a.tar.gz", "w:gz"),
        ("a.tgz", "w:gz"),
        ("a.tar.bz2", "w:bz2"),
        ("a.tar.xz", "w:xz"),
    ],
)
def test_members_load_with_their_own_loaders(tmp_path: Path, name: str, mode: str | None) -> None:
    path = tmp_path / name
    make_zip(path, MEMBERS) if mode is None else make_tar(path, MEMBERS, mode)
    loader = default_loader(str(path))
    assert isinstance(loader, ArchiveLoader)
    docs = loader.load()
    assert loader.errors == []
    assert [(m, c.strip() if m.endswith(".md") else c) for m, c in summary(docs)] == EXPECTED
    csv = docs[1]
    assert csv.metadata["source"] == f"{path}/docs/parts.csv"
    assert csv.metadata["archive"] == str(path)
    assert csv.metadata["row"] == 0


def test_nested_archives_and_depth(tmp_path: Path) -> None:
    inner = make_zip(tmp_path / "inner.zip", {"deep.txt": b"deep text"})
    innermost = make_zip(tmp_path / "innermost.zip", {"x.txt": b"too deep"})
    middle = make_zip(tmp_path / "middle.zip", {"innermost.zip": innermost.read_bytes()})
    outer = make_tar(
        tmp_path / "outer.tar.gz",
        {"top.txt": b"top", "in/inner.zip": inner.read_bytes(), "middle.zip": middle.read_bytes()},
        "w:gz",
    )
    loader = ArchiveLoader(outer)
    docs = loader.load()
    assert [(d.metadata["source"], d.page_content) for d in docs] == [
        (f"{outer}/top.txt", "top"),
        (f"{outer}/in/inner.zip/deep.txt", "deep text"),
    ]
    [failure] = loader.errors
    assert failure.path == f"{outer}/middle.zip/innermost.zip"
    assert "nested deeper than max_depth=2" in failure.reason
    shallow = ArchiveLoader(outer, ArchiveLimits(max_depth=1))
    assert [d.page_content for d in shallow.load()] == ["top"]
    assert len(shallow.errors) == 2


def test_zip_with_an_email_with_an_attachment(tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["Subject"] = "Wheels"
    msg.set_content("See the list.")
    msg.add_attachment(b"a,b\n1,2\n", maintype="text", subtype="csv", filename="list.csv")
    path = make_zip(tmp_path / "mail.zip", {"mail/m.eml": msg.as_bytes()})
    docs = ArchiveLoader(path).load()
    assert [d.metadata["source"] for d in docs] == [
        f"{path}/mail/m.eml",
        f"{path}/mail/m.eml/list.csv",
    ]
    assert docs[1].metadata["parent_source"] == f"{path}/mail/m.eml"


def test_traversal_and_absolute_names_are_refused_per_member(tmp_path: Path) -> None:
    path = make_zip(
        tmp_path / "evil.zip",
        {"../../escape.txt": b"x", "/etc/passwd": b"y", "C:\\win.txt": b"z", "ok.txt": b"fine"},
    )
    loader = ArchiveLoader(path)
    assert [d.page_content for d in loader.load()] == ["fine"]
    reasons = sorted(f.reason for f in loader.errors)
    assert len(reasons) == 3
    assert any("climbs out of the archive" in r for r in reasons)
    assert sum("absolute path" in r for r in reasons) == 2
    assert not (tmp_path.parent / "escape.txt").exists()


def test_tar_links_and_devices_are_not_followed(tmp_path: Path) -> None:
    path = tmp_path / "links.tar"
    with tarfile.open(path, "w") as t:
        for name, kind in (
            ("link", tarfile.SYMTYPE),
            ("hard", tarfile.LNKTYPE),
            ("fifo", tarfile.FIFOTYPE),
        ):
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = "/etc/passwd"
            t.addfile(info)
        data = b"plain member"
        info = tarfile.TarInfo("plain.txt")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("../up.txt")
        info.size = 1
        t.addfile(info, io.BytesIO(b"u"))
    loader = ArchiveLoader(path)
    assert [d.page_content for d in loader.load()] == ["plain member"]
    reasons = " | ".join(f.reason for f in loader.errors)
    assert "is a symlink" in reasons and "is a hard link" in reasons
    assert "special file" in reasons and "climbs out" in reasons


def test_zip_bomb_by_ratio_and_by_size(tmp_path: Path) -> None:
    bomb = make_zip(tmp_path / "ratio.zip", {"zeros.txt": b"\x00" * (20 << 20)})
    with pytest.raises(LoaderError, match=r"ratio.zip: .*over max_ratio=100; not read"):
        ArchiveLoader(bomb).load()
    big = make_zip(tmp_path / "big.zip", {f"part{i}.txt": b"a" * (3 << 20) for i in range(3)})
    with pytest.raises(LoaderError, match=r"big.zip expands to more than 8 MiB \(max_total_size\)"):
        ArchiveLoader(big, ArchiveLimits(max_total_size=8 << 20, max_ratio=10_000)).load()
    loader = ArchiveLoader(big, ArchiveLimits(max_member_size=1 << 20, max_ratio=10_000))
    assert loader.load() == []
    assert len(loader.errors) == 3 and "max_member_size" in loader.errors[0].reason


def test_tar_gz_bomb_stops_while_streaming(tmp_path: Path) -> None:
    path = make_tar(tmp_path / "bomb.tar.gz", {"zeros.bin": b"\x00" * (30 << 20)}, "w:gz")
    with pytest.raises(LoaderError, match="bomb.tar.gz: the archive expands .* over max_ratio"):
        ArchiveLoader(path).load()


def test_too_many_members(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "many.zip", {f"f{i}.txt": b"x" for i in range(30)})
    with pytest.raises(LoaderError, match="many.zip holds more than 20 members"):
        ArchiveLoader(path, ArchiveLimits(max_members=20)).load()
    tar = make_tar(tmp_path / "many.tar", {f"f{i}.txt": b"x" for i in range(30)})
    with pytest.raises(LoaderError, match="many.tar holds more than 20 members"):
        ArchiveLoader(tar, ArchiveLimits(max_members=20)).load()


def test_hostile_archives_fail_alone_in_a_directory(tmp_path: Path) -> None:
    make_zip(tmp_path / "bomb.zip", {"zeros.txt": b"\x00" * (20 << 20)})
    (tmp_path / "damaged.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 50)
    (tmp_path / "damaged.tar.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    make_zip(tmp_path / "good.zip", {"a.txt": b"alpha"})
    (tmp_path / "plain.txt").write_text("plain")
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    assert sorted(d.page_content for d in loader.load()) == ["alpha", "plain"]
    failed = sorted(Path(f.path).name for f in loader.errors)
    assert failed == ["bomb.zip", "damaged.tar.gz", "damaged.zip"]
    assert all("Traceback" not in f.reason for f in loader.errors)


def test_encrypted_zip_member_is_refused_alone(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "locked.zip", {"secret.txt": b"hidden", "open.txt": b"visible"})
    data = bytearray(path.read_bytes())
    # set bit 0 (encrypted) of the first member's flags, in its local and central headers
    data[6] |= 1
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 1
    path.write_bytes(bytes(data))
    loader = ArchiveLoader(path)
    assert [d.page_content for d in loader.load()] == ["visible"]
    [failure] = loader.errors
    assert failure.path == f"{path}/secret.txt" and "is encrypted" in failure.reason


def test_a_failure_inside_a_nested_container_is_logged_once_under_its_label(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    innermost = make_zip(tmp_path / "innermost.zip", {"x.txt": b"too deep"})
    middle = make_zip(tmp_path / "middle.zip", {"innermost.zip": innermost.read_bytes()})
    msg = EmailMessage()
    msg["Subject"] = "Archives"
    msg.set_content("Attached.")
    msg.add_attachment(
        middle.read_bytes(), maintype="application", subtype="zip", filename="middle.zip"
    )
    outer = make_zip(tmp_path / "outer.zip", {"m.eml": msg.as_bytes()})
    with caplog.at_level("WARNING", logger="ragkit"):
        loader = ArchiveLoader(outer)
        loader.load()
    [failure] = loader.errors
    assert failure.path == f"{outer}/m.eml/middle.zip"
    assert "nested deeper than max_depth=2" in failure.reason
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == 1, logged
    assert failure.path in logged[0]
    assert "ragkit-member-" not in logged[0]
