"""The cell comments (notes) of an ``.xlsx`` workbook, by sheet, read from its zip parts.

openpyxl's read-only mode, which ExcelLoader uses to stream rows, does not read
comments; they sit in their own part (``xl/comments1.xml``), linked from the sheet's
relationships. :func:`sheet_comments` follows those links with zipfile and defusedxml
(no entity declarations) and gives each sheet's comments as ``B1 (author): text`` lines,
in the order the file lists them. Threaded comments (Excel 365) also leave such a note
for older readers, so they are read too.

Example:
    >>> import os, tempfile, openpyxl
    >>> from openpyxl.comments import Comment
    >>> path = os.path.join(tempfile.mkdtemp(), "notes.xlsx")
    >>> wb = openpyxl.Workbook(); wb.active.title = "Parts"
    >>> wb.active["B2"] = 30
    >>> wb.active["B2"].comment = Comment("Price without VAT", "Ada")
    >>> wb.save(path)
    >>> sheet_comments(path)
    {'Parts': ['B2 (Ada): Price without VAT']}
"""

from __future__ import annotations

import posixpath
import zipfile
from typing import Any

from ragkit.loaders._office import import_extra

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_DOC_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_COMMENTS_TYPE = "/comments"
_MAX_CHARS = 10_000


def sheet_comments(path: str) -> dict[str, list[str]]:
    """``{sheet name: ["B1 (author): text", ...]}`` for the sheets that have comments."""
    ET = import_extra("defusedxml.ElementTree", "defusedxml")
    out: dict[str, list[str]] = {}
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        workbook = ET.fromstring(zf.read("xl/workbook.xml"))
        targets = _rels(ET, zf, names, "xl/workbook.xml")
        for sheet in workbook.iter(f"{_MAIN}sheet"):
            part = targets.get(sheet.get(f"{_DOC_REL}id", ""), ("", ""))[1]
            if part not in names:
                continue
            for kind, target in _rels(ET, zf, names, part).values():
                if kind.endswith(_COMMENTS_TYPE) and target in names:
                    lines = _comments(ET.fromstring(zf.read(target)))
                    if lines:
                        out.setdefault(sheet.get("name", ""), []).extend(lines)
    return out


def _rels(ET: Any, zf: zipfile.ZipFile, names: set[str], part: str) -> dict[str, tuple[str, str]]:
    """``{rId: (type, part path in the zip)}`` of ``part``'s relationships."""
    folder, base = posixpath.split(part)
    rels_name = posixpath.join(folder, "_rels", base + ".rels")
    if rels_name not in names:
        return {}
    out = {}
    for rel in ET.fromstring(zf.read(rels_name)).iter(f"{_REL}Relationship"):
        target = rel.get("Target", "")
        if rel.get("TargetMode") == "External":
            continue
        path = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
        out[rel.get("Id", "")] = (rel.get("Type", ""), posixpath.normpath(path))
    return out


def _comments(root: Any) -> list[str]:
    authors = [" ".join((a.text or "").split()) for a in root.iter(f"{_MAIN}author")]
    lines = []
    for comment in root.iter(f"{_MAIN}comment"):
        text = " ".join("".join(t.text or "" for t in comment.iter(f"{_MAIN}t")).split())
        if not text:
            continue
        index = _int(comment.get("authorId"))
        author = authors[index] if 0 <= index < len(authors) and authors[index] else ""
        who = f" ({author})" if author else ""
        lines.append(f"{comment.get('ref', '')}{who}: {text[:_MAX_CHARS]}")
    return lines


def _int(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        return -1
