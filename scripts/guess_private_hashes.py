"""Try issue 32's brute force against a built corpus repository: can a guessed errata file
be confirmed by a hash that git tracks?

An errata file written by ``rucola audit import`` follows a template (the header, one row
per decision, the reason ``review: <decision> by N of M`` when reviewers leave no
comment), and the public test ids are in the release. Before salted folders, the md5 in
``dvc.lock`` (or a ``.dvc`` file) and the SHA-256 in ``reports/inputs/`` of a one-row
errata file could be matched by hashing every such guess: a hit tells a hidden test row's
label and category. This script makes every one-row guess over the public test ids (each
decision, old and new value, domain and reviewer count), hashes each (md5, SHA-256), and
looks for the digests among every hex string in the files git tracks. It also hashes the
errata files really in ``--errata`` (the right guess, whatever it is) and looks for those.

    .venv/bin/python scripts/guess_private_hashes.py --root . --errata data/raw/errata

It prints the number of guesses, whether the real files are among them, and the hits: 0
hits is the expected answer. Exit 0 with no hit, 1 with any.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import itertools
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

HEADER = ["split", "domain", "id", "field", "new", "reason", "old"]
DOMAINS = ["", "in_domain", "out_of_domain"]
CATEGORIES = ["Morphology", "Syntax", "Semantics", "Hallucination"]
REVIEWERS = [(n, m) for m in range(1, 8) for n in range(m // 2 + 1, m + 1)]
HEX = re.compile(rb"\b[0-9a-f]{32}(?:[0-9a-f]{32})?\b")


def tracked_digests(root: Path) -> tuple[set[str], int]:
    """Every 32- or 64-digit hex string in the files git tracks, and how many files."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.split(b"\0")
    found: set[str] = set()
    files = [n.decode() for n in names if n]
    for name in files:
        path = root / name
        if path.is_file():
            found.update(m.decode() for m in HEX.findall(path.read_bytes()))
    return found, len(files)


def public_test_rows(root: Path) -> list[tuple[str, str]]:
    """The id and sentence of each released test row (its label hidden)."""
    ids: list[tuple[str, str]] = []
    for path in sorted((root / "data/release").rglob("test.parquet")):  # public folders
        frame = pd.read_parquet(path, columns=["id", "sentence"])
        ids += [(str(i), str(s)) for i, s in zip(frame["id"], frame["sentence"], strict=True)]
    if not ids:
        sys.exit(f"{root}/data/release: no test.parquet (build the release first)")
    return ids


def rows_for(test_id: str, sentence: str) -> list[list[list[str]]]:
    """Every one-decision errata body `audit import` could write for one test row."""
    bodies = []
    for domain, (n, m) in itertools.product(DOMAINS, REVIEWERS):
        base = ["test", domain, test_id]
        relabel = f"review: relabel by {n} of {m}"
        bodies.append([[*base, "label", "1", relabel, "0"]])
        for category in CATEGORIES:
            bodies.append(
                [
                    [*base, "label", "0", relabel, "1"],
                    [*base, "error_type", category, relabel, ""],
                ]
            )
            for other in CATEGORIES:
                if other != category:
                    why = f"review: change category by {n} of {m}"
                    bodies.append([[*base, "error_type", category, why, other]])
        bodies.append([[*base, "remove", "", f"review: remove by {n} of {m}", sentence]])
    return bodies


def as_file(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--errata", type=Path, required=True, help="the errata folder")
    args = parser.parse_args()
    root = args.root.resolve()
    digests, n_files = tracked_digests(root)
    real = {p.read_bytes() for p in sorted((root / args.errata).glob("*.csv"))}
    start = time.perf_counter()
    tries = hits = 0
    real_guessed = 0
    for test_id, sentence in public_test_rows(root):
        for rows in rows_for(test_id, sentence):
            data = as_file(rows)
            tries += 1
            real_guessed += data in real
            for digest in (hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest()):  # noqa: S324
                hits += digest in digests
    seconds = time.perf_counter() - start
    real_hits = sum(
        digest in digests
        for data in real
        for digest in (hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest())  # noqa: S324
    )
    print(f"git tracks {n_files} files holding {len(digests)} hex digests")
    print(f"{tries} guessed errata files hashed in {seconds:.1f} s")
    print(f"real errata files in {args.errata}: {len(real)}, among the guesses: {real_guessed}")
    print(f"hits: {hits} among the guesses, {real_hits} for the real files")
    return 1 if hits or real_hits else 0


if __name__ == "__main__":
    sys.exit(main())
