"""The ``ragkit`` command.

Sub-commands arrive with the indexing issue (index, query, ask, eval, info);
until then ``ragkit demo`` runs the offline demo chain.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ragkit", description="Retrieval-augmented generation, offline by default.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="run the offline demo")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from ragkit.demo import main as demo_main

        return demo_main()
    parser.print_help(sys.stderr)
    return 2
