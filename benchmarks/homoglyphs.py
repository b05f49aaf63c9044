"""`make bench`: how fast homoglyph repair is, the rule extract runs on every row.

Over the published RuCoLA files (Russian, 13,445 rows) and ItaCoLA (Italian, 9,722 rows)
from ``$RUCOLA_SHARED_DATA``, then over synthetic rows that each hold a candidate whole
word of look-alikes (the slow path: a wordfreq lookup for each new word), it prints rows
per second and how many rows left the fast path (:func:`has_twin`). Figures only, never
asserted. ``--rows N`` runs the synthetic part alone on N rows (the test suite's check that
the benchmark runs; its figures mean nothing).
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

from rucola.corpus.homoglyphs import fix_homoglyphs, has_twin

ROOT = Path(__file__).resolve().parents[1]
RUCOLA = ["in_domain_train", "in_domain_dev", "out_of_domain_dev", "test"]


def _published(shared: Path) -> list[tuple[str, list[str]]]:
    corpora: list[tuple[str, list[str]]] = []
    rucola: list[str] = []
    for name in RUCOLA:
        with open(shared / "rucola" / f"{name}.csv", encoding="utf-8", newline="") as handle:
            rucola += [row["sentence"] for row in csv.DictReader(handle)]
    corpora.append(("ru", rucola))
    itacola = shared / "itacola" / "ItaCoLA_dataset.tsv"
    if itacola.is_file():
        with open(itacola, encoding="utf-8", newline="") as handle:
            rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            corpora.append(("it", [row["Sentence"] for row in rows]))
    return corpora


def _synthetic(rows: int) -> list[str]:
    """Russian rows each quoting a distinct Latin word of look-alikes (``copy``, ``ee``...,
    numbered so that no two are alike and wordfreq's cache never answers)."""
    stems = ["copy", "cop", "ox", "ee", "cope", "pace", "xop", "caxap"]
    return [
        f"Слово {stems[i % len(stems)]}{'ac'[i % 2] * (1 + i % 3)} встретилось {i} раз."
        for i in range(rows)
    ]


def bench(language: str, texts: list[str], label: str) -> None:
    start = time.perf_counter()
    for text in texts:
        fix_homoglyphs(text, language)
    seconds = time.perf_counter() - start
    slow = sum(has_twin(text, language) for text in texts)
    print(
        f"homoglyphs, {label}: {len(texts):,} rows in {seconds:.2f} s, "
        f"{len(texts) / seconds:,.0f} rows/s ({slow:,} past the fast path)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, help="the synthetic rows only, this many")
    args = parser.parse_args()
    fix_homoglyphs("Он сказал ee.", "ru")  # wordfreq's Russian and English lists loaded
    if args.rows is None:
        shared = os.environ.get("RUCOLA_SHARED_DATA") or str(ROOT.parent / "shared" / "data")
        if (Path(shared) / "rucola").is_dir():
            for language, texts in _published(Path(shared)):
                bench(language, texts, f"published {language}")
        else:
            print("homoglyphs, published files: skipped (RUCOLA_SHARED_DATA not set)")
    bench("ru", _synthetic(args.rows or 20_000), "a look-alike word in every row")


if __name__ == "__main__":
    main()
