"""``python -m rucola.dev generate|check``: rewrite, or check, every derived file.

``generate`` writes what is stale and names it; ``check`` writes nothing and exits 1
naming each stale file (``make lint``, CI), so a change to the code or the schema that
leaves a derived file behind cannot be committed unnoticed. ``params.yaml`` is the
exception: the user's (and DVC's) file, checked by what it says and never given back the
generated values (``rucola.dev.user_params``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from rucola.errors import RucolaError
from rucola.import_graph import ROOT

Generator = Callable[[Path, bool], list[str]]
USAGE = "usage: python -m rucola.dev generate|check"


def fingerprints(root: Path, check: bool) -> list[str]:
    """The code fingerprints (``reports/code/``): the stale or foreign files' names."""
    from rucola.cli import app
    from rucola.code_fingerprint import OUT_DIR, stale, write

    changed, removed = stale(app, root) if check else write(app, root)
    return [(OUT_DIR / name).as_posix() for name in [*changed, *removed]]


def generators() -> list[Generator]:
    """The corpus repository's pipeline (package data, so before the fingerprints that
    cover it), the code fingerprints, then the params files and the params table
    (rucola.dev.params, when present: it is written separately, and this command runs
    without it)."""
    from rucola.dev import pipeline

    found: list[Generator] = [pipeline.generate, fingerprints]
    try:
        params = importlib.import_module("rucola.dev.params")
    except ModuleNotFoundError as error:
        if error.name != "rucola.dev.params":
            raise
        print("note: rucola.dev.params not found: params files not generated", file=sys.stderr)
    else:
        found += [params.generate, params.readme]
    return found


def run(action: str, root: Path = ROOT) -> int:
    """Run ``generate`` or ``check`` over ``root``; the exit status."""
    if action not in ("generate", "check"):
        print(USAGE, file=sys.stderr)
        return 2
    check = action == "check"
    try:
        stale = [name for generate in generators() for name in generate(root, check)]
    except RucolaError as error:
        for line in error.format().split("\n"):  # every problem of a params file, one line each
            print(f"error: {line}", file=sys.stderr)
        return 1
    for name in stale:
        print(f"{'stale' if check else 'wrote'}: {name}", file=sys.stderr if check else sys.stdout)
    if check and stale:
        print("error: run `make generate` (python -m rucola.dev generate)", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    return run(args[0])


if __name__ == "__main__":
    sys.exit(main())
