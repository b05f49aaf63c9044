"""``rucola annotate``: task pools out, people's answers in, labelled rows into the corpus.

Every option defaults to the params file (the ``annotate`` section, and the files other
stages write: ``screen.out``, ``generate.merge.out``, ``extract.out``), so DVC stages call
these commands without options. ``export``, ``merge`` and ``corpus`` are stage commands
(``rucola.cli.stage_command``); an option that stands in for a params key is checked by
the schema as the params file is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rucola.cli.common import ParamsOption, out, read_settings
from rucola.cli.stage_command import checks_output_options, stage_command

if TYPE_CHECKING:
    from rucola.settings import Annotate, AnnotateCorpus, Params, VoteColumns

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
# The option each ``annotate`` key is given by, for the one line naming a refused value.
OPTIONS = {
    "export_dir": "--out",
    "controls": "--controls",
    "stage1": "--stage1",
    "stage2": "--stage2",
    "votes": "--votes",
    "method": "--method",
    "output_field": "--output-field",
    "vote_columns": "--column",
    "repeated_votes": "--repeated-votes",
    "seed": "--seed",
}
SIMULATE_OPTIONS = {
    "truth": "--truth",
    "out_dir": "--out-dir",
    "format": "--format",
    "overlap": "--overlap",
    "max_overlap": "--max-overlap",
    "workers": "--workers",
    "spammer_share": "--spammer-share",
    "methods": "--method",
    "report": "--report",
}


def _answers(
    stage1: list[Path] | None, stage2: list[Path] | None, votes: list[Path] | None
) -> dict[str, list[str]]:
    """Command-line answers replace the params' answers as a whole, never in part: all
    three keys when any is given, none otherwise."""
    if not (stage1 or stage2 or votes):
        return {}
    return {
        "stage1": [str(p) for p in stage1 or []],
        "stage2": [str(p) for p in stage2 or []],
        "votes": [str(p) for p in votes or []],
    }


@stage_command(
    annotate_app,
    "export",
    section="annotate",
    reads="screen.out",
    input_help="stage 1: the candidates (parquet file or folder, or CSV), today's pool",
    outputs=(),
)
def export(
    settings: Annotate,
    params: Params,
    source: str,
    stage: Annotated[int, typer.Option("--stage", min=1, max=2, help="1 or 2")] = 1,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="output folder; default: annotate.export_dir")
    ] = None,
    controls: Annotated[
        Path | None, typer.Option("--controls", help="golden set; default: annotate.controls")
    ] = None,
    stage1: StageFiles = None,
    votes: VoteFiles = None,
    method: MethodOption = None,
    output_field: FieldOption = None,
) -> None:
    """Write a task pool in the Toloka layout (and as Label Studio tasks with their
    labelling config, stage<N>_label_config.xml).

    Stage 1: every candidate. Stage 2: the sentences the stage-1 answers judge unacceptable.
    """
    from rucola.annotation.export import run_export
    from rucola.annotation.pools import task_pools
    from rucola.annotation.votes import Stage2Form
    from rucola.params import with_overrides

    answers = _answers(stage1, None, votes)
    answers.pop("stage2", None)
    settings = with_overrides(
        settings,
        OPTIONS,
        export_dir=out_dir,
        controls=[str(controls)] if controls else None,
        method=method,
        output_field=output_field,
        **answers,
    )
    form = Stage2Form.of(params.corpus.categories)
    manifest = run_export(settings, stage, task_pools(params, source), form)
    no_golden = "" if manifest["golden_set"] else " (no golden set: annotate.controls is empty)"
    out.print(
        f"annotate export: stage {stage}, {manifest['tasks']} tasks on {manifest['pages']} "
        f"pages with {manifest['control_rows']} control rows{no_golden} -> "
        f"{settings.export_dir}",
        markup=False,
    )


@stage_command(annotate_app, "merge", section="annotate", outputs=("out", "report"))
def merge(
    settings: Annotate,
    params: Params,
    stage1: StageFiles = None,
    stage2: Stage2Files = None,
    votes: VoteFiles = None,
    method: MethodOption = None,
    output_field: FieldOption = None,
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
) -> None:
    """Clean and aggregate the answers of both stages into one labelled row per task.

    Answers come as Toloka TSVs, Label Studio JSON exports or long tables, the format told
    from the file. An --out given alone takes the report, the kept votes, the worker table
    and the agreement plot beside it, so a trial merge never overwrites the pipeline's."""
    from rucola.annotation.merge import run_merge
    from rucola.annotation.pools import task_pools
    from rucola.annotation.votes import Stage2Form
    from rucola.params import with_overrides

    settings = with_overrides(
        settings,
        OPTIONS,
        vote_columns=_columns(settings.vote_columns, columns) if columns else None,
        repeated_votes=repeated_votes,
        method=method,
        output_field=output_field,
        **_answers(stage1, stage2, votes),
    )
    # An answered task outside today's pool is set aside, in no pool at all an error.
    pools = task_pools(params)
    summary = run_merge(settings, Stage2Form.of(params.corpus.categories), pools)
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
            f"annotate merge: no pool check ({pools.candidates}, screen.out, does not "
            "exist): every answered task taken as it comes",
            markup=False,
        )


def _columns(given: VoteColumns, pairs: list[str]) -> dict[str, str | None]:
    """``--column task=UniqueIndexID_ItaCoLA`` over ``annotate.vote_columns``; an empty
    THEIRS is our own name again (``separator=``: rows never list several votes)."""
    from rucola.errors import RucolaError

    columns = given.model_dump()
    for pair in pairs:
        ours, sep, theirs = pair.partition("=")
        ours = ours.strip()
        if not sep or ours not in columns:
            raise RucolaError(
                f"--column {pair!r}: expected OURS=THEIRS",
                hint=f"OURS is one of {', '.join(columns)}",
            )
        columns[ours] = theirs.strip() or (None if ours == "separator" else ours)
    return columns


@annotate_app.command("simulate")
@checks_output_options
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
    overlap: Annotated[int | None, typer.Option("--overlap")] = None,
    max_overlap: Annotated[int | None, typer.Option("--max-overlap")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="stage-1 workers")] = None,
    spammer_share: Annotated[float | None, typer.Option("--spammer-share")] = None,
    seed: Annotated[int | None, typer.Option("--seed")] = None,
    methods: Annotated[
        list[str] | None, typer.Option("--method", help="method to score (repeatable)")
    ] = None,
    report: Annotated[Path | None, typer.Option("--report", help="report JSON")] = None,
    params_file: ParamsOption = None,
) -> None:
    """Draw answers from a worker model for known labels; score each method against them."""
    from rucola.annotation.export import read_controls
    from rucola.annotation.simulate import run_simulation
    from rucola.annotation.votes import Stage2Form
    from rucola.params import with_overrides

    params = read_settings(params_file)
    settings = params.annotate
    form = Stage2Form.of(params.corpus.categories)
    simulation = with_overrides(
        settings.simulate,
        SIMULATE_OPTIONS,
        truth=truth,
        out_dir=out_dir,
        format=answer_format,
        overlap=overlap,
        max_overlap=max_overlap,
        workers=workers,
        spammer_share=spammer_share,
        methods=methods,
        report=report,
    )
    settings = with_overrides(settings, OPTIONS, seed=seed, simulate=simulation.model_dump())
    result = run_simulation(settings, read_controls(settings.controls, form), form)
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
    if simulation.out_dir:
        layout = "Label Studio export" if simulation.format == "label_studio" else "Toloka layout"
        out.print(f"results in the {layout}: {', '.join(result['files'])}", markup=False)


def _fmt(value: float | None) -> str:
    return f"{'-':>8}" if value is None else f"{value:>8.4f}"


@stage_command(
    annotate_app,
    "corpus",
    section="annotate.corpus",
    reads="extract.out",
    input_help="in-domain rows",
)
def corpus(settings: AnnotateCorpus, params: Params, source: str) -> None:
    """Add the labelled out-of-domain rows to the in-domain stream (before the split)."""
    from rucola.annotation.corpus_merge import run_corpus_merge
    from rucola.settings import IN_DOMAIN
    from rucola.stage import summary_line

    counts = run_corpus_merge(
        settings,
        in_domain=source,
        annotated=params.annotate.out,
        candidates=params.generate.merge.out,
        categories=params.corpus.categories,
        language=params.corpus.language,
    )
    out.print(
        f"annotate corpus: {counts[IN_DOMAIN]} in-domain + {counts['out_of_domain_added']} "
        f"out-of-domain rows ({summary_line(counts)}), "
        f"{counts['not_annotated']} candidates not annotated yet",
        markup=False,
    )


@stage_command(
    annotate_app,
    "human-eval",
    section="annotate",
    reads="split.out",
    input_help="split rows (the gold labels)",
    outputs=(),
)
def human_eval(settings: Annotate, params: Params, source: str) -> None:
    """Score people's votes on corpus rows (annotate.votes with annotate.votes_target:
    corpus) against the rows' labels: human accuracy and MCC per split and domain."""
    from rucola.annotation.human_eval import run_human_eval

    summary = run_human_eval(settings, source, params.corpus.language)
    if not summary["has_round"]:
        out.print(
            "annotate human-eval: no round (annotate.votes_target is not corpus, or "
            "annotate.votes is empty)",
            markup=False,
        )
        return
    # the public splits only: a terminal's log may travel further than the private report
    shown = summary["public_scores"]["by_split"]
    parts = [
        f"{split} {s['n']} rows: accuracy {s['accuracy']}, MCC {s['mcc']}"
        for split, s in shown.items()
    ]
    out.print(
        f"annotate human-eval ({summary['method']}): {summary['read']} rows voted on, "
        f"{summary['kept']} scored ({', '.join(parts)}); set aside {summary['set_aside']}; "
        f"scores per domain in {settings.human_eval.private_report}",
        markup=False,
    )
