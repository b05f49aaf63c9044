"""``rucola summarize``: the headline metrics (``reports/metrics.json``) from the stage
reports, the one file ``dvc metrics show`` prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from headline_reports import reports, write_reports

KEYS = ["accept", "alpha", "in_dom", "kept", "learner", "mcc", "out_dom", "test", "train", "val"]


def summarize(run_cli, root: Path) -> tuple[int, str, str]:
    return run_cli("summarize", "--params", "params.yaml", cwd=root)


def test_the_headline_from_the_reports(run_cli, tmp_path: Path):
    write_reports(tmp_path, reports())
    code, out, err = summarize(run_cli, tmp_path)
    assert code == 0, err
    metrics = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert sorted(metrics) == KEYS
    assert metrics == {
        "train": 96,  # 80 in-domain + 16 learner
        "val": 32,
        "test": 37,  # 10 + 20 + 2 with a domain, 5 published rows without
        "in_dom": 90,  # train and validation only
        "out_dom": 20,
        "learner": 18,
        "kept": 0.971,  # 165 / 170 from the counts
        "accept": round((80 * 0.7 + 10 * 0.6 + 20 * 0.25 + 18 * 0.5) / 128, 3),
        "mcc": -0.052,
        "alpha": 0.239,  # stage 1
    }
    assert "m.json" in out and "kept 0.971" in out


def test_without_an_annotation_round_alpha_is_null(run_cli, tmp_path: Path):
    write_reports(tmp_path, reports(has_answers=False))
    assert summarize(run_cli, tmp_path)[0] == 0
    assert json.loads((tmp_path / "m.json").read_text())["alpha"] is None


def test_same_reports_same_bytes_and_out_replaces_the_path(run_cli, tmp_path: Path):
    write_reports(tmp_path, reports())
    summarize(run_cli, tmp_path)
    first = (tmp_path / "m.json").read_bytes()
    assert run_cli("summarize", "--params", "params.yaml", "--out", "x.json", cwd=tmp_path)[0] == 0
    assert (tmp_path / "x.json").read_bytes() == first
    assert first.endswith(b"\n") and json.loads(first)


def test_the_sample_shape_fits_dvc_in_120_columns(run_cli, tmp_path: Path):
    """DVC's table, as ``dvc metrics show`` draws it, for the widest headline: three domains,
    negative scores, RuCoLA-sized counts."""
    from dvc.compare import metrics_table
    from tabulate import tabulate

    contents = reports()
    contents["reports/filter.json"] = {"read": 11000, "kept": 10444}
    split = contents["reports/split.json"]
    split["domains"]["in_domain"]["splits"]["train"]["rows"] = 78690
    write_reports(tmp_path, contents)
    assert summarize(run_cli, tmp_path)[0] == 0
    metrics = json.loads((tmp_path / "m.json").read_text())
    table = metrics_table({"workspace": {"data": {"reports/metrics.json": {"data": metrics}}}})
    text = tabulate(list(table), table.keys(), tablefmt="plain", disable_numparse=True)
    assert max(len(line) for line in text.splitlines()) <= 120, text


@pytest.mark.parametrize(
    ("change", "needles"),
    [
        (lambda r: r.pop("reports/baseline.json"), ["reports/baseline.json", "not found"]),
        (
            lambda r: r["reports/split.json"].pop("test"),
            ["reports/split.json", "'test.rows'"],
        ),
        (
            lambda r: r["reports/split.json"]["domains"].update(klingon={}),
            ["reports/split.json", "unknown domain 'klingon'"],
        ),
        (
            lambda r: r["reports/filter.json"].update(kept="165"),
            ["reports/filter.json", "'kept' is not a number"],
        ),
        (
            lambda r: r["reports/annotation.json"].pop("has_answers"),
            ["reports/annotation.json", "'has_answers'"],
        ),
    ],
)
def test_a_report_that_is_missing_or_wrong_is_one_line(run_cli, tmp_path: Path, change, needles):
    contents = reports()
    change(contents)
    write_reports(tmp_path, contents)
    code, _, err = summarize(run_cli, tmp_path)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert all(n in lines[0] for n in needles), lines[0]
    assert not (tmp_path / "m.json").exists()


def test_a_report_that_is_not_json_names_its_line(run_cli, tmp_path: Path):
    write_reports(tmp_path, reports())
    (tmp_path / "reports/split.json").write_text('{\n  "domains": {},\n  oops\n}\n')
    code, _, err = summarize(run_cli, tmp_path)
    assert code == 1 and "error: reports/split.json:3: split report is not valid JSON" in err
    assert not (tmp_path / "m.json").exists()
