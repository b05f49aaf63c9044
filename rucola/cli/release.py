"""Commands from the split rows to a release: validate, baseline, evaluate, and the
``rucola release`` group (build, publish, diff)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from rucola.cli.common import ParamsOption, err, handles_errors, out, read_settings
from rucola.cli.stage_command import checks_output_options, stage_command

if TYPE_CHECKING:
    from rucola.settings import Baseline, Params, Validate

commands = typer.Typer()
release_app = typer.Typer(no_args_is_help=True, help="Build and publish releases.")


@stage_command(
    commands, section="validate", reads="split.out", input_help="split rows", outputs=("report",)
)
def validate(settings: Validate, params: Params, source: str) -> None:
    """Run the Great Expectations suite over the split data (exit 1 on failure)."""
    from rucola.validation.run import validate_split

    # The Data Docs are the pipeline's view of its own split: another file given with
    # --input gets its report only, so it never overwrites them.
    docs = settings.docs if source == params.split.out else None
    result = validate_split(source, params, settings.report, docs, settings.private_report)
    if not result.success:
        err.print(f"[bold red]validation failed[/] ({settings.private_report}):", soft_wrap=True)
        err.print(result.summary(), soft_wrap=True, markup=False)
        raise typer.Exit(1)
    out.print(f"validate: all expectations met ({settings.report})")


@commands.command()
@handles_errors
@checks_output_options
def evaluate(
    predictions: Annotated[Path, typer.Argument(help="CSV id,acceptable")],
    gold: Annotated[
        Path | None,
        typer.Option(
            "--gold",
            help="gold parquet or labelled RuCoLA CSV; default: the --config's gold in "
            "release.private",
        ),
    ] = None,
    config: Annotated[
        str,
        typer.Option(
            "--config",
            help="the test config scored: default (RuCoLA, the CSV layout's test.csv) or "
            "learner (its own hidden test split)",
        ),
    ] = "default",
    out_path: Annotated[Path | None, typer.Option("--out", help="metrics JSON")] = Path(
        "reports/evaluation.json"
    ),
    params_file: ParamsOption = None,
) -> None:
    """Score predictions (sample_submission layout): accuracy, MCC, recall per category."""
    from rucola.errors import RucolaError
    from rucola.release.evaluate import evaluate as run
    from rucola.release.public import GOLD_FILES

    if config not in GOLD_FILES:
        known = ", ".join(GOLD_FILES)
        raise RucolaError(f"--config: '{config}' has no test split (one of {known})")
    if gold is None:
        gold = Path(read_settings(params_file).release.private) / GOLD_FILES[config]
    result = run(predictions, gold, out_path)
    for part, scores in result.items():
        if part != "recall_by_error_type":
            out.print(
                f"{part}: n={scores['n']} accuracy={scores['accuracy']:.4f} MCC={scores['mcc']:.4f}"
            )
    for category, scores in result.get("recall_by_error_type", {}).items():
        out.print(f"recall {category}: {scores['recall']:.4f} (n={scores['n']})")


@stage_command(commands, section="baseline", reads="split.out", input_help="split rows", outputs=())
def baseline(
    settings: Baseline,
    source: str,
    train: Annotated[Path | None, typer.Option("--train", help="train file (CSV/parquet)")] = None,
    validation: Annotated[
        Path | None, typer.Option("--validation", help="validation file (CSV/parquet)")
    ] = None,
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "--report",
            help="report JSON; default: baseline.report for the split stage, stdout for "
            "--train/--validation (the pipeline's report is never overwritten by outside files)",
        ),
    ] = None,
) -> None:
    """Train the paper's non-neural baselines on train and score validation."""
    import json

    from rucola.release.baseline import baseline as run

    outside = train is not None or validation is not None  # load_splits wants both or neither
    if outside:
        report = run(out_path, None, train, validation)
    else:
        report = run(out_path or settings.report, source)
    lr = report["logistic_regression"]
    summary = (
        f"baseline: majority MCC {report['majority']['validation']['overall']['mcc']}, "
        f"logistic regression ({lr['features']} features, C={lr['C']}) MCC "
        f"{lr['validation']['overall']['mcc']}, accuracy "
        f"{lr['validation']['overall']['accuracy']}"
    )
    if outside and out_path is None:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True))
        err.print(summary, markup=False, soft_wrap=True)
    else:
        out.print(summary, markup=False)


@stage_command(
    release_app, "build", section="release", reads="split.out", input_help="split rows", outputs=()
)
def release_build(params: Params, source: str) -> None:
    """Build the Hugging Face dataset folder and its card from validated data.

    No ``--out``: the public folder, the private gold and the CSV layout are written
    together (``release.out``, ``release.private``, ``release.compat``), and moving one of
    them alone would leave the others overwritten in place."""
    from rucola.release.build import run_release

    report = run_release(params, source)
    csv = report["compat"]
    layout = (
        f"RuCoLA CSV layout in {params.release.compat} {csv}"
        if csv is not None
        else f"no RuCoLA CSV layout ({params.release.compat} left empty: not RuCoLA's layout)"
    )
    out.print(
        f"release: {params.release.out} {report['configs']}; {layout}",
        soft_wrap=True,  # one line in DVC's log too (Rich wraps at 80 columns there)
    )


@release_app.command("publish")
@handles_errors
def release_publish(
    repo_id: Annotated[str, typer.Option("--repo-id", help="ORG/NAME on the Hub")],
    version: Annotated[str, typer.Option("--version", help="semantic version X.Y.Z")],
    private_repo_id: Annotated[
        str | None,
        typer.Option("--private-repo-id", help="private dataset repo for the hidden test labels"),
    ] = None,
    previous: Annotated[
        Path | None,
        typer.Option(
            "--previous",
            help="previous release (folder or parquet) for the changelog; default: split.pin",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="print the plan and what would stop the real run; send nothing (exit 1 "
            "if something would)",
        ),
    ] = False,
    params_file: ParamsOption = None,
) -> None:
    """Publish a validated release: one atomic commit and a tag vX.Y.Z on the Hub.

    Refused, before anything is sent, unless the git tree is clean (commit the build
    first), the version is greater than every vX.Y.Z tag, validation passed on exactly
    this data and the release was built from it; `--dry-run` prints the whole plan (every
    file with its size and SHA-256, the CSV layout under rucola_csv/ included), then lists
    whatever would stop the real run. The new changelog goes up with the commit and is
    written locally only after the commit and the tag succeeded, so a failed publish leaves
    the git tree as it was. The private repository must differ from the public one and be
    private on the Hub (a missing one is created private)."""
    from rucola.release.changelog import changelog_section, render_changelog, write_changelog
    from rucola.release.hub import publish
    from rucola.release.publish import check_repo_ids, check_split, check_version, plan_release

    check_repo_ids(repo_id, private_repo_id)
    check_version(version)
    params = read_settings(params_file)
    split = params.split.out
    check_split(Path(split))  # the changelog is a diff of it
    changelog = Path(params.release.changelog)
    pins = params.split.pin
    entry = changelog_section(
        version, split, previous or (pins[0] if pins else None), params.corpus.language
    )
    text = render_changelog(changelog, entry)
    plan = plan_release(params, repo_id, version, private_repo_id, text, Path.cwd())
    if dry_run:
        out.print(plan.describe(), markup=False, soft_wrap=True)
        stops = f"; the real run would stop: {len(plan.blockers)} problem(s), listed below"
        out.print(f"dry run: nothing was sent{stops if plan.blockers else ''}", markup=False)
    for warning in plan.warnings:
        err.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
    if plan.blockers:
        for blocker in plan.blockers:
            err.print(f"[bold red]error:[/] {escape(blocker.format())}", soft_wrap=True)
        raise typer.Exit(1)
    if dry_run:
        return
    result = publish(plan, endpoint=os.environ.get("HF_ENDPOINT"))
    for warning in result["warnings"]:
        err.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
    write_changelog(changelog, text)
    out.print(f"published {repo_id} {plan.tag} (commit {result['commit'][:12]})")
    out.print(f"wrote {changelog}: commit it and tag the git tree {plan.tag}", markup=False)


@release_app.command("diff")
@handles_errors
def release_diff_command(
    old: Annotated[
        Path,
        typer.Argument(
            help="the previous release: a release folder, a split parquet or a folder of "
            "published RuCoLA CSVs",
        ),
    ],
    new: Annotated[
        Path,
        typer.Argument(
            help="the new release: a release folder, a split parquet or a folder of "
            "published RuCoLA CSVs",
        ),
    ],
    private: Annotated[
        bool,
        typer.Option(
            "--private",
            help="the maintainers' diff: hidden test labels, categories and every cause "
            "(never publish it)",
        ),
    ] = False,
    params_file: ParamsOption = None,
) -> None:
    """Rows added, removed, corrected, relabelled, re-categorised and moved between two
    releases, as Markdown.

    OLD and NEW are each a release folder (data/release/rucola), a split parquet
    (data/interim/split.parquet) or a folder in the published RuCoLA CSV layout
    (in_domain_train.csv, in_domain_dev.csv, out_of_domain_dev.csv, test.csv). Rows are
    matched by split, domain (train and validation only) and id, and listed row by row
    (added rows too) by the same three, a public test row's domain as (hidden). This is the
    public diff,
    the one the changelog publishes: it sees both releases in public form, so a test row is
    listed only when added, removed, moved or with corrected text, and with no cause.
    `--private` adds the hidden changes, from each release folder's ../private, and every
    cause. Each table row is one line, also when the output goes to a file or a pipe. A row
    moved is matched by its text as the corpus's language (`corpus.language` of `--params`,
    default params.yaml) keys it."""
    from rucola.release.diff import release_diff, to_markdown

    language = read_settings(params_file).corpus.language
    result = release_diff(old, new, private=private, language=language)
    # soft_wrap: Rich wraps at the console's width, 80 columns when stdout is no terminal,
    # which would split a Markdown table row across lines
    out.print(to_markdown(result, f"{old} -> {new}"), markup=False, soft_wrap=True, end="")


@release_app.command("keep")
@handles_errors
@checks_output_options
def release_keep(
    version: Annotated[str, typer.Option("--version", help="the published version, X.Y.Z")],
    into: Annotated[
        Path, typer.Option("--into", help="folder of kept versions (vX.Y.Z inside)")
    ] = Path("data/releases"),
    params_file: ParamsOption = None,
) -> None:
    """Keep the published release (public folder, CSV layout, private gold and ledger) in
    data/releases/vX.Y.Z, which the next version pins; never replaces a kept version."""
    from rucola.release.keep import keep_release

    target = keep_release(read_settings(params_file), version, into)
    out.print(
        f"kept v{version} in {target}: track it with 'dvc add {target}', commit "
        f"'git add {target}.dvc {target.parent}/.gitignore' and pin it in the "
        f"next version (split.pin: [..., {target}/rucola])",
        markup=False,
        soft_wrap=True,
    )
