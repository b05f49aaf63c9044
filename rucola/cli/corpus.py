"""Commands of the corpus stages: extract, measure, screen, filter, split."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rucola.cli.common import (
    InputOption,
    OutOption,
    ParamsOption,
    RejectedOption,
    ReportOption,
    checked,
    out,
    override,
    progress,
    read_params,
)
from rucola.cli.stage_command import stage_command

commands = typer.Typer()

if TYPE_CHECKING:
    from rucola.settings import Filter


@commands.command()
def extract(
    sources: Annotated[
        list[Path] | None,
        typer.Option("--sources", help="file or folder (repeatable); default: extract.sources"),
    ] = None,
    out_path: OutOption = None,
    rejected: RejectedOption = None,
    report: ReportOption = None,
    params_file: ParamsOption = None,
) -> None:
    """Extract labelled in-domain sentences from judgment sheets, lists and RuCoLA CSVs."""
    from rucola.corpus.extract import extract as run
    from rucola.stage import summary_line

    section = override(
        read_params(params_file)["extract"], out=out_path, rejected=rejected, report=report
    )
    entries = [{"path": str(p), "type": None} for p in sources] if sources else section["sources"]
    summary = run(entries, section, section["out"], section["rejected"], section["report"])
    out.print(f"extract: {summary_line(summary)}", markup=False, soft_wrap=True)


@commands.command()
def measure(
    input_path: Annotated[
        Path | None,
        typer.Option("--input", help="parquet with a sentence column; default: measure.input"),
    ] = None,
    out_path: OutOption = None,
    report: ReportOption = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", help="processes; default: filter.workers"),
    ] = None,
    params_file: ParamsOption = None,
) -> None:
    """Compute attributes once per sentence: token count and word lemma frequencies."""
    from rucola.corpus.measure import measure as run
    from rucola.settings import Filter

    params = read_params(params_file)
    section = override(params["measure"], input=input_path, out=out_path, report=report)
    workers = checked(workers, Filter, "workers", "--workers")
    summary = run(
        section["input"],
        section["out"],
        params["filter"]["frequency"],
        progress=progress(),
        workers=workers or params["filter"]["workers"],
        batch_rows=section["batch_rows"],
        report=section["report"],
    )
    out.print(
        f"measure: {summary['kept']} sentences ({summary['frequency_source']} "
        f"frequencies, {summary['workers']} workers)"
    )


@stage_command(
    commands, "filter", section="filter", reads="filter.input", input_help="measured rows"
)
def filter_(settings: Filter, source: str) -> None:
    """Apply the length and word-frequency thresholds to the measured sentences."""
    from rucola.corpus.filters.stage import run_filter
    from rucola.stage import summary_line

    summary = run_filter(settings.model_dump() | {"input": source})
    out.print(f"filter: {summary_line(summary)}", markup=False, soft_wrap=True)


@commands.command()
def screen(
    input_path: InputOption = None,
    out_path: OutOption = None,
    rejected: RejectedOption = None,
    report: ReportOption = None,
    params_file: ParamsOption = None,
) -> None:
    """Screen measured candidates (screen thresholds, duplicates vs in-domain) before export."""
    from rucola.corpus.filters.stage import run_filter
    from rucola.stage import summary_line

    # The screen section alone: thresholds of its own, so filter.* never reruns it.
    section = override(
        read_params(params_file)["screen"],
        input=input_path,
        out=out_path,
        rejected=rejected,
        report=report,
    )
    summary = run_filter(section, stage="screen")
    out.print(f"screen: {summary_line(summary)}", markup=False, soft_wrap=True)


@commands.command()
def split(
    input_path: InputOption = None,
    out_path: OutOption = None,
    report: ReportOption = None,
    params_file: ParamsOption = None,
) -> None:
    """Stratified, group-aware train/validation/test split with deterministic ids."""
    from rucola.corpus.split import run_split, summary_lines

    section = override(
        read_params(params_file)["split"], input=input_path, out=out_path, report=report
    )
    for line in summary_lines(run_split(section)):
        out.print(line, markup=False, soft_wrap=True)
