"""The type of a file from its first bytes, and the rule that picks a loader from name and content.

:func:`sniff_type` returns a canonical extension (``".pdf"``, ``".pptx"``, ``".eml"`` ...)
or ``None`` from one small read (:data:`HEAD_BYTES`) of the file's start. Zip and OLE2
containers are told apart by their member names: a zip's central directory is read with
:mod:`zipfile` (``word/`` -> ``.docx``, ``ppt/`` -> ``.pptx``, ``xl/`` -> ``.xlsx``, an
uncompressed ``mimetype`` member -> ``.odt``/``.ods``/``.odp``/``.epub``, else ``.zip``), an OLE2
compound file's stream names with ``olefile`` when it is installed (``__substg1.0_`` ->
``.msg``, ``WordDocument`` -> ``.doc``, ``Workbook`` -> ``.xls``, ``PowerPoint Document`` ->
``.ppt``; without olefile, ``.ole``).

:func:`loading_extension` is the rule :func:`~ragkit.loaders.directory.default_loader`
follows. The name wins unless the content says otherwise in a way that matters:

* a file with no extension, or one no loader knows, is loaded as what it holds;
* a strong signature (PDF, image, zip, OLE2, gzip, bzip2, xz, tar) that belongs to another
  family than the name (a ``.ppt`` that is a zip, a ``.txt`` that is a PDF, a ``.doc`` that
  is really ``.docx``) is loaded as what it holds; inside the right family the name is kept
  (a ``.docx`` is not opened to check it is not an ``.xlsx``);
* an HTML document named as plain text (``.txt``, ``.text``, ``.log``) is loaded as HTML;
* text is never re-read as e-mail or JSON because of its content, except when the name
  has no extension (a maildir file is e-mail, an extensionless ``{...}`` is JSON).

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "report.txt")
    >>> _ = open(path, "wb").write(b"%PDF-1.7\\n...")
    >>> sniff_type(path), loading_extension(path)
    ('.pdf', '.pdf')
    >>> _ = open(path, "wb").write(b"<!DOCTYPE html><html><p>hi</p></html>")
    >>> sniff_type(path), loading_extension(path)
    ('.html', '.html')
    >>> sniff_bytes(b"From: a@example.com\\nSubject: hi\\n\\nbody")
    '.eml'
"""

from __future__ import annotations

import io
import os
import re
import zipfile

from ragkit.loaders.registry import file_extension

HEAD_BYTES = 4096
"""How many bytes of a file are read to sniff its type."""

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", ".pdf"),
    (b"\x89PNG\r\n\x1a\n", ".png"),
    (b"\xff\xd8\xff", ".jpg"),
    (b"GIF87a", ".gif"),
    (b"GIF89a", ".gif"),
    (b"II*\x00", ".tiff"),
    (b"MM\x00*", ".tiff"),
    (b"BM", ".bmp"),
    (b"PK\x03\x04", ".zip"),
    (b"PK\x05\x06", ".zip"),  # an empty zip
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", ".ole"),
    (b"\x1f\x8b", ".gz"),
    (b"BZh", ".bz2"),
    (b"\xfd7zXZ\x00", ".xz"),
    (b"{\\rtf", ".rtf"),
)

_PREFIXES = tuple(magic for magic, _ in _MAGIC)

FAMILIES: dict[str, frozenset[str]] = {
    "pdf": frozenset({".pdf"}),
    "image": frozenset({".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".webp"}),
    "zip": frozenset(
        ".zip .docx .docm .dotx .pptx .pptm .ppsx .xlsx .xlsm .odt .ods .odp .epub .jar".split()
    ),
    "ole": frozenset({".ole", ".msg", ".doc", ".dot", ".xls", ".ppt", ".pps"}),
    "gz": frozenset({".gz", ".tgz"}),
    "bz2": frozenset({".bz2", ".tbz", ".tbz2"}),
    "xz": frozenset({".xz", ".txz"}),
    "tar": frozenset({".tar"}),
    "rtf": frozenset({".rtf"}),
}
_FAMILY_OF = {ext: family for family, exts in FAMILIES.items() for ext in exts}

# names read as plain text whose content may be HTML
_PLAIN_TEXT = frozenset({".txt", ".text", ".log"})

_HTML = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])", re.I | re.S
)
_JSON = re.compile(rb'^\s*(?:\{\s*["}]|\[\s*(?:[\[{"\]\d-]|true|false|null))')
_HEADER = re.compile(rb"^[A-Za-z][A-Za-z0-9-]{0,60}:[ \t]?[^\r\n]*\r?$")
_MAIL_FIELDS = frozenset(
    b"from to cc subject date message-id received return-path mime-version delivered-to "
    b"reply-to sender x-mailer content-type".split()
)


def _utf8_head(head: bytes) -> bytes:
    """The head without a UTF-8 BOM (UTF-16 text is sniffed as text, not HTML)."""
    return head[3:] if head.startswith(b"\xef\xbb\xbf") else head


def _looks_like_mail(head: bytes) -> bool:
    """At least two RFC 822 header lines, one a mail field, before the first blank line."""
    lines = head.split(b"\n", 40)
    if lines and lines[0].startswith(b"From ") and len(lines) > 1:
        lines = lines[1:]  # an mbox "From " line
    fields = 0
    mail = False
    for line in lines[:-1]:
        if line.strip() == b"":
            break
        if line[:1] in (b" ", b"\t"):
            continue  # a folded header continues
        if not _HEADER.match(line):
            return False
        fields += 1
        mail = mail or line.split(b":", 1)[0].lower() in _MAIL_FIELDS
    return fields >= 2 and mail


def _signature(head: bytes) -> str | None:
    """The type a binary signature at the start (or a tar header) shows."""
    if not head.startswith(_PREFIXES):
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return ".webp"
        return ".tar" if head[257:262] == b"ustar" else None
    for magic, ext in _MAGIC:
        if head.startswith(magic):
            if ext == ".bmp" and (len(head) < 26 or head[6:10] != b"\x00\x00\x00\x00"):
                continue  # "BM" text, not a bitmap (reserved bytes are zero)
            return ext
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ".webp"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return ".tar"
    return None


def sniff_bytes(head: bytes) -> str | None:
    """The type the first bytes of a file show (containers not opened: ``.zip``, ``.ole``)."""
    found = _signature(head)
    if found is not None:
        return found
    text = _utf8_head(head)
    if _HTML.match(text):
        return ".html"
    if _HEADER.match(text.split(b"\n", 1)[0]) or text.startswith(b"From "):
        if _looks_like_mail(text):
            return ".mbox" if text.startswith(b"From ") else ".eml"
    if _JSON.match(text) and b"\x00" not in head:
        return ".json"
    return None


def _zip_kind(path: str, fileobj: io.BufferedIOBase | None = None) -> str:
    """``.docx``/``.pptx``/``.xlsx``/ODF/``.epub`` by member names, else ``.zip``."""
    try:
        with zipfile.ZipFile(fileobj if fileobj is not None else path) as archive:
            names = archive.namelist()
            if "mimetype" in names:
                info = archive.getinfo("mimetype")
                if info.file_size < 200:
                    mime = archive.read("mimetype").decode("ascii", "replace").strip()
                    kind = _ODF.get(mime)
                    if kind:
                        return kind
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, RuntimeError):
        return ".zip"
    tops = {n.split("/", 1)[0] for n in names if "/" in n}
    if "word" in tops:
        return ".docx"
    if "ppt" in tops:
        return ".pptx"
    if "xl" in tops:
        return ".xlsx"
    return ".zip"


_ODF = {
    "application/vnd.oasis.opendocument.text": ".odt",
    "application/vnd.oasis.opendocument.spreadsheet": ".ods",
    "application/vnd.oasis.opendocument.presentation": ".odp",
    "application/epub+zip": ".epub",
}


def _ole_kind(path: str) -> str | None:
    """``.msg``/``.doc``/``.xls``/``.ppt`` by an OLE2 file's stream names (olefile), else ``.ole``;
    ``None`` for a password-protected Office Open XML package (its name's type says which)."""
    try:
        import olefile
    except ImportError:
        return ".ole"
    try:
        with olefile.OleFileIO(path) as ole:
            names = {"/".join(entry) for entry in ole.listdir(streams=True, storages=True)}
    except Exception:  # olefile raises OSError and assorted errors on damaged files
        return ".ole"
    if "EncryptedPackage" in names:  # its loader says it is password-protected
        return None
    if any(n.startswith("__substg1.0_") for n in names) or "__properties_version1.0" in names:
        return ".msg"
    if "WordDocument" in names:
        return ".doc"
    if "Workbook" in names or "Book" in names:
        return ".xls"
    if "PowerPoint Document" in names:
        return ".ppt"
    return ".ole"


def read_head(path: str | os.PathLike[str], size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of a regular file (``b""`` when it cannot be read: the loader says why)."""
    name = os.fspath(path)
    try:
        if not os.path.isfile(name):
            return b""
        with open(name, "rb") as f:
            return f.read(size)
    except OSError:
        return b""


def refine(path: str, coarse: str | None) -> str | None:
    """Open a zip or OLE2 container named by :func:`sniff_bytes` to say what it holds."""
    if coarse == ".zip":
        return _zip_kind(path)
    if coarse == ".ole":
        return _ole_kind(path)
    return coarse


def sniff_type(path: str | os.PathLike[str], head: bytes | None = None) -> str | None:
    """The canonical extension of what ``path`` holds, or ``None`` (plain text, unknown binary).

    ``head`` (the file's first bytes, if already read) saves the read.
    """
    name = os.fspath(path)
    coarse = sniff_bytes(read_head(name) if head is None else head)
    return refine(name, coarse)


def loading_extension(
    path: str | os.PathLike[str], known: frozenset[str] | None = None, head: bytes | None = None
) -> str:
    """The extension whose loader reads ``path`` (see the module docstring for the rule).

    ``known``: the extensions some loader handles (default: every extension in
    :data:`FAMILIES` and those of :func:`~ragkit.loaders.directory.default_loader`).
    """
    name = os.fspath(path)
    ext = file_extension(name)
    if known is None:
        from ragkit.loaders.directory import known_extensions

        known = known_extensions()
    data = read_head(name) if head is None else head
    return decide(name, ext, data, known)


def decide(name: str, ext: str, head: bytes, known: frozenset[str]) -> str:
    """:func:`loading_extension` given the name's extension and the head already read."""
    if ext.startswith(".tar."):
        coarse = _signature(head)
        if coarse is None or coarse in (".gz", ".bz2", ".xz"):
            return ext
        return refine(name, coarse) or ext
    if not ext or ext not in known:
        sniffed = refine(name, sniff_bytes(head))
        if sniffed in (".gz", ".bz2", ".xz") and ext:
            return ext  # a bare compressed stream under a name no loader knows
        return sniffed or ext
    coarse = _signature(head)
    if coarse is None:
        if ext in _PLAIN_TEXT and _HTML.match(_utf8_head(head)):
            return ".html"
        return ext
    if _FAMILY_OF.get(ext) == _FAMILY_OF.get(coarse):
        return ext
    return refine(name, coarse) or ext
