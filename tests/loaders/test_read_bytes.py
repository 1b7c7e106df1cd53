"""ragkit.loaders._files.read_bytes: one read for a small file, the head first for a large one."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders._files import SNIFF_BYTES, WHOLE_READ, read_bytes


class Refused(Exception):
    pass


@pytest.mark.parametrize("size", [0, 10, SNIFF_BYTES, SNIFF_BYTES + 1, WHOLE_READ, WHOLE_READ + 5])
def test_every_size_reads_whole_and_the_sniffer_sees_the_head(tmp_path: Path, size: int) -> None:
    data = bytes(i % 251 for i in range(size))
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    seen: list[bytes] = []
    assert read_bytes(path, None, seen.append) == data
    assert seen == [data[:SNIFF_BYTES]]
    assert read_bytes(path, size or None) == data
    if size > 1:
        with pytest.raises(LoaderError, match="over the file size limit"):
            read_bytes(path, size - 1)


def test_a_large_file_is_refused_from_its_head_without_reading_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "sparse.txt"
    with open(path, "wb") as f:  # 4 GiB, sparse: reading it all would take long and fill memory
        f.write(b"\x00" * 16)
        f.truncate(4 << 30)
    heads: list[int] = []

    def refuse(head: bytes) -> None:
        heads.append(len(head))
        raise Refused

    with pytest.raises(Refused):
        read_bytes(path, None, refuse)
    assert heads == [SNIFF_BYTES]
