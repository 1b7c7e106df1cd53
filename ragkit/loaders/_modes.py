"""A loader's ``mode`` argument: checked against the modes it offers, LangChain's mapped to its own.

:class:`UnstructuredModes` gives a ragkit loader the signature of LangChain's
``Unstructured*Loader(file_path, mode="single")``: put it first among the bases and name
the loader's own mode that stands for ``"elements"``::

    class UnstructuredEPubLoader(UnstructuredModes, EPubLoader):
        elements_mode = "chapters"

Example:
    >>> unstructured_mode("UnstructuredEPubLoader", "elements", "chapters")
    'chapters'
    >>> check_mode("PDFLoader", "pages", ("page", "single"))
    Traceback (most recent call last):
    ...
    ragkit.errors.ConfigurationError: PDFLoader mode must be 'page' or 'single', got 'pages'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from ragkit.errors import ConfigurationError
from ragkit.loaders._files import DEFAULT_MAX_FILE_SIZE


def check_mode(loader: str, mode: str, modes: Sequence[str]) -> None:
    """Raise a ConfigurationError naming ``loader`` unless ``mode`` is one of ``modes``."""
    if mode not in modes:
        quoted = [repr(m) for m in modes]
        either = " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)
        raise ConfigurationError(f"{loader} mode must be {either}, got {mode!r}")


def unstructured_mode(loader: str, mode: str, elements: str) -> Any:
    """The own mode for an ``Unstructured*Loader``'s ``mode``: ``"single"`` stays, ``"elements"``
    (Unstructured's one Document per element) becomes ``elements``, the nearest ragkit gives."""
    check_mode(loader, mode, ("single", "elements"))
    return "single" if mode == "single" else elements


class UnstructuredModes:
    """Mixin: ``__init__(file_path, mode="single", *, max_file_size=...)`` as LangChain's
    ``Unstructured*Loader``, over the next base's ``__init__(file_path, mode, max_file_size=)``
    (``mode="elements"`` becomes :attr:`elements_mode`)."""

    elements_mode: ClassVar[str]

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Literal["single", "elements"] = "single",
        *,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        own_mode = unstructured_mode(type(self).__name__, mode, self.elements_mode)
        super().__init__(file_path, own_mode, max_file_size=max_file_size)  # type: ignore[call-arg]
