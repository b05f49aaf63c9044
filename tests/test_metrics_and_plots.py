"""What a person reads of a build, in a real DVC repository of the built sample: `dvc
metrics show` is the headline in 120 columns, `dvc exp show` has readable columns, every
`dvc plots show` plot has its axes and a series per domain, and looking at plots or
scoring leaves `git status` clean (issue 24, 3)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from dvc_project import checked, copy_of_built, git, restore
from test_docs_experiments import keep_pattern

from rucola.corpus.plots import COLUMNS, UNLABELLED

pytestmark = pytest.mark.slow

HEADLINE = [
    "accept",
    "alpha",
    "in_dom",
    "kept",
    "learner",
    "mcc",
    "out_dom",
    "test",
    "train",
    "val",
]
TOKENS = "reports/plots/token_lengths.csv"
CANDIDATES = "reports/plots/candidate_token_lengths.csv"
AGREEMENT = "reports/plots/annotation_agreement.csv"


def sh(*args: str, cwd: Path, columns: int | None = None) -> str:
    """A command's stdout alone: what a person sees in the terminal, measured for width."""
    return checked(*args, cwd=cwd, columns=columns).stdout


@pytest.fixture(scope="module")
def project(built_sample: Path, tmp_path_factory) -> Path:
    """The sample built by `dvc repro` and committed, as a user has it after `make repro`
    (a copy of the session's build: the last test changes params)."""
    root = copy_of_built(built_sample, tmp_path_factory.mktemp("project") / "sample")
    assert git("status", "--porcelain", cwd=root) == ""
    return root


def test_dvc_metrics_show_is_the_headline_in_120_columns(project: Path):
    text = sh("dvc", "metrics", "show", cwd=project)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 120, text
    assert lines[0].split() == ["Path", *HEADLINE]
    assert len(lines) == 2 and lines[1].split()[0] == "reports/metrics.json"
    shown = json.loads(sh("dvc", "metrics", "show", "--json", cwd=project))
    (revision,) = shown.values()
    assert list(revision["data"]) == ["reports/metrics.json"]  # the detailed reports: outs
    metrics = revision["data"]["reports/metrics.json"]["data"]
    split = json.loads((project / "reports/split.json").read_text(encoding="utf-8"))
    in_domain = split["domains"]["in_domain"]["splits"]
    assert metrics["in_dom"] == in_domain["train"]["rows"] + in_domain["validation"]["rows"]
    # test rows are counted, not per domain: the public report gives their total alone
    assert all("test" not in d["splits"] for d in split["domains"].values())
    assert metrics["test"] == split["test"]["rows"] > 0
    assert metrics["alpha"] is not None and 0 < metrics["kept"] <= 1


def test_dvc_exp_show_shows_the_documented_columns(project: Path):
    """docs/pipeline.md's invocation picks columns a 120-column terminal shows whole (DVC draws
    `…` for every column it has no room for: all of them, with every param shown)."""
    pick = keep_pattern()  # docs/pipeline.md's own invocation
    text = sh(
        "dvc", "exp", "show", "--no-pager", "--drop", ".*", "--keep", pick, cwd=project, columns=120
    )
    assert "…" not in text, text
    header = next(line for line in text.splitlines() if "Experiment" in line).split()
    assert header[:5] == ["Experiment", "accept", "kept", "mcc", "train"]
    assert "filter.min_tokens" in header


def _vega(project: Path) -> dict[str, dict]:
    shown = json.loads(sh("dvc", "plots", "show", "--json", cwd=project))
    assert not shown.get("errors"), shown["errors"]
    items = [(name, item) for name, entries in shown["data"].items() for item in entries]
    images = {name for name, item in items if item["type"] == "image"}
    assert images == {p.replace(".csv", ".png") for p in (TOKENS, CANDIDATES, AGREEMENT)}
    return {name: item["content"] for name, item in items if item["type"] == "vega"}


def _column_sums(project: Path, path: str) -> dict[str, int]:
    with (project / path).open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {c: sum(int(r[c]) for r in rows) for c in rows[0] if c != "n_tokens"}


def test_every_plot_has_its_axes_and_a_series_per_domain(project: Path):
    vega = _vega(project)
    assert set(vega) == {TOKENS, CANDIDATES, AGREEMENT}

    # Kept rows: a line per domain (the series field), over every length.
    spec = vega[TOKENS]
    assert spec["encoding"]["x"]["field"] == "n_tokens"
    assert spec["encoding"]["x"]["type"] == "quantitative"
    assert spec["encoding"]["y"]["field"] == "dvc_inferred_y_value"
    assert spec["encoding"]["strokeDash"]["field"] == "field"
    values = spec["data"]["values"]
    series: dict[str, int] = {}
    for value in values:
        series[value["field"]] = series.get(value["field"], 0) + int(value["dvc_inferred_y_value"])
    # after the split a published test row without gold is a test row: no unlabelled line
    assert set(series) == set(COLUMNS) - {UNLABELLED}
    filtered = json.loads((project / "reports/filter.json").read_text(encoding="utf-8"))
    assert sum(series.values()) == filtered["kept"]
    split = json.loads((project / "reports/split.json").read_text(encoding="utf-8"))
    for domain, info in split["domains"].items():  # train and validation rows per domain
        rows = sum(part["rows"] for part in info["splits"].values())
        assert series[domain] == rows > 0  # the sample has rows of every domain
    assert series["test"] == split["test"]["rows"] > 0  # test rows: one line, domain hidden
    assert {**series, UNLABELLED: 0} == _column_sums(project, TOKENS)

    # Screened candidates: out-of-domain, one line.
    spec = vega[CANDIDATES]
    assert spec["encoding"]["x"]["field"] == "n_tokens"
    assert spec["encoding"]["y"]["field"] == "out_of_domain"
    screened = json.loads((project / "reports/screen.json").read_text(encoding="utf-8"))
    counted = sum(int(v["out_of_domain"]) for v in spec["data"]["values"])
    assert counted == screened["kept"] > 0
    assert {v["rev"] for v in spec["data"]["values"]} == {"workspace"}

    # Agreement: horizontal bars, the value along x, one bar per stage and category.
    spec = vega[AGREEMENT]
    assert spec["mark"]["type"] == "bar"
    assert (spec["encoding"]["x"]["field"], spec["encoding"]["x"]["type"]) == (
        "wawa",
        "quantitative",
    )
    assert (spec["encoding"]["y"]["field"], spec["encoding"]["y"]["type"]) == (
        "category",
        "nominal",
    )
    bars = spec["data"]["values"]
    assert bars and all(0 <= float(b["wawa"]) <= 1 for b in bars)
    assert {b["category"] for b in bars} >= {"stage1:overall", "stage2:overall"}


def test_looking_and_scoring_leave_git_status_clean(project: Path):
    sh("dvc", "plots", "show", cwd=project)
    sh("dvc", "plots", "show", "--json", cwd=project)
    sh("dvc", "metrics", "show", cwd=project)
    sh("dvc", "exp", "show", "--no-pager", cwd=project)
    sh("rucola", "evaluate", "data/release/rucola_csv/sample_submission.csv", cwd=project)
    assert (project / "dvc_plots/index.html").is_file()
    assert (project / "reports/evaluation.json").is_file()
    assert git("status", "--porcelain", "--untracked-files=all", cwd=project) == ""


def test_exp_show_only_changed_compares_a_change_readably(project: Path):
    """A changed param in the workspace: docs/pipeline.md's `--only-changed` invocation shows it
    and the metrics it moved, whole, in 120 columns. Undone as a user undoes an edit
    (``restore``: git, then DVC's cache): the stages it reran write persistent reports,
    which DVC's run cache skips (docs/pipeline.md), so a `dvc repro` would run them again."""
    before = (project / "params.yaml").read_text(encoding="utf-8")
    # Edited as text: a YAML dump would reorder every mapping, which DVC shows as changed.
    at = before.index("min_ipm: 1.0", before.index("\nfilter:"))
    changed = before[:at] + "min_ipm: 2.0" + before[at + len("min_ipm: 1.0") :]
    (project / "params.yaml").write_text(changed, encoding="utf-8")
    try:
        sh("dvc", "repro", cwd=project)
        text = sh(
            "dvc",
            "exp",
            "show",
            "--no-pager",
            "--only-changed",
            "--drop",
            "Created|.*/",
            cwd=project,
            columns=120,
        )
        assert "…" not in text, text
        header = next(line for line in text.splitlines() if "Experiment" in line).split()
        assert "filter.min_ipm" in header and "kept" in header
        assert not [h for h in header if "/" in h or h.startswith("filter.min_tokens")]
    finally:
        restore(project)
    assert (project / "params.yaml").read_text(encoding="utf-8") == before
