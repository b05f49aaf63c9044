"""Scale benchmark (issue 8): a million candidates through filtering and deduplication.

On the same generated Russian sentences (common words from wordfreq's offline Russian
list, 4-20 words, with 5% exact and 5% one-word-changed repeats), prints:

- a bare single-core ``razdel.tokenize`` loop, in sentences/s;
- our filter stage (``rucola measure`` streaming over all cores, then ``rucola screen``
  thresholds with exact and near-duplicate removal), in sentences/s, and its ratio to the
  bare loop;
- exact and near-duplicate removal alone, in sentences/s;
- peak memory (RSS of the stage and its worker processes).

Each size runs in its own process so that its peak memory is its own. Figures only.

    python benchmarks/scale.py [--sizes 100000 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_sentences(n: int, seed: int = 0) -> list[str]:
    from wordfreq import top_n_list

    words = [w for w in top_n_list("ru", 20_000) if w.isalpha()]
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(n):
        roll = rng.random()
        if out and roll < 0.05:
            out.append(rng.choice(out))  # exact repeat
            continue
        if out and roll < 0.10:
            base = rng.choice(out).rstrip(".").split()
            base[rng.randrange(len(base))] = rng.choice(words)  # one word changed
            out.append(" ".join(base) + ".")
            continue
        k = rng.randint(4, 20)
        sentence = " ".join(rng.choice(words) for _ in range(k))
        out.append(sentence[:1].upper() + sentence[1:] + ".")
    return out


def peak_rss_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def run_size(n: int, work: Path) -> dict:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq
    import razdel

    from corpus.filters.duplicates import find_duplicates
    from corpus.filters.stage import run_filter
    from corpus.measure import measure
    from rucola.params import DEFAULTS

    sentences = make_sentences(n)
    candidates = work / f"candidates-{n}.parquet"
    pq.write_table(
        pa.table(
            {
                "sentence": sentences,
                "detailed_source": ["Bench"] * n,
                "candidate_id": [f"c{i}" for i in range(n)],
            }
        ),
        candidates,
    )
    bare_n = min(n, 100_000)
    started = time.perf_counter()
    for sentence in sentences[:bare_n]:
        for _ in razdel.tokenize(sentence):
            pass
    bare = bare_n / (time.perf_counter() - started)

    filter_params = {
        **DEFAULTS["filter"],
        "input": str(work / f"measured-{n}.parquet"),
        "out": str(work / f"screened-{n}.parquet"),
        "rejected": str(work / f"rejected-{n}.parquet"),
        "report": str(work / f"screen-{n}.json"),
        "plot": str(work / f"plot-{n}.csv"),
        "plot_png": str(work / f"plot-{n}.png"),
    }
    started = time.perf_counter()
    measure(candidates, filter_params["input"], {"source": "wordfreq"}, progress=False)
    measured = time.perf_counter() - started
    # Thresholds (and the cheap exact-key pass) without MinHash: the filter figure.
    no_near = {**filter_params, "near_duplicates": {**filter_params["near_duplicates"]}}
    no_near["near_duplicates"]["enabled"] = False
    started = time.perf_counter()
    run_filter(no_near)
    screened = time.perf_counter() - started
    started = time.perf_counter()
    report = run_filter(filter_params)
    full_screen = time.perf_counter() - started

    frame = pd.DataFrame({"sentence": sentences, "domain": "out_of_domain"})
    frame["origin"] = frame["group"] = [f"c{i}" for i in range(n)]
    started = time.perf_counter()
    found = find_duplicates(frame, DEFAULTS["filter"]["near_duplicates"])
    dedup = time.perf_counter() - started
    total = measured + screened
    return {
        "n": n,
        "bare_razdel_per_s": bare,
        "filter_per_s": n / total,
        "filter_seconds": total,
        "measure_seconds": measured,
        "screen_seconds": screened,
        "stage_seconds": measured + full_screen,
        "ratio_to_bare": (n / total) / bare,
        "dedup_per_s": n / dedup,
        "duplicates": int((found.reason == "duplicate").sum()),
        "near_duplicates": int((found.reason == "near_duplicate").sum()),
        "kept": report["kept"],
        "peak_rss_mib": peak_rss_mib(),
        "cores": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rucola-scale-") as tmp:
        if args.one:
            print(json.dumps(run_size(args.one, Path(tmp))))
            return
        print("scale: filter and deduplicate generated candidates")
        header = f"{'rows':>9}{'razdel/s':>10}{'filter/s':>10}{'x razdel':>9}{'dedup/s':>10}"
        print(header + f"{'stage s':>9}{'dups':>8}{'near':>8}{'peak MiB':>10}")
        for n in args.sizes:
            command = [sys.executable, __file__, "--one", str(n)]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{n}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(
                f"{r['n']:>9}{r['bare_razdel_per_s']:>10.0f}{r['filter_per_s']:>10.0f}"
                f"{r['ratio_to_bare']:>9.2f}{r['dedup_per_s']:>10.0f}{r['stage_seconds']:>9.1f}"
                f"{r['duplicates']:>8}{r['near_duplicates']:>8}{r['peak_rss_mib']:>10.0f}"
            )
        print(
            "filter/s: measure (all cores) + thresholds; dedup/s: exact + MinHash near-duplicates;"
            " stage s: measure + thresholds + deduplication"
        )
        print("(goals: filter >= 1.5x the bare loop on 2 cores; 1M in < 3 min under 2 GiB)")


if __name__ == "__main__":
    main()
