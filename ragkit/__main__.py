"""``python -m ragkit`` runs the ``ragkit`` command."""

from ragkit.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
