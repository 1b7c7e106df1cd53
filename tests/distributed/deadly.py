"""A loader that kills the process reading it, for the Ray workers (imported there with the
model below, which registers it).

A ``.boom`` file holds two lines, ``home=PID`` and ``log=PATH``: read in any process but
``PID`` (the test's), the loader appends that process's pid to ``PATH`` and ends the process
at once with ``os._exit`` (as a segfault in a native parser or the out-of-memory killer
would: no exception, no cleanup); read in the test's own process it raises instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ragkit.documents import Document
from ragkit.loaders.base import BaseLoader
from ragkit.loaders.registry import register_loader

from .models import LoggingEmbeddings


class KillingLoader(BaseLoader):
    def __init__(self, path: str, max_file_size: int | None = None) -> None:
        super().__init__()
        self.path = path

    def lazy_load(self) -> Iterator[Document]:
        with open(self.path, encoding="utf-8") as f:
            fields = dict(line.strip().split("=", 1) for line in f if "=" in line)
        if int(fields["home"]) == os.getpid():
            raise RuntimeError("a .boom file is only read on Ray workers")
        with open(fields["log"], "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()}\n")
        os._exit(17)
        yield Document(page_content="never")  # pragma: no cover - a generator


register_loader(".boom", KillingLoader, name="killing (test)")


class WithKillingLoader(LoggingEmbeddings):
    """LoggingEmbeddings whose class brings :class:`KillingLoader` to the workers."""
