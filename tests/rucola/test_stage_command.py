"""The stage command factory: every stage command gets the same options, checked by the
schema like the params file; ``--input`` replaces the key of the stage that writes the
file; ``--out`` alone takes the stage's companion outputs beside it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
import typer
from identity import with_identity, write_identity
from typer.testing import CliRunner

from rucola.cli.stage_command import stage_command
from rucola.io import write_parquet
from rucola.settings import Filter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "guarantees"))
from guards import one_error_line, snapshot  # noqa: E402


def toy(tmp_path: Path) -> tuple[typer.Typer, dict]:
    """A stage command on the filter section that records what it was given."""
    app = typer.Typer()
    seen: dict = {}

    @stage_command(app, "toy", section="filter", reads="measure.out")
    def run(settings: Filter, source: str) -> None:
        seen.update(settings=settings, source=source)

    (tmp_path / "params.yaml").write_text(
        json.dumps(with_identity({"measure": {"out": "written_by_measure.parquet"}})),
        encoding="utf-8",
    )
    return app, seen


def invoke(app: typer.Typer, tmp_path: Path, *args: str) -> None:
    result = CliRunner().invoke(
        app, [*args, "--params", str(tmp_path / "params.yaml")], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output


def test_input_defaults_to_the_writers_key_and_the_option_replaces_it(tmp_path):
    app, seen = toy(tmp_path)
    invoke(app, tmp_path)
    assert seen["source"] == "written_by_measure.parquet"
    invoke(app, tmp_path, "--input", "other.parquet")
    assert seen["source"] == "other.parquet"


def test_out_alone_takes_the_companions_beside_it(tmp_path):
    app, seen = toy(tmp_path)
    invoke(app, tmp_path, "--out", "trial/kept.parquet")
    settings = seen["settings"]
    assert settings.out == "trial/kept.parquet"
    assert settings.rejected == "trial/filter.parquet"
    assert settings.report == "trial/filter.json"
    # a companion given too stays where it is given
    invoke(app, tmp_path, "--out", "trial/kept.parquet", "--report", "elsewhere.json")
    assert seen["settings"].report == "elsewhere.json"
    assert seen["settings"].rejected == "trial/filter.parquet"


def test_a_bad_option_is_one_line_naming_it(run_cli, tmp_path):
    """``--workers`` stands in for ``filter.workers`` and is held to its bounds."""
    write_identity(tmp_path)
    code, _, stderr = run_cli("measure", "--workers", "0", cwd=tmp_path)
    assert code == 1 and stderr.startswith("error: --workers"), stderr
    assert len(stderr.strip().splitlines()) <= 2 and "Traceback" not in stderr


def test_filter_out_puts_plots_beside_it_never_over_the_pipelines(run_cli, tmp_path):
    measured = pa.table(
        {
            "sentence": ["Мальчик читает книгу каждый день.", "Мальчик читает."],
            "label": [1, 1],
            "origin": ["s.tsv:2", "s.tsv:3"],
            "n_tokens": [6, 3],
            "word_ipm": pa.array([[100.0] * 5, [100.0] * 2], pa.list_(pa.float32())),
        }
    )
    write_parquet(measured, tmp_path / "measured.parquet")
    write_identity(tmp_path)
    code, _, stderr = run_cli(
        "filter", "--input", "measured.parquet", "--out", "trial/kept.parquet", cwd=tmp_path
    )
    assert code == 0, stderr
    written = sorted(p.name for p in (tmp_path / "trial").iterdir())
    assert written == ["filter.json", "filter.parquet", "kept.parquet"]
    assert not (tmp_path / "reports").exists() and not (tmp_path / "data").exists()


def test_split_reads_what_filter_writes(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        json.dumps(with_identity({"filter": {"out": "filtered_here.parquet"}})), encoding="utf-8"
    )
    code, _, stderr = run_cli("split", cwd=tmp_path)
    assert code == 1 and stderr.startswith("error: filtered_here.parquet"), stderr


def test_a_companion_named_like_the_output_never_overwrites_it(tmp_path):
    """``split.rejected`` is ``rejected/split.parquet``: ``split --out x/split.parquet``
    must not put the set-aside rows over the split rows."""
    from rucola.cli.stage_command import beside
    from rucola.settings import Split

    moved = beside(Split(), Path("trial/split.parquet"), set())
    assert moved == {
        "rejected": "trial/rejected_split.parquet",
        "report": "trial/split.json",
        "private_report": "trial/private_report_split.json",
        "plot": "trial/token_lengths.csv",
        "plot_png": "trial/token_lengths.png",
    }
    paths = [*moved.values(), "trial/split.parquet"]
    assert len(set(paths)) == len(paths)


def measured_rows(folder: Path) -> None:
    """Two measured rows ``filter`` keeps: with a path it may write, the command succeeds."""
    measured = pa.table(
        {
            "sentence": ["Мальчик читает книгу каждый день.", "Девочка пишет письмо."],
            "label": [1, 1],
            "origin": ["s.tsv:2", "s.tsv:3"],
            "n_tokens": [6, 4],
            "word_ipm": pa.array([[100.0] * 5, [100.0] * 3], pa.list_(pa.float32())),
        }
    )
    write_parquet(measured, folder / "measured.parquet")


FILTER = ("filter", "--input", "measured.parquet")


@pytest.mark.parametrize(
    ("args", "option", "protected"),
    [
        ((*FILTER, "--out", ".git/kept.parquet"), "--out", ".git/"),
        ((*FILTER, "--rejected", ".dvc/rejected.parquet"), "--rejected", ".dvc/"),
        ((*FILTER, "--report", ".git/hooks/filter.json"), "--report", ".git/"),
        ((*FILTER, "--out", "git-link/kept.parquet"), "--out", ".git/"),  # a link into .git
        ((*FILTER, "--out", "{root}/.git/kept.parquet"), "--out", ".git/"),  # absolute
        ((*FILTER, "--out", "{root}/elsewhere/.git/x.parquet"), "--out", ".git/"),  # any .git
        (("audit", "export", "--out", ".dvc/review"), "--out", ".dvc/"),
        (("annotate", "export", "--out", ".git/pool"), "--out", ".git/"),
        (("baseline", "--report", ".git/baseline.json"), "--out/--report", ".git/"),
        (
            ("evaluate", "pred.csv", "--gold", "gold.parquet", "--out", ".git/evaluation.json"),
            "--out",
            ".git/",
        ),
        (("release", "keep", "--version", "1.0.0", "--into", ".git/releases"), "--into", ".git/"),
        (("annotate", "simulate", "--out-dir", ".git/sim"), "--out-dir", ".git/"),
        (("audit", "import", "pred.csv", "--out", ".dvc/errata/e.csv"), "--out", ".dvc/"),
    ],
)
def test_a_command_line_output_under_git_or_dvc_is_refused(run_cli, tmp_path, args, option,
                                                           protected):  # fmt: skip
    """A params path under ``.git/`` or ``.dvc/`` was refused, the same path given on the
    command line was written there (``filter --out .git/kept.parquet`` succeeded). Every
    output option is held to the rule, before any work: one line naming the option and
    the folder, nothing written."""
    root = tmp_path / "repo"
    (root / ".git/hooks").mkdir(parents=True)
    (root / ".git/HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (root / ".dvc").mkdir()
    (root / "elsewhere/.git").mkdir(parents=True)
    (root / "git-link").symlink_to(root / ".git")
    measured_rows(root)
    (root / "pred.csv").write_text("id,acceptable\n0,1\n1,0\n", encoding="utf-8")
    pd.DataFrame({"id": [0, 1], "label": [1, 0], "error_type": [None, "Syntax"]}).to_parquet(
        root / "gold.parquet"
    )
    before = snapshot(root)
    code, _, stderr = run_cli(*(a.format(root=root) for a in args), cwd=root)
    assert code == 1
    one_error_line(stderr, f"error: {option}: ", f"lies inside {protected}")
    assert snapshot(root) == before
    assert not (root / "reports").exists() and not (root / "data").exists()


def test_a_command_line_output_elsewhere_is_still_the_users_choice(run_cli, tmp_path):
    """Only git's and DVC's folders are refused: a path outside the repository given on
    the command line is written as before (``--out ../trial/kept.parquet``)."""
    root = tmp_path / "repo"
    root.mkdir()
    measured_rows(root)
    write_identity(root)
    code, _, stderr = run_cli(*FILTER, "--out", "../trial/kept.parquet", cwd=root)
    assert code == 0, stderr
    assert (tmp_path / "trial/kept.parquet").is_file()


def test_a_trial_report_takes_the_private_report_beside_it(run_cli, tmp_path):
    """``--report`` alone: the private report (what test rows hide) goes beside the trial
    report, never over the pipeline's ``reports/private/``."""
    from corpora import corpus

    write_parquet(corpus(60).assign(n_tokens=3), tmp_path / "in.parquet")
    write_identity(tmp_path)
    code, _, stderr = run_cli(
        "split", "--input", "in.parquet", "--report", "trial/s.json", cwd=tmp_path
    )
    assert code == 0, stderr
    assert sorted(p.name for p in (tmp_path / "trial").iterdir()) == ["private_s.json", "s.json"]
    assert not (tmp_path / "reports/private").exists()
