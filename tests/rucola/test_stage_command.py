"""The stage command factory: every stage command gets the same options, checked by the
schema like the params file; ``--input`` replaces the key of the stage that writes the
file; ``--out`` alone takes the stage's companion outputs beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import typer
from typer.testing import CliRunner

from rucola.cli.stage_command import stage_command
from rucola.io import write_parquet
from rucola.settings import Filter


def toy(tmp_path: Path) -> tuple[typer.Typer, dict]:
    """A stage command on the filter section that records what it was given."""
    app = typer.Typer()
    seen: dict = {}

    @stage_command(app, "toy", section="filter", reads="measure.out")
    def run(settings: Filter, source: str) -> None:
        seen.update(settings=settings, source=source)

    (tmp_path / "params.yaml").write_text(
        json.dumps({"measure": {"out": "written_by_measure.parquet"}}), encoding="utf-8"
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
    assert settings.plot == "trial/token_lengths.csv"
    assert settings.plot_png == "trial/token_lengths.png"
    # a companion given too stays where it is given
    invoke(app, tmp_path, "--out", "trial/kept.parquet", "--report", "elsewhere.json")
    assert seen["settings"].report == "elsewhere.json"
    assert seen["settings"].rejected == "trial/filter.parquet"


def test_a_bad_option_is_one_line_naming_it(run_cli, tmp_path):
    """``--workers`` stands in for ``filter.workers`` and is held to its bounds."""
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
    code, _, stderr = run_cli(
        "filter", "--input", "measured.parquet", "--out", "trial/kept.parquet", cwd=tmp_path
    )
    assert code == 0, stderr
    written = sorted(p.name for p in (tmp_path / "trial").iterdir())
    assert written == ["filter.json", "filter.parquet", "kept.parquet", "token_lengths.csv",
                       "token_lengths.png"]  # fmt: skip
    assert not (tmp_path / "reports").exists() and not (tmp_path / "data").exists()


def test_split_reads_what_filter_writes(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        json.dumps({"filter": {"out": "filtered_here.parquet"}}), encoding="utf-8"
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
    }
    paths = [*moved.values(), "trial/split.parquet"]
    assert len(set(paths)) == len(paths)
