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

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.errors import ConfigurationError


def check_choice(what: str, value: str, choices: Sequence[str]) -> None:
    """Raise a ConfigurationError naming ``what`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        quoted = [repr(c) for c in choices]
        either = " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)
        raise ConfigurationError(f"{what} must be {either}, got {value!r}")


def check_mode(loader: str, mode: str, modes: Sequence[str]) -> None:
    """Raise a ConfigurationError naming ``loader`` unless ``mode`` is one of ``modes``."""
    check_choice(f"{loader} mode", mode, modes)


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


def check_at_least(name: str, value: float | None, floor: float) -> None:
    """Raise a ConfigurationError unless ``value`` is None or at least ``floor``.

    Example:
        >>> check_at_least("max_pages", 0, 1)
        Traceback (most recent call last):
        ...
        ragkit.errors.ConfigurationError: max_pages must be >= 1 or None, got 0
    """
    if value is not None and value < floor:
        raise ConfigurationError(f"{name} must be >= {floor} or None, got {value}")
