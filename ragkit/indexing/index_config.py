"""What an index records about itself, and how opening it checks that record.

Both kinds of index (a folder's ``ragkit.toml``, a PostgreSQL collection's settings table)
keep the same two sections: ``index`` (format, embedding name, model id, dimension, times)
and ``splitter`` (the settings its chunks were made with). Opening an index re-creates the
recorded model, or checks the one given, and refuses a model that did not build it before
anything is written.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> emb, name = resolve_embeddings("hash-16")
    >>> name, new_config(emb, name, SplitSettings())["index"]["dimension"]
    ('hash-16', 16)
    >>> recorded_model("idx", {"model_id": "hash-16", "embedding": "hash-16"}, None)[1]
    'hash-16'
    >>> recorded_model("idx", {"model_id": "hash-16", "embedding": ""}, HashEmbeddings(8))
    Traceback (most recent call last):
    ...
    ragkit.errors.IndexMismatchError: idx was built with the embedding model 'hash-16' (dimension None), not 'hash-8' (dimension 8). Use the same model (omit --embedding to use the recorded one), or index into a new directory to switch models; nothing was written
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ragkit.embeddings.adapter import as_embeddings
from ragkit.errors import ConfigurationError, IndexDamagedError, IndexMismatchError, RagkitError
from ragkit.indexing.embedding_choice import make_embeddings, spec_of
from ragkit.indexing.splitting import SplitSettings

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

#: Format of the ``index`` section.
CONFIG_FORMAT = 1
#: The sections an index records: what it is, how its chunks were made, your defaults.
SECTION_INDEX = "index"
SECTION_SPLITTER = "splitter"
SECTION_DEFAULTS = "defaults"
#: The record manager's namespace of an index (in its records database or table).
NAMESPACE = "ragkit"

#: The ``[defaults]`` keys the ``ragkit`` command reads, with what each must be.
_CHOICES = {
    "retriever": ("similarity", "mmr", "bm25", "hybrid", "multi-query", "parent"),
    "cleanup": ("incremental", "full", "none"),
}
_POSITIVE = ("k", "workers", "chunk_size")
_NON_NEGATIVE = ("chunk_overlap",)
_TEXT = ("embedding", "splitter", "model", "endpoint")
_PATTERNS = ("glob", "exclude")


def now() -> str:
    """The current UTC time as the index records it."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def dimension_of(embeddings: Embeddings) -> str:
    """The vector size of ``embeddings`` for a message ("unknown" if it cannot be had offline)."""
    try:
        return str(embeddings.dimension or "unknown")
    except RagkitError:
        return "unknown"


def resolve_embeddings(embeddings: Embeddings | str) -> tuple[Embeddings, str]:
    """The model ``embeddings`` names (or is), and the name an index records for it."""
    if isinstance(embeddings, str):
        emb = make_embeddings(embeddings)
        return emb, spec_of(emb, embeddings)
    emb = as_embeddings(embeddings, "embeddings")
    return emb, spec_of(emb)


def new_config(emb: Embeddings, name: str, settings: SplitSettings) -> dict[str, Any]:
    """The record of a new index built with ``emb`` (recorded as ``name``) and ``settings``."""
    return {
        SECTION_INDEX: {
            "format": CONFIG_FORMAT,
            "embedding": name,
            "model_id": emb.model_id,
            "dimension": emb.dimension,
            "created": now(),
        },
        SECTION_SPLITTER: settings.to_dict(),
    }


def recorded_model(
    where: str,
    meta: dict[str, Any],
    embeddings: Embeddings | str | None,
    *,
    home: str = "directory",
    arg: str = "path",
) -> tuple[Embeddings, str]:
    """The model of the index at ``where`` whose ``index`` section is ``meta``: ``embeddings``
    checked against the recorded model id, or (``None``) the recorded model re-created.

    ``home`` names what to index into instead ("directory", "collection"); ``arg`` how
    ``Index.open`` is called on it ("path", "url"). Raises IndexMismatchError for another
    model (or a custom one not given), ConfigurationError when the recorded one cannot load.
    """
    recorded, name = meta.get("model_id"), meta.get("embedding")
    if embeddings is None:
        if not name:
            raise IndexMismatchError(
                f"{where} was built with a custom embedding model ({recorded}); "
                f"pass the same model: Index.open({arg}, embeddings=...)"
            )
        try:
            emb, name = resolve_embeddings(name)
        except ConfigurationError as err:
            raise ConfigurationError(
                f"{where} was built with the embedding model {name!r}, which cannot be "
                f"loaded: {err}. Pass the same model from where it is now: "
                f"Index.open({arg}, embeddings=...) (--embedding on the command line)"
            ) from err
    else:
        emb, name = resolve_embeddings(embeddings)
    if emb.model_id != recorded:
        raise IndexMismatchError(
            f"{where} was built with the embedding model {recorded!r} (dimension "
            f"{meta.get('dimension')}), not {emb.model_id!r} (dimension {dimension_of(emb)}). "
            "Use the same model (omit --embedding to use the recorded one), or index into a new "
            f"{home} to switch models; nothing was written"
        )
    return emb, name or meta.get("embedding") or ""


def split_settings(split: dict[str, Any], source: object) -> SplitSettings:
    """The splitter settings recorded in ``split`` (IndexDamagedError naming ``source``)."""
    try:
        return SplitSettings(
            split.get("name", "recursive"),
            int(split.get("chunk_size", 1000)),
            int(split.get("chunk_overlap", 200)),
        )
    except (ConfigurationError, TypeError, ValueError) as err:
        raise IndexDamagedError(f"{source}: {err}") from err


def check_defaults(table: Any, path: object) -> dict[str, Any]:
    """The ``[defaults]`` table of ``path``, checked: a bad value is a ConfigurationError naming it."""
    if not isinstance(table, dict):
        raise ConfigurationError(f"{path}: [defaults] must be a table")

    def bad(key: str, what: str) -> ConfigurationError:
        return ConfigurationError(
            f"{path}: [defaults] {key} = {table[key]!r} is invalid: {what}; fix or remove it"
        )

    for key, value in table.items():
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if key in _POSITIVE and not (is_int and value > 0):
            raise bad(key, "it must be a whole number above 0")
        if key in _NON_NEGATIVE and not (is_int and value >= 0):
            raise bad(key, "it must be a whole number, 0 or more")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise bad(key, f"it must be one of {', '.join(_CHOICES[key])}")
        if key in _TEXT and not (isinstance(value, str) and value):
            raise bad(key, "it must be a non-empty string")
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if key == "dedupe" and not (isinstance(value, bool) or (is_number and 0 < value <= 1)):
            raise bad(key, "it must be true, false or a similarity threshold above 0, up to 1")
        if key == "dedupe_threshold" and not (is_number and 0 < value <= 1):
            raise bad(key, "it must be a similarity threshold above 0, up to 1")
        if key in _PATTERNS and not (
            isinstance(value, str)
            or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        ):
            raise bad(key, "it must be a pattern or a list of patterns")
    return {k: [v] if k in _PATTERNS and isinstance(v, str) else v for k, v in table.items()}
