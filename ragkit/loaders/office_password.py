"""OfficePasswordLoader: a password-protected ``.docx``/``.xlsx``/``.pptx`` opened with its password.

Office encrypts a file with a password by wrapping the whole zip package in an OLE
container (an ``EncryptedPackage`` stream, ECMA-376 "agile" or "standard" encryption).
The format loaders refuse such a file with :class:`~ragkit.errors.EncryptedFileError`
("password-protected"); this loader takes the password, decrypts the package with
msoffcrypto-tool (the ``documents`` extra) into a private temporary folder (mode 0700,
removed as soon as the file is loaded), and hands the plain file to the format's loader
from the registry (or ``loader``), so every bound and check of that loader applies. The
Documents name the original file in ``source``; errors name it too, never the temporary
copy. A file that is not encrypted is loaded as it is (the password is not needed). A
wrong password raises ``EncryptedFileError`` ("the password does not open ...").

Example:
    >>> import os, tempfile, openpyxl
    >>> from msoffcrypto.format.ooxml import OOXMLFile
    >>> folder = tempfile.mkdtemp()
    >>> plain, secret = os.path.join(folder, "plain.xlsx"), os.path.join(folder, "pay.xlsx")
    >>> wb = openpyxl.Workbook(); wb.active.append(["name", "salary"]); wb.active.append(["Ada", 10])
    >>> wb.save(plain)
    >>> with open(plain, "rb") as f, open(secret, "wb") as out:
    ...     OOXMLFile(f).encrypt("s3cret", out)
    >>> doc = OfficePasswordLoader(secret, "s3cret").load()[0]
    >>> doc.metadata["source"] == secret, "| Ada | 10 |" in doc.page_content
    (True, True)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.errors import EncryptedFileError, LoaderError
from ragkit.loaders._files import check_regular
from ragkit.loaders._office import import_extra
from ragkit.loaders._zip_guard import OLE_MAGIC
from ragkit.loaders.base import BaseLoader
from ragkit.loaders.registry import LoaderFactory, file_extension, loader_for

SUPPORTED = (".docx", ".docm", ".xlsx", ".xlsm", ".pptx", ".pptm")
"""The types whose password protection this loader removes (Office Open XML)."""


def is_encrypted_office(path: str) -> bool:
    """Whether ``path`` is an OLE container holding an encrypted Office Open XML package."""
    try:
        with open(path, "rb") as f:
            if f.read(8) != OLE_MAGIC:
                return False
            import olefile

            with olefile.OleFileIO(f) as ole:
                return bool(ole.exists("EncryptedPackage"))
    except Exception:  # unreadable or damaged: the format loader says what is wrong
        return False


def decrypt_to(name: str, password: str, out_path: str) -> None:
    """Decrypt the password-protected Office file ``name`` into ``out_path``.

    Raises:
        EncryptedFileError: the password does not open it.
        LoaderError: the container is damaged or uses an encryption msoffcrypto cannot read.
    """
    msoffcrypto = import_extra("msoffcrypto", "msoffcrypto-tool")
    from msoffcrypto import exceptions

    try:
        with open(name, "rb") as f:
            office = msoffcrypto.OfficeFile(f)
            office.load_key(password=password, verify_password=True)
            with open(out_path, "wb") as out:
                office.decrypt(out)
    except (exceptions.InvalidKeyError, exceptions.DecryptionError) as e:
        raise EncryptedFileError(f"{name}: the password does not open this file", name) from e
    except Exception as e:  # msoffcrypto raises FileFormatError, struct.error, ... on damage
        raise LoaderError(
            f"{name} is a password-protected Office file that cannot be decrypted (damaged, "
            f"or an encryption msoffcrypto-tool does not read): {type(e).__name__}: {e}",
            name,
        ) from e


@contextlib.contextmanager
def decrypted_copy(name: str, password: str) -> Iterator[str]:
    """A plain copy of the encrypted file ``name`` in a private temporary folder, removed on exit."""
    folder = tempfile.mkdtemp(prefix="ragkit-decrypted-")  # mode 0700: only this user reads it
    try:
        plain = os.path.join(folder, "document" + file_extension(name))
        decrypt_to(name, password, plain)
        yield plain
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _renamed(value: Any, plain: str, name: str) -> Any:
    return value.replace(plain, name) if isinstance(value, str) else value


class OfficePasswordLoader(BaseLoader):
    """Load a password-protected Word, Excel or PowerPoint file with its password.

    Args:
        file_path: the ``.docx``/``.docm``/``.xlsx``/``.xlsm``/``.pptx``/``.pptm`` file.
        password: its password (to open, not the one that only protects editing).
        loader: ``loader(path, max_file_size=...)`` reading the decrypted file (default: the
            registry's loader for the file's type), e.g.
            ``lambda p, **kw: ExcelLoader(p, mode="single", **kw)``.
        max_file_size: larger files are refused before they are read.
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        password: str,
        *,
        loader: LoaderFactory | None = None,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__()
        self.file_path = file_path
        self.password = password
        self.loader = loader
        self.max_file_size = max_file_size

    def _inner(self, path: str) -> BaseLoader:
        if self.loader is not None:
            return self.loader(path, max_file_size=self.max_file_size)
        return loader_for(path, self.max_file_size)

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        if file_extension(name) not in SUPPORTED:
            raise LoaderError(
                f"{name}: OfficePasswordLoader reads {', '.join(SUPPORTED)} files, not "
                f"{file_extension(name) or 'files without an extension'}",
                name,
            )
        check_regular(name, self.max_file_size)
        if not is_encrypted_office(name):
            yield from self._load(name, name)
            return
        with decrypted_copy(name, self.password) as plain:
            yield from self._load(plain, name)

    def _load(self, path: str, name: str) -> Iterator[Document]:
        inner = self._inner(path)
        inner.silent_errors = True
        try:
            for doc in inner.lazy_load():
                doc.metadata = {k: _renamed(v, path, name) for k, v in doc.metadata.items()}
                doc.metadata["source"] = str(self.file_path)
                yield doc
        except LoaderError as e:
            raise type(e)(str(e).replace(path, name), name) from e
        finally:
            for failure in inner.errors:
                self._record(name, _renamed(failure.reason, path, name))
