"""``ragkit inspect PATHS`` (and ``ragkit index --dry-run``): what would be loaded, per format, and why not.

Nothing is loaded and nothing is written: the walk of ``ragkit index`` runs (names, sizes,
the first bytes for content sniffing) and :func:`ragkit.indexing.inventory.inventory`
counts its entries per type. Exit code 0, or 1 when some file would fail (too large,
unreadable, a name that is not UTF-8), as ``ragkit index`` would.

Example:
    $ ragkit inspect docs/ --exclude '*.log'
    $ ragkit index docs/ --index my-index --dry-run --json
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ragkit._cli import output
from ragkit._cli.guard import guarded

if TYPE_CHECKING:
    from ragkit.indexing.inventory import Inventory
    from ragkit.indexing.options import WriteOptions

EXAMPLES = 3
"""Entries listed per type and reason in the text output (``--json`` lists them all)."""


def inventory_text(inv: Inventory, examples: int = EXAMPLES) -> str:
    """The text report: one row per type (loader, would load, would not by reason), then examples."""
    from ragkit.indexing.report import escape_text

    lines = [
        f"Would load {inv.would_load} of {inv.files_seen} files under "
        f"{', '.join(escape_text(p) for p in inv.paths)} (dry run: no file loaded, nothing written)"
    ]
    width = max([len(f.type) for f in inv.formats] + [4])
    names = [(f.loader or "-") + (f" [{f.extra}]" if f.extra else "") for f in inv.formats]
    loader_width = max([len(n) for n in names] + [6])
    lines.append(f"  {'type':<{width}}  {'loader':<{loader_width}}  {'load':>5}  not loaded")
    for counts, name in zip(inv.formats, names):
        why = ", ".join(f"{n} {code}" for code, n in sorted(counts.not_loaded.items()))
        row = f"  {counts.type:<{width}}  {name:<{loader_width}}  {counts.load:>5}  {why}"
        lines.append(row.rstrip())
    groups: dict[tuple[str, str], list[str]] = {}
    reasons: dict[tuple[str, str], str] = {}
    for item in inv.skipped:
        key = (item.type, item.code)
        groups.setdefault(key, []).append(item.path)
        reasons.setdefault(key, item.reason)
    if groups:
        lines.append("Not loaded:")
    for (kind, code), paths in groups.items():
        shown = ", ".join(escape_text(p) for p in paths[:examples])
        more = f" and {len(paths) - examples} more" if len(paths) > examples else ""
        reason = escape_text(reasons[(kind, code)]) if len(paths) == 1 else code
        lines.append(f"  {kind} ({code}): {shown}{more}: {reason}")
    return "\n".join(lines)


def run_inventory(paths: tuple[str, ...], options: WriteOptions, as_json: bool) -> None:
    """Print the inventory of ``paths`` under ``options`` (glob, exclude, size limit), as text
    or JSON, and exit 1 if some file would fail."""
    from ragkit.indexing.inventory import inventory

    inv = inventory(list(paths), options.glob, options.exclude, options.size_limit)
    if as_json:
        data = inv.to_dict()
        data["dry_run"] = True
        output.emit_json(data)
    else:
        print(inventory_text(inv))
    sys.exit(1 if any(s.status == "failed" for s in inv.skipped) else 0)


@click.command("inspect")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--glob", multiple=True, help="Only files matching this pattern (repeatable).")
@click.option("--exclude", multiple=True, help="Skip files matching this pattern (repeatable).")
@click.option(
    "--max-file-size",
    envvar="RAGKIT_MAX_FILE_SIZE",
    default="100MiB",
    show_default=True,
    help="Larger files would fail, e.g. 20M, 1GiB; 0: no limit.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@guarded
def inspect_cmd(
    paths: tuple[str, ...],
    glob: tuple[str, ...],
    exclude: tuple[str, ...],
    max_file_size: str,
    as_json: bool,
) -> None:
    """List, per file type, what `ragkit index` would load and what not, and why; writes nothing.

    Each type shows its loader (and the extra it needs); files that would not be loaded are
    counted by reason (no-loader, needs-extra, too-large, hidden, empty, ...).

    \b
    Examples:
      ragkit inspect docs/
      ragkit inspect mail/ --glob '**/*.eml' --json
    """
    from ragkit.indexing.options import WriteOptions

    options = WriteOptions(glob=glob, exclude=exclude, max_file_size=max_file_size)
    run_inventory(paths, options, as_json)
