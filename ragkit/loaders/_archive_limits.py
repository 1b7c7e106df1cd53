"""Bounds for containers (archives, e-mail attachments): sizes, ratios, counts, nesting, names.

One :class:`Nesting` travels from a top-level container down into the containers it holds
(a zip in a zip, a zip attached to an e-mail): its :class:`Budget` counts members and
uncompressed bytes across all of them, so nesting cannot multiply the bounds.

API (for archive-like loaders):

* :class:`ArchiveLimits` - the bounds (``max_members``, ``max_total_size``,
  ``max_member_size``, ``max_ratio``, ``max_depth``);
* :func:`safe_member_name` - a member name, or a LoaderError when it is absolute or climbs
  out (``../``) of the archive;
* :meth:`Budget.add_member` / :meth:`Budget.add_bytes` - count a member and its bytes;
  raise when a bound is passed;
* :func:`read_bounded` - read a member's stream in chunks, at most ``limit`` bytes;
* :func:`is_container_bound` - whether an error stops the whole container (a bound of the
  :class:`Budget`) or only the member it was raised for.

Example:
    >>> nesting = Nesting(ArchiveLimits(max_members=2))
    >>> nesting.budget.add_member("a.zip", "one.txt"); nesting.budget.add_member("a.zip", "two.txt")
    >>> nesting.budget.add_member("a.zip", "three.txt")
    Traceback (most recent call last):
    ...
    ragkit.errors.LoaderError: a.zip holds more than 2 members (max_members); not read further
    >>> safe_member_name("a.zip", "../../etc/passwd")
    Traceback (most recent call last):
    ...
    ragkit.errors.LoaderError: a.zip: member '../../etc/passwd' climbs out of the archive (..); not read
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import IO

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE, format_size
from ragkit.errors import ConfigurationError, LoaderError

RATIO_FLOOR = 1 << 20
"""Members (and archives) smaller than this (1 MiB uncompressed) are never refused by ratio."""


@dataclass(frozen=True)
class ArchiveLimits:
    """The bounds on what a container may expand to (shared by every nested container).

    Attributes:
        max_members: Members (files) read in all, nested containers included.
        max_total_size: Uncompressed bytes read in all.
        max_member_size: Uncompressed bytes of one member (default: the 100 MiB file limit).
        max_ratio: Largest uncompressed/compressed ratio of a member or of a whole archive
            once it passes :data:`RATIO_FLOOR` bytes.
        max_depth: How deep containers nest: 1 reads no archive inside an archive,
            2 (the default) one level of archives in archives.
        max_attachments: Attachments read from one e-mail message.
    """

    max_members: int = 10_000
    max_total_size: int = 1 << 30
    max_member_size: int | None = DEFAULT_MAX_FILE_SIZE
    max_ratio: float = 100.0
    max_depth: int = 2
    max_attachments: int = 100

    def __post_init__(self) -> None:
        for name in ("max_members", "max_total_size", "max_depth", "max_attachments"):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"ArchiveLimits.{name} must be >= 1")
        if self.max_ratio <= 1:
            raise ConfigurationError("ArchiveLimits.max_ratio must be > 1")


def bound_error(message: str, archive: str) -> LoaderError:
    """A LoaderError for a bound of the whole container (it stops the container, not a member)."""
    error = LoaderError(message, archive)
    error.whole_container = True  # type: ignore[attr-defined]
    return error


def is_container_bound(error: BaseException) -> bool:
    """Whether ``error`` is a bound of the whole container (too many members, bytes, a bomb)."""
    return bool(getattr(error, "whole_container", False))


@dataclass
class Budget:
    """What has been read so far under one top-level container."""

    limits: ArchiveLimits
    members: int = 0
    total: int = 0

    def add_member(self, archive: str, member: str) -> None:
        """Count one more member; raise past ``max_members``."""
        self.members += 1
        if self.members > self.limits.max_members:
            raise bound_error(
                f"{archive} holds more than {self.limits.max_members} members (max_members); "
                "not read further",
                archive,
            )

    def add_bytes(self, archive: str, count: int) -> None:
        """Count uncompressed bytes; raise past ``max_total_size``."""
        self.total += count
        if self.total > self.limits.max_total_size:
            raise bound_error(
                f"{archive} expands to more than {format_size(self.limits.max_total_size)} "
                "(max_total_size); not read further (a zip bomb?)",
                archive,
            )

    def check_ratio(self, archive: str, member: str, size: int, compressed: int) -> None:
        """Raise when ``size`` bytes from ``compressed`` bytes pass ``max_ratio`` (above the floor)."""
        if size > RATIO_FLOOR and size > self.limits.max_ratio * max(compressed, 1):
            what = f"member {member!r}" if member else "the archive"
            raise bound_error(
                f"{archive}: {what} expands {size / max(compressed, 1):.0f} times "
                f"({format_size(compressed)} to {format_size(size)}), over max_ratio="
                f"{self.limits.max_ratio:g}; not read (a zip bomb?)",
                archive,
            )


@dataclass
class Nesting:
    """Where a container sits: its bounds, the shared budget and its depth (1: top level)."""

    limits: ArchiveLimits = field(default_factory=ArchiveLimits)
    budget: Budget = None  # type: ignore[assignment]
    depth: int = 1

    def __post_init__(self) -> None:
        if self.budget is None:
            self.budget = Budget(self.limits)

    def deeper(self) -> Nesting:
        """The nesting of a container found inside this one."""
        return Nesting(self.limits, self.budget, self.depth + 1)

    def too_deep(self) -> bool:
        return self.depth > self.limits.max_depth


_DRIVE = re.compile(r"^[A-Za-z]:")


def safe_member_name(archive: str, name: str) -> str:
    """``name`` with ``/`` separators, or a LoaderError if it is absolute or climbs out."""
    clean = name.replace("\\", "/")
    if "\x00" in clean:
        raise LoaderError(
            f"{archive}: member {name!r} has a NUL byte in its name; not read", archive
        )
    if clean.startswith("/") or _DRIVE.match(clean):
        raise LoaderError(f"{archive}: member {name!r} has an absolute path; not read", archive)
    parts = [p for p in clean.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise LoaderError(
            f"{archive}: member {name!r} climbs out of the archive (..); not read", archive
        )
    return "/".join(parts)


def member_too_large(archive: str, member: str, limit: int) -> LoaderError:
    """The error for a member over ``max_member_size``."""
    return LoaderError(
        f"{archive}: member {member!r} is larger than {format_size(limit)} "
        "(max_member_size); not read",
        archive,
    )


def read_bounded(stream: IO[bytes], archive: str, member: str, limit: int | None) -> bytes:
    """At most ``limit`` bytes of ``stream`` (a LoaderError when there are more)."""
    parts: list[bytes] = []
    got = 0
    while True:
        part = stream.read(1 << 20)
        if not part:
            return b"".join(parts)
        got += len(part)
        if limit and got > limit:
            raise member_too_large(archive, member, limit)
        parts.append(part)
