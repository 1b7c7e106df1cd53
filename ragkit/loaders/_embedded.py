"""Loading a file held inside another one (an archive member, an e-mail attachment).

The bytes are written to a private temporary folder under a safe name (the member's base
name, characters outside ``[\\w.-]`` replaced), read by the loader
:func:`~ragkit.loaders.directory.default_loader` picks for that name and content, and the
folder is removed. The Documents get ``source`` = the given label (``archive.zip/inner/a.txt``)
and the extra metadata; the loader's own errors come back with the temporary path replaced
by the label (they are not logged here: the container records them). A container found
inside (a zip in a zip, a zip attached to an e-mail) goes one level deeper in the shared
:class:`~ragkit.loaders._archive_limits.Nesting`, and is refused past ``max_depth``.

Example:
    >>> from ragkit.loaders._archive_limits import Nesting
    >>> member = Member(b"a,b\\n1,2\\n", "rows.csv", "mail.eml/rows.csv", {"attachment": "rows.csv"})
    >>> docs, failures = load_embedded(member, Nesting())
    >>> docs[0].page_content, docs[0].metadata["source"], failures
    ('a: 1\\nb: 2', 'mail.eml/rows.csv', [])
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any

from ragkit.documents import Document
from ragkit.errors import LoaderError
from ragkit.loaders._archive_limits import Nesting
from ragkit.loaders.base import LoadFailure

_UNSAFE = re.compile(r"[^\w.-]+")


def safe_file_name(name: str) -> str:
    """A base name safe to create in a private folder (never empty, never hidden)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE.sub("_", base).lstrip(".")[-200:]
    return base or "content"


@dataclass(frozen=True)
class Member:
    """A file held in another: its bytes, its own ``name``, the ``label`` that names it in
    sources and errors (``archive.zip/inner/a.txt``) and the ``metadata`` its Documents get."""

    data: bytes
    name: str
    label: str
    metadata: dict[str, Any]


def load_embedded(
    member: Member, nesting: Nesting, max_file_size: int | None = None
) -> tuple[list[Document], list[LoadFailure]]:
    """Documents of ``member`` and the failures its loader recorded.

    Raises:
        LoaderError: the content cannot be loaded (the message names ``member.label``).
    """
    from ragkit.loaders.directory import default_loader

    data, name, label, metadata = member.data, member.name, member.label, member.metadata

    with tempfile.TemporaryDirectory(prefix="ragkit-member-") as folder:
        copy = os.path.join(folder, safe_file_name(name))
        with open(copy, "wb") as f:
            f.write(data)
        loader = default_loader(copy, max_file_size)
        # Its failures are returned; the container records and logs them under the label.
        loader.silent_errors = True
        if hasattr(loader, "nesting"):
            inner = nesting.deeper()
            if inner.too_deep():
                raise LoaderError(
                    f"{label} is a container nested deeper than max_depth="
                    f"{nesting.limits.max_depth}; not opened",
                    label,
                )
            loader.nesting = inner
        try:
            docs = list(loader.lazy_load())
        except LoaderError as e:
            raise type(e)(str(e).replace(copy, label), label) from e
        except Exception as e:  # a parser's own error on a bad member
            raise LoaderError(f"{label}: {type(e).__name__}: {e}", label) from e
        failures = [
            LoadFailure(f.path.replace(copy, label), f.reason.replace(copy, label), f.exception)
            for f in getattr(loader, "errors", ())
        ]
    for doc in docs:
        source = doc.metadata.get("source")
        for key, value in list(doc.metadata.items()):
            if isinstance(value, str) and copy in value:
                doc.metadata[key] = value.replace(copy, label)
        if source == copy or source is None:
            doc.metadata["source"] = label
        for key, value in metadata.items():
            doc.metadata.setdefault(key, value)
    return docs, failures
