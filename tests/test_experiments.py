"""DVC experiments on the embedded sample, in a real git + DVC repository in a temporary
folder: every threshold of the corpus filter is an experiment that runs (exit 0), reruns
the filter and what follows it but never screening or annotation (answers already paid
for stay valid: screening has its own thresholds, ``screen.*``), and is listed by
``dvc exp show``.

Each experiment runs with ``--temp`` (in a copy under ``.dvc/tmp/exps``, from the
committed baseline, outputs from the DVC cache), so only the stages after ``filter`` run,
the workspace is never touched, and the experiments do not pile up on one another.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from dvc_project import copy_of_built, git, ran, run, sh

from rucola.dev.__main__ import run as rucola_dev

pytestmark = pytest.mark.slow

# One experiment per threshold of the corpus filter (filter.*), each away from its default.
THRESHOLDS = {"min_tokens": 6, "max_tokens": 12, "min_high_freq_share": 0.8, "min_ipm": 5}
SETTINGS = [f"filter.{key}={value}" for key, value in THRESHOLDS.items()]
# What a filter experiment must never rerun: the candidates' screening and every
# annotation stage (their outputs are what people were paid for), and the attributes.
UPSTREAM = {
    "extract",
    "generate@perturbations",
    "merge_candidates",
    "measure_candidates",
    "screen",
    "annotate_export",
    "annotate_merge",
    "annotate_corpus",
    "measure",
}


@pytest.fixture(scope="module")
def baseline(built_sample: Path, tmp_path_factory) -> Path:
    """The sample pipeline reproduced and committed (``dvc.lock``, reports), as a user's
    repository stands before trying experiments (a copy of the session's build)."""
    return copy_of_built(built_sample, tmp_path_factory.mktemp("experiments") / "sample")


@pytest.fixture(scope="module")
def experiments(baseline: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    return {
        setting: run(
            "dvc", "exp", "run", "--temp", "-S", setting, "-n", name(setting), cwd=baseline
        )
        for setting in SETTINGS
    }


def name(setting: str) -> str:
    """An experiment's name: its threshold (``filter.min_tokens=6`` -> ``min_tokens``)."""
    return setting.split("=")[0].split(".")[1].replace("_", "-")


@pytest.mark.parametrize("setting", SETTINGS)
def test_a_filter_threshold_is_an_experiment_that_runs_without_screening_again(
    experiments, setting
):
    result = experiments[setting]
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    stages = ran(output)
    assert "filter" in stages and "split" in stages
    assert not UPSTREAM & set(stages), output


def test_dvc_exp_show_lists_every_experiment_and_the_workspace_stays_clean(baseline, experiments):
    assert all(r.returncode == 0 for r in experiments.values())
    assert sh("git", "status", "--porcelain", cwd=baseline) == ""
    shown = json.loads(run("dvc", "exp", "show", "--json", cwd=baseline).stdout)
    head = next(entry for entry in shown if entry["rev"] != "workspace")
    found = {}
    for experiment in head["experiments"] or []:
        for revision in experiment["revs"]:
            assert not revision.get("error"), revision
            data = revision["data"]
            params = data["params"]["params.yaml"]["data"]["filter"]
            changed = [key for key, value in THRESHOLDS.items() if params[key] == value]
            assert len(changed) == 1, params
            found[changed[0]] = data["metrics"]
    assert sorted(found) == sorted(THRESHOLDS)
    assert all(metrics for metrics in found.values())  # each experiment has its metrics


def test_an_applied_experiment_passes_lint_and_generate_keeps_its_value(baseline, experiments):
    """Issue 33, 2: `dvc exp apply` writes params.yaml DVC's way (quoting, flow lists);
    `make lint` passes on it and `make generate` leaves it as it is, so dvc.lock, reports/
    and params.yaml go on agreeing. Runs last: it changes the workspace, then restores it."""
    setting = "filter.min_tokens=6"
    assert experiments[setting].returncode == 0
    try:
        sh("dvc", "exp", "apply", name(setting), cwd=baseline)
        path = baseline / "params.yaml"
        applied = path.read_text(encoding="utf-8")
        assert yaml.safe_load(applied)["filter"]["min_tokens"] == 6
        assert rucola_dev("check", baseline) == 0
        assert rucola_dev("generate", baseline) == 0
        assert path.read_text(encoding="utf-8") == applied
        assert "up to date" in sh("dvc", "status", cwd=baseline)
    finally:
        git("reset", "-q", "--hard", cwd=baseline)
        sh("dvc", "checkout", "-q", cwd=baseline)
