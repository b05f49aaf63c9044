"""`make bench`: figures only, never asserted.

- install time of a fresh virtual environment (base install, pip's cache warm);
- measure + filter throughput on the published RuCoLA in-domain files, and a release
  manager's two builds of the published corpus (`configs/rucola-v1.yaml`, then
  `configs/rucola-v1.1.yaml`) with their row counts and diff (needs RUCOLA_SHARED_DATA);
- merging a RuCoLA-sized crowd round (3,600 sentences, 5 votes each, repeats included)
  from a Label Studio export and from a table listing several votes a row (ItaCoLA's
  layout);
- a human evaluation of every published RuCoLA row (three votes each, named by id with the
  split and domain, then with the sentence; needs RUCOLA_SHARED_DATA);
- extracting minimal pairs from an M2 learner corpus: 20,000 synthetic sentences with
  three annotators, and a real corpus named by ``RUCOLA_M2_CORPUS`` (e.g. GERA's .m2 files);
- extracting a labelled table of 1,000,000 rows (RuCoLA's sentences, each made distinct by
  a number; the sample's without RUCOLA_SHARED_DATA) in a process of its own: rows/s and
  its peak memory (issue 42: readers stream; ``--table-rows`` sets the size);
- the audit's label-error ranking on the published training file with 150 labels flipped
  (``benchmarks/audit.py``; needs RUCOLA_SHARED_DATA).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rucola_corpus() -> dict:
    """RuCoLA's identity (``rucola/presets/rucola.yaml``): the benchmarks read RuCoLA's
    files and Russian tables, and the schema's defaults name no corpus."""
    import yaml

    overlay = yaml.safe_load((ROOT / "rucola/presets/rucola.yaml").read_text("utf-8"))
    return overlay["corpus"]


def rucola_categories():  # noqa: ANN201 (rucola.settings loads lazily, with the benchmark)
    """RuCoLA's categories of unacceptable rows (the defaults declare none)."""
    from rucola.settings import Categories

    return Categories.model_validate(rucola_corpus()["categories"])


BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "tests"))
from dvc_project import copy_project  # noqa: E402  (the copy the DVC tests make)


def run(*args: str, cwd: Path) -> float:
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}")
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def bench_install(tmp: Path) -> None:
    venv = tmp / "venv"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [
            str(venv / "bin/python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-c",
            str(ROOT / "requirements/constraints.txt"),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    print(
        f"install: fresh .venv with the base install: {time.perf_counter() - start:.1f} s "
        "(pip cache warm)"
    )


def bench_filter(tmp: Path) -> None:
    shared = os.environ.get("RUCOLA_SHARED_DATA")
    if not shared:
        print("filter throughput: skipped (RUCOLA_SHARED_DATA not set)")
        return
    shared_path = (ROOT / shared).resolve()
    from rucola.corpus.extract import extract
    from rucola.corpus.filters.stage import run_filter
    from rucola.corpus.measure import measure
    from rucola.settings import Extract, ExtractSource, Filter, Frequency

    settings = Extract(
        out=str(tmp / "x.parquet"),
        rejected=str(tmp / "xr.parquet"),
        report=str(tmp / "x.json"),
        private_report=str(tmp / "xp.json"),
    )
    sources = [
        ExtractSource(path=str(shared_path / "rucola" / f), type="rucola_csv")
        for f in ("in_domain_train.csv", "in_domain_dev.csv")
    ]
    start = time.perf_counter()
    summary = extract(settings, rucola_categories(), sources)
    extract_s = time.perf_counter() - start
    n = summary["kept"]
    for source in ("rnc", "wordfreq"):
        frequency = Frequency(source=source, path=[str(shared_path / "rnc/freqrnc2011.tsv")])
        start = time.perf_counter()
        measure(tmp / "x.parquet", tmp / "m.parquet", frequency, progress=False)
        measure_s = time.perf_counter() - start
        filter_settings = Filter(
            out=str(tmp / "f.parquet"),
            rejected=str(tmp / "fr.parquet"),
            report=str(tmp / "f.json"),
        )
        start = time.perf_counter()
        run_filter(filter_settings, tmp / "m.parquet")
        filter_s = time.perf_counter() - start
        print(
            f"published RuCoLA in-domain ({n} sentences), {source}: measure "
            f"{n / measure_s:,.0f} sentences/s ({measure_s:.2f} s incl. loading), "
            f"thresholds {n / filter_s:,.0f} sentences/s, "
            f"end to end {n / (measure_s + filter_s):,.0f} sentences/s"
        )
    print(f"extract of the published files: {n / extract_s:,.0f} sentences/s")


def bench_maintenance(tmp: Path) -> None:
    """RuCoLA v1 rebuilt from the published files, then v1.1 with the corrections."""
    shared = os.environ.get("RUCOLA_SHARED_DATA")
    if not shared:
        print("published corpus builds: skipped (RUCOLA_SHARED_DATA not set)")
        return
    import pyarrow.parquet as pq

    project = tmp / "maintainer"
    copy_project(project)
    raw = project / "data/raw/rucola_v1"
    shutil.copytree((ROOT / shared / "rucola").resolve(), raw)
    run("git", "init", "-q", cwd=project)
    run("dvc", "add", "-q", "data/raw/rucola_v1", cwd=project)
    seconds = {}
    for version in ("v1", "v1.1"):
        shutil.copy2(project / f"configs/rucola-{version}.yaml", project / "params.yaml")
        seconds[version] = run("dvc", "repro", cwd=project)
        counts = {
            f"{p.parent.name}/{p.stem}": pq.read_metadata(p).num_rows
            for p in sorted((project / "data/release/rucola").glob("*/*.parquet"))
        }
        identical = [
            name
            for name in ("in_domain_train.csv", "in_domain_dev.csv", "out_of_domain_dev.csv")
            + ("test.csv",)
            if (project / "data/release/rucola_csv" / name).read_bytes()
            == (raw / name).read_bytes()
        ]
        print(
            f"RuCoLA {version} from the published files: dvc repro {seconds[version]:.1f} s; "
            f"rows {counts}; byte-identical to the published: {identical or 'none'}"
        )
        if version == "v1":
            shutil.copytree(project / "data/release", tmp / "v1")
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}")
    diff = subprocess.run(
        ["rucola", "release", "diff", str(tmp / "v1/rucola"), "data/release/rucola"],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    summary = [line for line in diff.splitlines() if line.startswith("| ") and "|---" not in line]
    print(
        "v1 -> v1.1 diff:",
        "; ".join(
            line.strip("| ").split(" |")[0] + " " + line.split("|")[2].strip()
            for line in summary[1:7]
        ),
    )


def vote_table(**columns: object):  # noqa: ANN201 - a pandas frame (imported lazily)
    """Votes in the long layout every reader gives (``VOTE_COLUMNS``, then any other
    column given), accepted, a minute a page."""
    import pandas as pd

    from rucola.annotation.votes import VOTE_COLUMNS

    fixed = {"golden": None, "status": "ACCEPTED", "started": pd.NaT, "submitted": pd.NaT}
    fixed |= {"seconds": 60.0, "source": "bench", "line": 0, "origin": "bench"}
    frame = pd.DataFrame({**fixed, **columns})
    return frame[[*VOTE_COLUMNS, *(c for c in columns if c not in VOTE_COLUMNS)]]


def bench_annotation(tmp: Path, tasks: int = 3600) -> None:
    import numpy as np

    from rucola.annotation.answers import read_stage1
    from rucola.annotation.label_studio import write_export
    from rucola.annotation.merge import merge_votes

    rng = np.random.default_rng(0)
    per_task, page = 5, 5
    # Pages of five sentences, each page answered by five workers drawn from 400 (one
    # worker, one page: an assignment); a worker drawn twice for a page answers it twice.
    records = []
    for first in range(0, tasks, page):
        for k, who in enumerate(rng.integers(0, 400, per_task)):
            for t in range(first, first + page):
                records.append((f"t{t:05d}", f"w{who:03d}", f"a{first}-{k}"))
    task, worker, assignment = (list(c) for c in zip(*records, strict=True))
    label = np.where(rng.random(len(task)) < 0.6, "1", "0")
    votes = vote_table(
        task=task,
        sentence=[f"Предложение {t}." for t in task],
        worker=worker,
        label=label,
        assignment=assignment,
    )
    export = tmp / "label_studio.json"
    write_export(votes, export, 1)
    wide = tmp / "several_a_row.tsv"
    grouped = votes.groupby("task", sort=True)
    rows = [
        f"{t}\tПредложение {t}.\t{','.join(g['label'])}\t{','.join(g['worker'])}"
        for t, g in grouped
    ]
    wide.write_text("id\tsentence\tvotes\tplayers\n" + "\n".join(rows) + "\n", encoding="utf-8")
    columns = {"task": "id", "label": "votes", "worker": "players"}
    options = {"min_votes": 3, "min_control_accuracy": 0.5, "min_page_seconds": 30}
    for name, read in (
        ("Label Studio export", lambda: read_stage1([export])),
        ("several votes a row", lambda: read_stage1([], [wide], columns=columns)),
    ):
        start = time.perf_counter()
        read_votes = read()
        read_s = time.perf_counter() - start
        start = time.perf_counter()
        result = merge_votes(read_votes, None, method="majority", repeated_votes="first", **options)
        merge_s = time.perf_counter() - start
        counts = result.stage1.counts()
        print(
            f"annotate merge, {name}: {len(read_votes):,} votes read in {read_s:.2f} s "
            f"({len(read_votes) / read_s:,.0f} votes/s), cleaned and aggregated in "
            f"{merge_s:.2f} s; dropped {counts['dropped_by_reason']}"
        )


def bench_human_eval(tmp: Path, limit: int | None = None) -> None:
    """A human evaluation on RuCoLA's published rows (13,445; ids unique per split and
    domain; needs RUCOLA_SHARED_DATA): three votes on every row, named by id with the split
    and domain, then by id with the sentence; each vote joined to its row by its whole key,
    cleaned, aggregated and scored. ``limit``: the first rows only (the tiny run)."""

    from rucola.annotation.human_eval import evaluate
    from rucola.corpus.sources.rucola_csv import published_frame
    from rucola.settings import Annotate

    shared = Path(os.environ.get("RUCOLA_SHARED_DATA", ROOT.parent / "shared/data"))
    if not (shared / "rucola/test.csv").is_file():
        print("annotate human-eval: skipped (no RUCOLA_SHARED_DATA/rucola)")
        return
    rows = published_frame(shared / "rucola")
    if limit:
        rows = rows.groupby("split", sort=False).head(limit).reset_index(drop=True)
    rows = rows.assign(published_id=rows["id"], published_split=rows["split"])
    settings = Annotate.model_validate({"votes_target": "corpus", "human_eval": {"min_votes": 1}})
    for way in ("split and domain", "sentence"):
        votes = vote_table(
            task=rows["id"].astype(str).repeat(3).to_numpy(),
            worker=[f"w{i % 7}" for i in range(3 * len(rows))],
            label=["1", "0", "1"] * len(rows),
            sentence=rows["sentence"].repeat(3).to_numpy() if way == "sentence" else None,
            split=rows["split"].repeat(3).to_numpy() if way != "sentence" else None,
            domain=rows["domain"].repeat(3).to_numpy() if way != "sentence" else None,
            assignment=[f"a{i}" for i in range(3 * len(rows))],
        )
        start = time.perf_counter()
        evaluation = evaluate(votes, rows, settings, "ru")
        seconds = time.perf_counter() - start
        joined = len(evaluation.votes_on_rows)
        print(
            f"annotate human-eval, RuCoLA's {len(rows):,} rows named by id and {way}: "
            f"{len(votes):,} votes joined, cleaned, aggregated and scored in {seconds:.2f} s "
            f"({len(votes) / seconds:,.0f} votes/s); {joined:,} joined their row, set aside "
            f"{evaluation.result['why'].value_counts().to_dict()}"
        )


def _synthetic_m2(path: Path, sentences: int, seed: int = 0) -> None:
    """A learner corpus the size of the multi-reference benchmarks: sentences of 5-30
    tokens from the sample's words, three annotators, each with 1-3 edits of GERA's types
    or (one in ten) none."""
    import random

    rng = random.Random(seed)
    words = sorted(
        {
            word.strip(".,!?«»()")
            for f in (ROOT / "data/sample/in_domain").glob("*.tsv")
            for line in f.read_text(encoding="utf-8").splitlines()[1:]
            for word in line.split("\t")[0].split()
            if word.strip(".,!?«»()").isalpha()
        }
    )
    types = ["G:NOUN:CASE", "G:VERB:P/N/G", "G:PREP:WRONG", "L:OTHER", "S:ORTH", "PUNCT", "LACK"]
    blocks = []
    for _ in range(sentences):
        n = rng.randint(5, 30)
        tokens = [rng.choice(words) for _ in range(n)] + ["."]
        lines = ["S " + " ".join(tokens)]
        for annotator in range(3):
            if rng.random() < 0.1:
                lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{annotator}")
                continue
            points = sorted(rng.sample(range(n), rng.randint(1, 3)))
            for start in points:  # one-token replacements: never overlapping
                edit = rng.choice(types)
                lines.append(
                    f"A {start} {start + 1}|||{edit}|||{rng.choice(words)}"
                    f"|||REQUIRED|||-NONE-|||{annotator}"
                )
        blocks.append("\n".join(lines))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


def bench_learner(tmp: Path, sentences: int = 20_000) -> None:
    """Extraction of minimal pairs from M2: a synthetic corpus of 20,000 sentences with three
    annotators, and (``RUCOLA_M2_CORPUS``: a .m2 file or folder, e.g. GERA) a real one."""
    import resource

    from rucola.corpus.extract import extract
    from rucola.settings import Extract, ExtractSource

    settings = Extract(
        out=str(tmp / "l.parquet"),
        rejected=str(tmp / "lr.parquet"),
        report=str(tmp / "l.json"),
        private_report=str(tmp / "lp.json"),
    )
    corpora = [("synthetic, 3 annotators", tmp / "learner.m2")]
    _synthetic_m2(corpora[0][1], sentences)
    if os.environ.get("RUCOLA_M2_CORPUS"):
        corpora.append(("RUCOLA_M2_CORPUS", Path(os.environ["RUCOLA_M2_CORPUS"])))
    for name, path in corpora:
        start = time.perf_counter()
        summary = extract(settings, rucola_categories(), [ExtractSource(path=str(path), type="m2")])
        seconds = time.perf_counter() - start
        learner = summary["learner"]
        print(
            f"extract, M2 learner corpus ({name}): {learner['sentences']:,} sentences in "
            f"{seconds:.2f} s ({learner['sentences'] / seconds:,.0f} sentences/s); "
            f"{summary['kept']:,} rows kept, {learner['pairs']:,} pairs, "
            f"set aside {summary['set_aside']}; peak RSS "
            f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB"
        )


def _base_rows() -> list[tuple[str, int, str, str]]:
    """(sentence, label, error type, source) of real examples: the published RuCoLA
    training file, or without RUCOLA_SHARED_DATA the sample's sheets."""
    import csv

    shared = Path(os.environ.get("RUCOLA_SHARED_DATA", ROOT.parent / "shared/data"))
    published = (ROOT / shared / "rucola/in_domain_train.csv").resolve()
    if published.is_file():
        with published.open(encoding="utf-8", newline="") as f:
            return [
                (r["sentence"], int(r["acceptable"]), r["error_type"], r["detailed_source"])
                for r in csv.DictReader(f)
            ]
    rows = []
    for sheet in sorted((ROOT / "data/sample/in_domain").glob("*.tsv")):
        with sheet.open(encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                label = 0 if (r.get("mark") or "").strip() else 1
                # a mark in the sentence, or a starred row without its category: not here
                if "mark" in r and r["sentence"].strip() and (label or r["error_type"].strip()):
                    rows.append((r["sentence"], label, r["error_type"], r["source"]))
    return rows


def labelled_table(path: Path, rows: int) -> None:
    """A sheet of ``rows`` labelled examples with an id and a published split (8:1:1), read
    through ``columns``: real sentences cycled, each with its row number before the final
    punctuation so that no two are the same."""
    import csv
    import re

    base = _base_rows()
    end = re.compile(r"[.!?…»\"]*$")
    splits = ["train"] * 8 + ["dev", "test"]
    with path.open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, delimiter="\t", lineterminator="\n")
        out.writerow(["id", "sentence", "label", "error_type", "source", "split"])
        for i in range(rows):
            sentence, label, error_type, source = base[i % len(base)]
            tail = end.search(sentence).group()
            numbered = f"{sentence[: len(sentence) - len(tail)]} {i}{tail}"
            kind = error_type if label == 0 else ""
            out.writerow([i, numbered, label, kind, source, splits[i % 10]])


def bench_table(tmp: Path, rows: int = 1_000_000) -> None:
    """``rucola extract`` of a labelled table of ``rows`` rows in a process of its own:
    rows/s and its peak memory (RSS). A failed run is an error, never a figure."""
    import json

    import yaml

    table = tmp / "table.tsv"
    labelled_table(table, rows)
    out = tmp / "table"
    params = tmp / "table.yaml"
    columns = {"id": "id", "label": "label", "split": "split"}
    source = {"path": str(table), "type": "sheet", "columns": columns}
    extract = {
        "sources": [source],
        "out": str(out / "kept.parquet"),
        "rejected": str(out / "rejected.parquet"),
        "report": str(out / "extract.json"),
        "private_report": str(out / "private.json"),
    }
    params.write_text(
        yaml.safe_dump({"corpus": rucola_corpus(), "extract": extract}, allow_unicode=True),
        encoding="utf-8",
    )
    rucola = str(BIN / "rucola")
    done = subprocess.run(
        [sys.executable, "-c", PEAK, rucola, "extract", "--params", str(params)],
        capture_output=True,
        text=True,
        check=False,
    )
    figures = done.stdout.split()
    if done.returncode != 0 or len(figures) != 3 or figures[2] != "0":
        raise RuntimeError(f"extract of the {rows:,}-row table failed:\n{done.stderr[-3000:]}")
    seconds, peak = float(figures[0]), float(figures[1])
    report = json.loads((out / "extract.json").read_text(encoding="utf-8"))
    print(
        f"extract, labelled table ({rows:,} rows, {table.stat().st_size / 2**20:,.0f} MiB): "
        f"{rows / seconds:,.0f} rows/s ({seconds:.1f} s, start-up included); peak RSS "
        f"{peak:,.0f} MiB; kept {report['kept']:,}, set aside {report['set_aside']}"
    )


# Seconds, peak RSS (MiB) and exit status of a command run by a child of this one-liner:
# the peak is the command's own, not this benchmark's.
PEAK = (
    "import resource, subprocess, sys, time; t = time.perf_counter(); "
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "sys.stderr.write(done.stdout + done.stderr); "
    "print(time.perf_counter() - t, "
    "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, done.returncode)"
)


def bench_audit() -> None:
    """``benchmarks/audit.py`` (it prints its own lines, or says it is skipped)."""
    sys.stdout.flush()  # its lines after the ones already printed, even through a pipe
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "audit.py")], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-install", action="store_true")
    parser.add_argument(
        "--tiny",
        action="store_true",
        help="the in-process benchmarks at a tiny size, nothing else (the test suite's check "
        "that they run; no figure of it means anything)",
    )
    parser.add_argument(
        "--table-rows",
        type=int,
        default=1_000_000,
        help="rows of the labelled table extract reads (default 1,000,000)",
    )
    parser.add_argument(
        "--only-table",
        action="store_true",
        help="only the labelled table's extract (with --table-rows: a memory check)",
    )
    args = parser.parse_args()
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if args.tiny:
            bench_annotation(tmp_path, tasks=60)
            bench_human_eval(tmp_path, limit=20)
            bench_learner(tmp_path, sentences=200)
            bench_table(tmp_path, rows=300)
            return
        if args.only_table:
            bench_table(tmp_path, args.table_rows)
            return
        if not args.skip_install:
            bench_install(tmp_path)
        bench_filter(tmp_path)
        bench_maintenance(tmp_path)
        bench_annotation(tmp_path)
        bench_human_eval(tmp_path)
        bench_learner(tmp_path)
        bench_table(tmp_path, args.table_rows)
        bench_audit()


if __name__ == "__main__":
    main()
