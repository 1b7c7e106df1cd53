"""A minimal writer of OLE2 compound files ([MS-CFB] version 3), to build real ``.msg`` test files.

No Python library writes ``.msg`` files (olefile and extract-msg only read them), so the
tests write the container themselves: 512-byte sectors, a FAT, a mini stream of 64-byte
sectors for streams under 4096 bytes, a directory whose siblings form a chain (a valid
binary tree). ``write_cfb(path, {"a/b": b"..."})`` creates the storages on the way.
"""

from __future__ import annotations

import struct
from pathlib import Path

SECTOR, MINI, CUTOFF = 512, 64, 4096
FREE, END, FATSECT, NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


class _Entry:
    def __init__(self, name: str, kind: int) -> None:
        self.name, self.kind = name, kind  # 1 storage, 2 stream, 5 root
        self.children: list[_Entry] = []
        self.data = b""
        self.start, self.size = END, 0
        self.sid = 0


def _tree(streams: dict[str, bytes]) -> list[_Entry]:
    root = _Entry("Root Entry", 5)
    entries = [root]
    storages = {"": root}
    for path in sorted(streams):
        parts = path.split("/")
        for depth in range(1, len(parts)):
            key = "/".join(parts[:depth])
            if key not in storages:
                storage = _Entry(parts[depth - 1], 1)
                storages["/".join(parts[: depth - 1])].children.append(storage)
                storages[key] = storage
                entries.append(storage)
        stream = _Entry(parts[-1], 2)
        stream.data = streams[path]
        storages["/".join(parts[:-1])].children.append(stream)
        entries.append(stream)
    for sid, entry in enumerate(entries):
        entry.sid = sid
    return entries


def _chain(fat: list[int], first: int, count: int) -> None:
    for i in range(count):
        fat[first + i] = first + i + 1 if i < count - 1 else END


def write_cfb(path: Path, streams: dict[str, bytes]) -> Path:
    entries = _tree(streams)
    link_siblings(entries)
    sectors: list[bytes] = []
    fat: list[int] = []

    def allocate(data: bytes) -> int:
        count = max(1, -(-len(data) // SECTOR))
        first = len(sectors)
        padded = data.ljust(count * SECTOR, b"\x00")
        sectors.extend(padded[i * SECTOR : (i + 1) * SECTOR] for i in range(count))
        fat.extend([FREE] * count)
        _chain(fat, first, count)
        return first

    mini_stream, minifat = bytearray(), []
    for entry in entries:
        if entry.kind != 2:
            continue
        entry.size = len(entry.data)
        if entry.size == 0:
            entry.start = END
        elif entry.size < CUTOFF:
            count = -(-entry.size // MINI)
            entry.start = len(minifat)
            minifat.extend([FREE] * count)
            _chain(minifat, entry.start, count)
            mini_stream += entry.data.ljust(count * MINI, b"\x00")
        else:
            entry.start = allocate(entry.data)
    root = entries[0]
    if mini_stream:
        root.start, root.size = allocate(bytes(mini_stream)), len(mini_stream)
    minifat_start, minifat_count = END, 0
    if minifat:
        blob = b"".join(struct.pack("<I", v) for v in minifat)
        minifat_count = -(-len(blob) // SECTOR)
        minifat_start = allocate(blob.ljust(minifat_count * SECTOR, b"\xff"))
    directory = b"".join(_dir_entry(e) for e in entries)
    padding = (-len(entries)) % 4
    directory += b"".join(_empty_entry() for _ in range(padding))
    dir_start = allocate(directory)
    fat_count = 1
    while (len(sectors) + fat_count) > fat_count * (SECTOR // 4):
        fat_count += 1
    fat_first = len(sectors)
    fat.extend([FATSECT] * fat_count)
    fat.extend([FREE] * (fat_count * (SECTOR // 4) - len(fat)))
    fat_blob = b"".join(struct.pack("<I", v) for v in fat)
    sectors.extend(fat_blob[i * SECTOR : (i + 1) * SECTOR] for i in range(fat_count))
    assert fat_count <= 109
    difat = [fat_first + i for i in range(fat_count)] + [FREE] * (109 - fat_count)
    header = struct.pack(
        "<8s16sHHHHH6sIIIIIIIII",
        bytes.fromhex("D0CF11E0A1B11AE1"),
        b"\x00" * 16,
        0x003E,
        3,
        0xFFFE,
        9,
        6,
        b"\x00" * 6,
        0,
        fat_count,
        dir_start,
        0,
        CUTOFF,
        minifat_start,
        minifat_count,
        END,
        0,
    ) + b"".join(struct.pack("<I", v) for v in difat)
    assert len(header) == SECTOR
    path.write_bytes(header + b"".join(sectors))
    return path


def _dir_entry(entry: _Entry) -> bytes:
    name = entry.name.encode("utf-16-le") + b"\x00\x00"
    assert len(name) <= 64
    child = entry.children[0].sid if entry.children else NOSTREAM
    return _pack(name, entry.kind, child, entry.start, entry.size, entry)


def _pack(name: bytes, kind: int, child: int, start: int, size: int, entry: _Entry | None) -> bytes:
    right = NOSTREAM
    if entry is not None and getattr(entry, "right", None) is not None:
        right = entry.right.sid  # type: ignore[attr-defined]
    return struct.pack(
        "<64sHBBIII16sIQQIQ",
        name.ljust(64, b"\x00"),
        len(name) if kind else 0,
        kind,
        1,
        NOSTREAM,
        right,
        child,
        b"\x00" * 16,
        0,
        0,
        0,
        start if kind else 0,
        size,
    )


def _empty_entry() -> bytes:
    return _pack(b"", 0, NOSTREAM, 0, 0, None)


def link_siblings(entries: list[_Entry]) -> None:
    for entry in entries:
        for left, right in zip(entry.children, entry.children[1:]):
            left.right = right  # type: ignore[attr-defined]


def _props(header: int, fixed: dict[int, tuple[int, int]]) -> bytes:
    """A ``__properties_version1.0`` stream: a header, then (tag, flags, 8-byte value) entries."""
    out = b"\x00" * header
    for tag, (kind, value) in fixed.items():
        out += struct.pack("<IIQ", (tag << 16) | kind, 6, value)
    return out


def msg_streams(
    prefix: str,
    strings: dict[int, str],
    header: int,
    binaries: dict[int, bytes] | None = None,
    submit_time: int | None = None,
) -> dict[str, bytes]:
    """The streams of one message (or attachment) under ``prefix`` (``""`` for the file's)."""
    fixed = {} if submit_time is None else {0x0039: (0x0040, submit_time)}
    out = {f"{prefix}__properties_version1.0": _props(header, fixed)}
    for prop, text in strings.items():
        out[f"{prefix}__substg1.0_{prop:04X}001F"] = text.encode("utf-16-le")
    for prop, data in (binaries or {}).items():
        out[f"{prefix}__substg1.0_{prop:04X}0102"] = data
    return out


def write_msg(
    path: Path,
    strings: dict[int, str],
    attachments: list[tuple[str, bytes]] = (),  # type: ignore[assignment]
    embedded: dict[int, str] | None = None,
    binaries: dict[int, bytes] | None = None,
    submit_time: int | None = None,
) -> Path:
    """An Outlook .msg: MAPI string properties (id -> text), attachments, an attached message."""
    streams = msg_streams("", strings, 32, binaries, submit_time)
    for i, (name, data) in enumerate(attachments):
        streams.update(
            msg_streams(f"__attach_version1.0_#{i:08X}/", {0x3707: name}, 8, {0x3701: data})
        )
    if embedded is not None:
        i = len(attachments)
        storage = f"__attach_version1.0_#{i:08X}/"
        streams.update(msg_streams(storage, {0x3707: "inner.msg"}, 8))
        streams.update(msg_streams(storage + "__substg1.0_3701000D/", embedded, 24))
    return write_cfb(path, streams)
