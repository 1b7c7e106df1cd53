"""What an index records about itself, and how opening it checks that record.

Both kinds of index (a folder's ``ragkit.toml``, a PostgreSQL collection's settings table)
keep the same two sections: ``index`` (format, embedding name, model id, dimension, times)
and ``splitter`` (the settings its chunks were made with). Opening an index re-creates the
recorded model, or checks the one given, and refuses a model that did not build it before
anything is written.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> emb, name = resolve_embeddings("hash-16")
    >>> name, IndexConfig.new(emb, name, SplitSettings()).dimension
    ('hash-16', 16)
    >>> recorded_model("idx", IndexConfig("hash-16", "hash-16"), None)[1]
    'hash-16'
    >>> recorded_model("idx", IndexConfig("hash-16", ""), HashEmbeddings(8))
    Traceback (most recent call last):
    ...
    ragkit.errors.IndexMismatchError: idx was built with the embedding model 'hash-16' (dimension None), not 'hash-8' (dimension 8). Use the same model (omit --embedding to use the recorded one), or index into a new directory to switch models; nothing was written
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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


@dataclass
class IndexConfig:
    """What an index records about itself: a folder's ``ragkit.toml``, a collection's settings.

    ``index`` section: ``format``, ``embedding`` (the name it was built with, ``None`` for a
    custom model), ``model_id``, ``dimension``, ``created``, ``updated``; ``splitter``: the
    settings its chunks were made with; ``defaults``: your default command options (checked
    when read, see :func:`check_defaults`). :meth:`parse` refuses a record without a model.
    """

    model_id: str
    embedding: str | None
    dimension: int | None = None
    splitter: dict[str, Any] = field(default_factory=dict)
    created: str | None = None
    updated: str | None = None
    format: int = CONFIG_FORMAT
    defaults: dict[str, Any] = field(default_factory=dict)
    #: Sections ragkit does not use, kept as they were when the record is rewritten.
    other: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(cls, emb: Embeddings, name: str, settings: SplitSettings) -> IndexConfig:
        """The record of a new index built with ``emb`` (recorded as ``name``) and ``settings``."""
        return cls(
            model_id=emb.model_id,
            embedding=name,
            dimension=emb.dimension,
            splitter=settings.to_dict(),
            created=now(),
        )

    @classmethod
    def parse(cls, data: Mapping[str, Any], where: object, advice: str) -> IndexConfig:
        """The record in ``data`` (sections as read); IndexDamagedError naming ``where``."""
        sections = {s: data.get(s, {}) for s in (SECTION_INDEX, SECTION_SPLITTER, SECTION_DEFAULTS)}
        for section, table in sections.items():
            if not isinstance(table, dict):
                raise IndexDamagedError(f"{where}: {section} must be a table; {advice}")
        meta = sections[SECTION_INDEX]
        model_id, name, dimension = (
            meta.get("model_id"),
            meta.get("embedding"),
            meta.get("dimension"),
        )
        if not isinstance(model_id, str) or not isinstance(name, (str, type(None))):
            raise IndexDamagedError(
                f"{where} has no valid {SECTION_INDEX}.model_id and embedding; {advice}"
            )
        if not isinstance(dimension, (int, type(None))) or isinstance(dimension, bool):
            raise IndexDamagedError(f"{where}: {SECTION_INDEX}.dimension must be a whole number")
        return cls(
            model_id=model_id,
            embedding=name,
            dimension=dimension,
            splitter=dict(sections[SECTION_SPLITTER]),
            created=_text(meta.get("created")),
            updated=_text(meta.get("updated")),
            format=meta.get("format", CONFIG_FORMAT),
            defaults=dict(sections[SECTION_DEFAULTS]),
            other={k: v for k, v in data.items() if k not in sections},
        )

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The sections as they are stored (``defaults`` only when there are any)."""
        index = {
            "format": self.format,
            "embedding": self.embedding,
            "model_id": self.model_id,
            "dimension": self.dimension,
            "created": self.created,
            "updated": self.updated,
        }
        out: dict[str, dict[str, Any]] = {
            SECTION_INDEX: {k: v for k, v in index.items() if v is not None},
            SECTION_SPLITTER: dict(self.splitter),
        }
        if self.defaults:
            out[SECTION_DEFAULTS] = dict(self.defaults)
        return {**out, **self.other}

    def committed(self, settings: SplitSettings) -> None:
        """Record a commit made with ``settings`` (its splitter and the time)."""
        self.splitter = settings.to_dict()
        self.updated = now()

    def recorded_settings(self) -> dict[str, Any]:
        """The embedding and splitter settings recorded (what a rerun of ``ragkit index``
        reuses when no option overrides them)."""
        out = {
            "embedding": self.embedding or None,
            "splitter": self.splitter.get("name"),
            "chunk_size": self.splitter.get("chunk_size"),
            "chunk_overlap": self.splitter.get("chunk_overlap"),
        }
        return {k: v for k, v in out.items() if v is not None}


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def recorded_model(
    where: str,
    meta: IndexConfig,
    embeddings: Embeddings | str | None,
    *,
    home: str = "directory",
    arg: str = "path",
) -> tuple[Embeddings, str]:
    """The model of the index at ``where`` that recorded ``meta``: ``embeddings``
    checked against the recorded model id, or (``None``) the recorded model re-created.

    ``home`` names what to index into instead ("directory", "collection"); ``arg`` how
    ``Index.open`` is called on it ("path", "url"). Raises IndexMismatchError for another
    model (or a custom one not given), ConfigurationError when the recorded one cannot load.
    """
    recorded, name = meta.model_id, meta.embedding
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
            f"{meta.dimension}), not {emb.model_id!r} (dimension {dimension_of(emb)}). "
            "Use the same model (omit --embedding to use the recorded one), or index into a new "
            f"{home} to switch models; nothing was written"
        )
    return emb, name or meta.embedding or ""


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


def new_config(
    embeddings: Embeddings | str, settings: SplitSettings
) -> tuple[Embeddings, str, IndexConfig]:
    """What a new index records: its model (``embeddings``, made when a name), the model's
    name, and the :class:`IndexConfig` with ``settings``."""
    emb, name = resolve_embeddings(embeddings)
    return emb, name, IndexConfig.new(emb, name, settings)


def opened_with(
    where: str,
    config: IndexConfig,
    embeddings: Embeddings | str | None,
    **names: str,
) -> tuple[Embeddings, str, SplitSettings]:
    """What an existing index at ``where`` that recorded ``config`` is opened with: its model
    and the model's name (:func:`recorded_model`, ``names`` are its ``home`` and ``arg``), and
    the recorded splitter settings."""
    emb, name = recorded_model(where, config, embeddings, **names)
    return emb, name, split_settings(config.splitter, f"{where} splitter settings")


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
