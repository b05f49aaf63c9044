"""Benchmarks are code: each one runs here at a tiny size, so a change that breaks one
fails the suite instead of ``make bench`` (which prints figures and is run less often).
Nothing here asserts on speed; only that each benchmark runs to its end and prints its
figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# benchmarks at a tiny size still load models and run stages: `make test` runs them,
# `make test-fast` leaves them out
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def bench(tmp_path: Path, script: str, *args: str) -> str:
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    env.pop("RUCOLA_SHARED_DATA", None)  # the real-data builds are the slow part
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,  # a benchmark writes only in its own temporary folders
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_scale_benchmark_runs(tmp_path):
    out = bench(tmp_path, "scale.py", "--sizes", "2000")
    assert "failed" not in out and any(line.split()[:1] == ["2000"] for line in out.splitlines())
    # measure per language profile, at the largest size
    profiles = {line.split()[0]: line.split() for line in out.splitlines() if line.split()}
    for lang in ("ru", "en", "ja"):
        assert profiles[lang][1] == "2000", out
        assert 5 < float(profiles[lang][4]) < 25, out  # tokens per sentence: words, not chars


def test_generation_benchmark_runs(tmp_path):
    out = bench(tmp_path, "generation.py", "--tiny", "--sentences", "4", "--new-tokens", "4")
    assert "Marian of the tests' tiny size" in out
    for way in ("naive", "transformers", "ctranslate2"):
        assert any(line.startswith(way) for line in out.splitlines()), out


def test_in_process_benchmarks_run(tmp_path):
    out = bench(tmp_path, "run.py", "--tiny")
    assert "annotate merge, Label Studio export" in out
    assert "annotate human-eval, RuCoLA's" in out or "annotate human-eval: skipped" in out
    assert "extract, M2 learner corpus" in out
    # the labelled table, read whole by extract in a process of its own (issue 42)
    assert "extract, labelled table (300 rows" in out and "peak RSS" in out


def test_build_benchmark_runs(tmp_path):
    out = bench(tmp_path, "build.py", "--tiny")
    lines = out.splitlines()
    assert lines[0].startswith("tiny: cold build ") and "3 stages; bookkeeping 2 stages" in out
    assert "no-op build" in lines[0] and "slowest stages: " in lines[1], out


def test_the_published_build_benchmark_says_where_it_looked_for_the_files(tmp_path):
    """``build.py --published`` builds the published RuCoLA (a minute: not here); without
    the files it stops at once, in one line naming the folder, having built nothing."""
    env = dict(os.environ, RUCOLA_SHARED_DATA=str(tmp_path / "nowhere"))
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/build.py"), "--published"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == (
        f"--published: {tmp_path / 'nowhere'}/rucola lacks the published RuCoLA files "
        "(set RUCOLA_SHARED_DATA to the folder that holds rucola/)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_audit_benchmark_runs(tmp_path):
    out = bench(tmp_path, "audit.py", "--sentences", "120", "--seeds", "1")
    assert "synthetic stand-in (120 sentences)" in out
    mean = [line for line in out.splitlines() if line.startswith("mean of 1 seeds: audit ")]
    assert mean and "; cleanlab default " in mean[0] and "; with the source " in mean[0], out


def test_homoglyphs_benchmark_runs(tmp_path):
    out = bench(tmp_path, "homoglyphs.py", "--rows", "200")
    assert "homoglyphs, a look-alike word in every row: 200 rows" in out, out
    assert "(200 past the fast path)" in out, out
