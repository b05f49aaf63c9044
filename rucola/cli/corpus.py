"""Commands of the corpus stages: extract, measure, screen, filter, split.

Each is a stage command (``rucola.cli.stage_command``): ``--params``, and where the stage
has them ``--input`` (in place of the key of the stage that writes it), ``--out``,
``--rejected`` and ``--report``, validated like the params file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rucola.cli.common import out, progress
from rucola.cli.stage_command import stage_command

commands = typer.Typer()

if TYPE_CHECKING:
    from rucola.settings import Extract, Filter, Measure, Params, Screen, Split


@stage_command(commands, "extract", section="extract")
def extract(
    settings: Extract,
    params: Params,
    sources: Annotated[
        list[Path] | None,
        typer.Option("--sources", help="file or folder (repeatable); default: extract.sources"),
    ] = None,
) -> None:
    """Extract labelled in-domain sentences from judgment sheets, lists and RuCoLA CSVs."""
    from rucola.corpus.extract import extract as run
    from rucola.settings import ExtractSource
    from rucola.stage import summary_line

    entries = [ExtractSource(path=str(p)) for p in sources] if sources else None
    summary = run(settings, params.corpus.categories, entries, language=params.corpus.language)
    out.print(f"extract: {summary_line(summary)}", markup=False, soft_wrap=True)


@stage_command(
    commands,
    "measure",
    section="measure",
    reads="annotate.corpus.out",
    input_help="parquet with a sentence column",
    outputs=("out", "report"),
)
def measure(
    settings: Measure,
    params: Params,
    source: str,
    workers: Annotated[
        int | None,
        typer.Option("--workers", help="processes; default: filter.workers"),
    ] = None,
) -> None:
    """Compute attributes once per sentence: token count and word lemma frequencies."""
    from rucola.corpus.measure import measure as run
    from rucola.params import checked_option
    from rucola.settings import Filter

    if workers is not None:
        workers = checked_option(Filter, "workers", workers, "--workers")
    summary = run(
        source,
        settings.out,
        params.filter.frequency,
        progress=progress(),
        workers=params.filter.workers if workers is None else workers,
        batch_rows=settings.batch_rows,
        report=settings.report,
        language=params.corpus.language,
    )
    out.print(
        f"measure: {summary['kept']} sentences ({summary['frequency_source']} "
        f"frequencies, {summary['workers']} workers)"
    )


@stage_command(
    commands, "filter", section="filter", reads="measure.out", input_help="measured rows"
)
def filter_(settings: Filter, params: Params, source: str) -> None:
    """Apply the length and word-frequency thresholds to the measured sentences."""
    from rucola.corpus.filters.stage import run_filter
    from rucola.stage import summary_line

    summary = run_filter(settings, source, settings.reference, language=params.corpus.language)
    out.print(f"filter: {summary_line(summary)}", markup=False, soft_wrap=True)


@stage_command(
    commands, "screen", section="screen", reads="screen.input", input_help="measured candidates"
)
def screen(settings: Screen, params: Params, source: str) -> None:
    """Screen measured candidates (screen thresholds, duplicates vs in-domain) before export."""
    from rucola.corpus.filters.stage import run_filter
    from rucola.stage import summary_line

    # The screen section alone: thresholds of its own, so filter.* never reruns it; the
    # in-domain rows (extract.out) rank first and are never set aside.
    summary = run_filter(
        settings, source, [params.extract.out], stage="screen", language=params.corpus.language
    )
    out.print(f"screen: {summary_line(summary)}", markup=False, soft_wrap=True)


@stage_command(
    commands,
    "split",
    section="split",
    reads="filter.out",
    input_help="filtered rows",
)
def split(settings: Split, params: Params, source: str) -> None:
    """Stratified, group-aware train/validation/test split with deterministic ids; then the
    errata (extract.errata) correct or remove published rows."""
    from rucola.corpus.errata import ErrataOptions
    from rucola.corpus.errata import summary_line as errata_line
    from rucola.corpus.split import run_split, summary_lines

    report = run_split(settings, source, ErrataOptions.from_params(params))
    errata = errata_line(report["errata"])
    for line in [*summary_lines(report), *([errata] if errata else [])]:
        out.print(line, markup=False, soft_wrap=True)
