"""Type stubs of the C extension ``_wordpiece_c`` (see ``_wordpiece_c.c``)."""

from collections.abc import Sequence

class Vocab:
    def __init__(self, entries: Sequence[str]) -> None: ...

def windows(
    text: str,
    vocab: Vocab,
    classes: bytes,
    known: dict[str, tuple[tuple[int, int], ...]],
    size: int,
    step: int,
    /,
) -> tuple[list[tuple[int, int]], list[str]]: ...
