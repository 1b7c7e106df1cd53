"""Runs the damaged-index matrix in a child process (see test_damage_matrix.py).

The child caps its address space (a regression that allocates gigabytes fails here, not the
machine) and gives every operation a SIGALRM deadline (a regression that hangs on a FIFO is
reported as a timeout). It prints one JSON line per case.

Usage: python -m tests.reliability.matrix_worker WORKDIR
"""

from __future__ import annotations

import json
import random
import resource
import shutil
import signal
import sys
import traceback
from pathlib import Path

DEADLINE_SECONDS = 20
MEMORY_LIMIT = 6 << 30

FILES = (
    "ragkit.toml",
    "CURRENT",
    "index.lock",
    "SNAP/manifest.json",
    "SNAP/READERS",
    "SNAP/records.sqlite",
    "SNAP/store/manifest.json",
    "SNAP/store/index.1.faiss",
    "SNAP/store/docstore.1.json",
    "SNAP/bm25/bm25.json",
    "SNAP/bm25/bm25.npz",
)


class Deadline(Exception):
    pass


def _alarm(_signum, _frame):
    raise Deadline()


def attempt(fn, baseline):
    """Run ``fn``; classify what happened."""
    from ragkit.errors import RagkitError

    signal.alarm(DEADLINE_SECONDS)
    try:
        result = fn()
    except Deadline:
        return {"outcome": "timeout"}
    except RagkitError as err:
        return {"outcome": "error", "class": type(err).__name__, "message": str(err)}
    except BaseException as err:  # noqa: BLE001 - what the matrix exists to find
        return {
            "outcome": "traceback",
            "class": type(err).__name__,
            "message": "".join(traceback.format_exception(err)[-6:]),
        }
    finally:
        signal.alarm(0)
    return {"outcome": "same" if result == baseline else "changed"}


def main(workdir: Path) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    signal.signal(signal.SIGALRM, _alarm)
    from ragkit import Index
    from tests.reliability.index_helpers import answers, build, current, write_docs
    from tests.reliability.matrix_cases import MUTATIONS, damage, reseal_snapshot

    docs = write_docs(workdir / "docs")
    template = workdir / "template"
    build(template, docs).close()
    snap_name = current(template).name
    baseline = answers(template)

    def write_then_answer(root: Path):
        with Index.open(root) as idx:
            idx.add([docs])
        return answers(root)

    rng = random.Random(19)
    for rel in FILES:
        for how in MUTATIONS:
            for sealed in (False, True):
                case = workdir / "case"
                shutil.copytree(template, case, symlinks=True)
                target = case / rel.replace("SNAP", snap_name)
                damage(target, how, rng)
                if sealed:
                    reseal_snapshot(case / snap_name)
                row = {"file": rel, "mutation": how, "sealed": sealed}
                row["read"] = attempt(lambda case=case: answers(case), baseline)
                row["write"] = attempt(lambda case=case: write_then_answer(case), baseline)
                print(json.dumps(row), flush=True)
                shutil.rmtree(case, ignore_errors=True)
                if case.exists():  # a directory that rmtree refused: clear it by hand
                    for p in sorted(case.rglob("*"), reverse=True):
                        (p.rmdir if p.is_dir() and not p.is_symlink() else p.unlink)()
                    case.rmdir()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
