"""``rucola annotate``: task pools out, people's answers in, labelled rows into the corpus.

Every option defaults to the ``annotate`` section of the params file, so DVC stages call
these commands without options.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from rucola.cli.common import (
    OutOption,
    ParamsOption,
    RejectedOption,
    ReportOption,
    checked,
    one_of,
    out,
    override,
    read_params,
)

annotate_app = typer.Typer(
    no_args_is_help=True,
    help="Crowd annotation: export task pools, merge answers, simulate, add to the corpus.",
)

StageFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--stage1",
        help="stage-1 answers: Toloka TSV, Label Studio JSON or long CSV; file or folder "
        "(repeatable)",
    ),
]
Stage2Files = Annotated[
    list[Path] | None,
    typer.Option(
        "--stage2",
        help="stage-2 answers: Toloka TSV or Label Studio JSON; file or folder (repeatable)",
    ),
]
VoteFiles = Annotated[
    list[Path] | None,
    typer.Option("--votes", help="long CSV task,worker,label[,golden] (repeatable)"),
]
MethodOption = Annotated[
    str | None,
    typer.Option("--method", help="majority | dawid_skene | wawa | glad; default: annotate.method"),
]
FieldOption = Annotated[
    str | None,
    typer.Option(
        "--output-field", help="stage-1 OUTPUT field name; default: annotate.output_field"
    ),
]


def _section(params_file: Path | None) -> dict[str, Any]:
    return read_params(params_file)["annotate"]


def _inputs(
    section: dict[str, Any],
    stage1: list[Path] | None,
    stage2: list[Path] | None,
    votes: list[Path] | None,
) -> tuple[list[Any], list[Any], list[Any]]:
    """Command-line inputs replace the params' inputs as a whole, never in part."""
    if stage1 or stage2 or votes:
        return list(stage1 or []), list(stage2 or []), list(votes or [])
    return (
        list(section["stage1"] or []),
        list(section["stage2"] or []),
        list(section["votes"] or []),
    )


def _beside(report: Path, suffix: str) -> str:
    return str(report.with_name(report.stem + suffix))


@annotate_app.command("export")
def export(
    stage: Annotated[int, typer.Option("--stage", min=1, max=2, help="1 or 2")] = 1,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="output folder; default: annotate.export_dir")
    ] = None,
    candidates: Annotated[
        Path | None,
        typer.Option("--candidates", help="stage 1: candidates parquet (file or folder) or CSV"),
    ] = None,
    controls: Annotated[
        Path | None, typer.Option("--controls", help="golden set; default: annotate.controls")
    ] = None,
    stage1: StageFiles = None,
    votes: VoteFiles = None,
    method: MethodOption = None,
    output_field: FieldOption = None,
    params_file: ParamsOption = None,
) -> None:
    """Write a task pool in the Toloka layout (and as Label Studio tasks with their
    labelling config, stage<N>_label_config.xml).

    Stage 1: every candidate. Stage 2: the sentences the stage-1 answers judge unacceptable.
    """
    from rucola.annotation.export import run_export

    section = _section(params_file)
    manifest = run_export(
        section,
        stage,
        out_dir=out_dir,
        candidates=candidates,
        controls=controls,
        stage1=stage1,
        votes=votes,
        method=method,
        output_field=output_field,
    )
    no_golden = "" if manifest["golden_set"] else " (no golden set: annotate.controls is empty)"
    out.print(
        f"annotate export: stage {stage}, {manifest['tasks']} tasks on {manifest['pages']} "
        f"pages with {manifest['control_rows']} control rows{no_golden} -> "
        f"{out_dir or section['export_dir']}",
        markup=False,
    )


@annotate_app.command("merge")
def merge(
    stage1: StageFiles = None,
    stage2: Stage2Files = None,
    votes: VoteFiles = None,
    method: MethodOption = None,
    output_field: FieldOption = None,
    out_path: Annotated[
        Path | None, typer.Option("--out", help="annotated parquet; default: annotate.out")
    ] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="report JSON; default: annotate.report")
    ] = None,
    columns: Annotated[
        list[str] | None,
        typer.Option(
            "--column",
            help="OURS=THEIRS: a votes table's column for task, worker, label, golden, "
            "sentence or separator (repeatable); default: annotate.vote_columns",
        ),
    ] = None,
    repeated_votes: Annotated[
        str | None,
        typer.Option(
            "--repeated-votes",
            help="error | first | last | drop; default: annotate.repeated_votes",
        ),
    ] = None,
    params_file: ParamsOption = None,
) -> None:
    """Clean and aggregate the answers of both stages into one labelled row per task.

    Answers come as Toloka TSVs, Label Studio JSON exports or long tables, the format told
    from the file."""
    from rucola.annotation.merge import run_merge
    from rucola.annotation.pools import task_pools
    from rucola.settings import RepeatedVotes

    section = dict(_section(params_file))
    section["vote_columns"] = _columns(section["vote_columns"], columns or [])
    if repeated_votes is not None:
        section["repeated_votes"] = one_of(
            repeated_votes, RepeatedVotes, "--repeated-votes", "policy"
        )
    files1, files2, long_tables = _inputs(section, stage1, stage2, votes)
    # An answered task outside today's pool is set aside, in no pool at all an error.
    pools = task_pools(section)
    summary = run_merge(
        section,
        pools=pools,
        votes_out=_beside(report, "_votes.parquet") if report else section["votes_out"],
        stage1=files1,
        stage2=files2,
        votes=long_tables,
        method=method or section["method"],
        output_field=output_field or section["output_field"],
        out=out_path or section["out"],
        report=report or section["report"],
        # A report given on the command line takes its companions beside it, so a trial
        # merge never overwrites the pipeline's worker table and plot.
        workers=_beside(report, "_workers.csv") if report else section["workers"],
        plot=_beside(report, "_agreement.csv") if report else section["plot"],
        plot_png=_beside(report, "_agreement.png") if report else section["plot_png"],
    )
    votes_line = ", ".join(
        f"stage {k[-1]}: {v['read']} read, {v['used']} used, {v['control']} control, "
        f"{v['dropped']} dropped {v['dropped_by_reason']}"
        for k, v in sorted(summary["votes"].items())
    )
    out.print(f"annotate merge ({summary['method']}): {votes_line}", markup=False)
    out.print(
        f"annotate merge: {summary['tasks']['total']} tasks {summary['tasks']['by_status']}",
        markup=False,
    )
    if not pools.checked:
        out.print(
            f"annotate merge: no pool check ({pools.candidates}, annotate.candidates, "
            "does not exist): every answered task taken as it comes",
            markup=False,
        )


def _columns(given: dict[str, Any], pairs: list[str]) -> dict[str, Any]:
    """``--column task=UniqueIndexID_ItaCoLA`` over ``annotate.vote_columns``."""
    from rucola.errors import RucolaError

    columns = dict(given)
    for pair in pairs:
        ours, sep, theirs = pair.partition("=")
        ours = ours.strip()
        if not sep or ours not in columns:
            raise RucolaError(
                f"--column {pair!r}: expected OURS=THEIRS",
                hint=f"OURS is one of {', '.join(columns)}",
            )
        columns[ours] = theirs.strip() or None
    return columns


@annotate_app.command("simulate")
def simulate(
    truth: Annotated[
        Path | None,
        typer.Option("--truth", help="known labels: id,sentence,label,error_type (or RuCoLA CSV)"),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out-dir", help="write stage1/ and stage2/ results here (see --format)"),
    ] = None,
    answer_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="results as toloka (results.tsv) | label_studio (results.json, a Label "
            "Studio export); default: annotate.simulate.format",
        ),
    ] = None,
    overlap: Annotated[int | None, typer.Option("--overlap", min=1)] = None,
    max_overlap: Annotated[int | None, typer.Option("--max-overlap", min=1)] = None,
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="stage-1 workers")] = None,
    spammer_share: Annotated[
        float | None, typer.Option("--spammer-share", min=0.0, max=1.0)
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed")] = None,
    methods: Annotated[
        list[str] | None, typer.Option("--method", help="method to score (repeatable)")
    ] = None,
    report: Annotated[Path | None, typer.Option("--report", help="report JSON")] = None,
    params_file: ParamsOption = None,
) -> None:
    """Draw answers from a worker model for known labels; score each method against them."""
    from rucola.annotation.aggregate import check_method
    from rucola.annotation.export import read_controls
    from rucola.annotation.simulate import run_simulation
    from rucola.errors import RucolaError
    from rucola.settings import Annotate, AnswerFormat, Simulate

    section = _section(params_file)
    settings = dict(section["simulate"])
    seed = checked(seed, Annotate, "seed", "--seed")
    overrides = {
        "truth": truth,
        "out_dir": out_dir,
        "format": one_of(answer_format, AnswerFormat, "--format", "format"),
        "overlap": checked(overlap, Simulate, "overlap", "--overlap"),
        "max_overlap": checked(max_overlap, Simulate, "max_overlap", "--max-overlap"),
        "workers": checked(workers, Simulate, "workers", "--workers"),
        "spammer_share": spammer_share,
        "methods": methods,
        "report": report,
    }
    settings.update({k: v for k, v in overrides.items() if v is not None})
    if not settings["truth"]:
        raise RucolaError("no truth table", hint="pass --truth FILE or set annotate.simulate.truth")
    for method in settings["methods"]:
        check_method(method)
    result = run_simulation(
        section,
        settings,
        read_controls(section["controls"]),
        seed=int(seed if seed is not None else section["seed"]),
    )
    out.print(
        f"{'method':<12} {'coverage':>8} {'accuracy':>8} {'type acc':>8} {'full acc':>8} "
        f"{'pending':>7} {'aside':>5}",
        markup=False,
    )
    for row in result["methods"]:
        out.print(
            f"{row['method']:<12} {_fmt(row['coverage'])} {_fmt(row['accuracy'])} "
            f"{_fmt(row['error_type_accuracy'])} {_fmt(row['full_accuracy'])} "
            f"{row['pending']:>7} {row['set_aside']:>5}",
            markup=False,
        )
    budget = result["budget"]
    out.print(
        f"budget: stage 1 {budget['stage1']['assignments']} pages, "
        f"{budget['stage1']['answers_per_sentence']} answers a sentence; stage 2 "
        f"{budget['stage2']['sentences']} sentences, {budget['stage2']['assignments']} pages",
        markup=False,
    )
    if settings["out_dir"]:
        layout = "Label Studio export" if settings["format"] == "label_studio" else "Toloka layout"
        out.print(f"results in the {layout}: {', '.join(result['files'])}", markup=False)


def _fmt(value: float | None) -> str:
    return f"{'-':>8}" if value is None else f"{value:>8.4f}"


@annotate_app.command("corpus")
def corpus(
    input_path: Annotated[
        Path | None,
        typer.Option("--input", help="in-domain rows; default: annotate.corpus.input"),
    ] = None,
    out_path: OutOption = None,
    rejected: RejectedOption = None,
    report: ReportOption = None,
    params_file: ParamsOption = None,
) -> None:
    """Add the labelled out-of-domain rows to the in-domain stream (before the split)."""
    from rucola.annotation.corpus_merge import run_corpus_merge
    from rucola.stage import summary_line

    section = override(
        _section(params_file)["corpus"],
        input=input_path,
        out=out_path,
        rejected=rejected,
        report=report,
    )
    counts = run_corpus_merge(section)
    out.print(
        f"annotate corpus: {counts['in_domain']} in-domain + {counts['out_of_domain_added']} "
        f"out-of-domain rows ({summary_line(counts)}), "
        f"{counts['not_annotated']} candidates not annotated yet",
        markup=False,
    )
