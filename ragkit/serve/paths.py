"""What a served result may say about files: paths relative to the indexed folders, nothing else.

An index records each chunk's ``source`` as an absolute path on the machine
that built it. A server shows it relative to the *roots* (the indexed folders:
``ragkit serve --root``, or else the deepest folder holding every indexed
file), so a reply never names a file outside them nor tells where they live on
the server's disk. Metadata values that are absolute paths get the same
treatment; one outside every root is left out. URLs are kept as they are.

Example:
    >>> paths = SourcePaths(["/srv/docs"])
    >>> paths.show("/srv/docs/guide/tyres.md"), paths.show("/etc/passwd"), paths.show("../x")
    ('guide/tyres.md', None, None)
    >>> paths.clean({"source": "/srv/docs/a.md", "page": 2, "copy_of": "/home/me/a.md"})
    {'source': 'a.md', 'page': 2}
    >>> infer_roots(["/srv/docs/a.md", "/srv/docs/guide/b.md"])
    ('/srv/docs',)
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from typing import Any

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _is_absolute(value: str) -> bool:
    return value.startswith("/") or bool(ntpath.splitdrive(value)[0]) or value.startswith("\\\\")


def infer_roots(sources: Iterable[str]) -> tuple[str, ...]:
    """The deepest folder holding every absolute source path (empty when there is none)."""
    folders = {os.path.dirname(s) for s in sources if isinstance(s, str) and s.startswith("/")}
    if not folders:
        return ()
    return (os.path.commonpath(sorted(folders)),)


class SourcePaths:
    """Shows paths relative to ``roots``; hides paths outside them."""

    def __init__(self, roots: Sequence[str]) -> None:
        cleaned = {os.path.normpath(os.path.abspath(r)) for r in roots}
        self.roots = tuple(sorted(cleaned, key=len, reverse=True))  # the deepest root wins
        self._shown: dict[str, str | None] = {}  # the same sources come back again and again

    def show(self, source: Any) -> str | None:
        """``source`` as clients may see it, or None when it must not be shown."""
        if not isinstance(source, str) or not source:
            return None
        try:
            return self._shown[source]
        except KeyError:
            pass
        shown = self._show(source)
        if len(self._shown) < 100_000:
            self._shown[source] = shown
        return shown

    def _show(self, source: str) -> str | None:
        if _URL.match(source):
            return source
        if not _is_absolute(source):
            shown = posixpath.normpath(source.replace("\\", "/"))
            return None if shown == ".." or shown.startswith(("../", "/")) else shown
        path = os.path.normpath(source)
        for root in self.roots:
            if root == "/":
                return path.lstrip("/") or None
            if path.startswith(root + os.sep):
                return path[len(root) + 1 :].replace(os.sep, "/")
        return None

    def clean(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """``metadata`` with absolute paths made relative, and those outside the roots removed."""
        out: dict[str, Any] = {}
        for key, value in metadata.items():
            if isinstance(value, str) and _is_absolute(value):
                shown = self.show(value)
                if shown is not None:
                    out[key] = shown
            elif isinstance(value, list) and any(
                isinstance(v, str) and _is_absolute(v) for v in value
            ):
                out[key] = [
                    s
                    for s in (self.show(v) if isinstance(v, str) else v for v in value)
                    if s is not None
                ]
            else:
                out[key] = value
        return out
