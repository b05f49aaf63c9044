"""Commands from the split rows to a release: validate, baseline, evaluate, and the
``rucola release`` group (build, publish, diff)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from rucola.cli.common import (
    InputOption,
    ParamsOption,
    ReportOption,
    err,
    handles_errors,
    out,
    override,
    read_params,
)

commands = typer.Typer()
release_app = typer.Typer(no_args_is_help=True, help="Build and publish releases.")


@commands.command()
@handles_errors
def validate(
    input_path: InputOption = None,
    report: ReportOption = None,
    params_file: ParamsOption = None,
) -> None:
    """Run the Great Expectations suite over the split data (exit 1 on failure)."""
    from rucola.validation.run import validate_split

    params = read_params(params_file)
    section = override(params["validate"], input=input_path, report=report)
    # The Data Docs are the pipeline's view of its own split: a file given with --input
    # gets its report only, so it never overwrites them.
    docs = section["docs"] if input_path is None else None
    result = validate_split(section["input"], params, section["report"], docs)
    if not result.success:
        err.print(f"[bold red]validation failed[/] ({section['report']}):", soft_wrap=True)
        err.print(result.summary(), soft_wrap=True, markup=False)
        raise typer.Exit(1)
    out.print(f"validate: all expectations met ({section['report']})")


@commands.command()
@handles_errors
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
        gold = Path(read_params(params_file)["release"]["private"]) / GOLD_FILES[config]
    result = run(predictions, gold, out_path)
    for part, scores in result.items():
        if part != "recall_by_error_type":
            out.print(
                f"{part}: n={scores['n']} accuracy={scores['accuracy']:.4f} MCC={scores['mcc']:.4f}"
            )
    for category, scores in result.get("recall_by_error_type", {}).items():
        out.print(f"recall {category}: {scores['recall']:.4f} (n={scores['n']})")


@commands.command()
@handles_errors
def baseline(
    input_path: InputOption = None,
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
    params_file: ParamsOption = None,
) -> None:
    """Train the paper's non-neural baselines on train and score validation."""
    import json

    from rucola.release.baseline import baseline as run

    section = override(read_params(params_file)["baseline"], input=input_path)
    outside = train is not None or validation is not None  # load_splits wants both or neither
    if outside:
        report = run(out_path, None, train, validation)
    else:
        report = run(out_path or section["report"], section["input"])
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


@release_app.command("build")
@handles_errors
def release_build(input_path: InputOption = None, params_file: ParamsOption = None) -> None:
    """Build the Hugging Face dataset folder and its card from validated data.

    No ``--out``: the public folder, the private gold and the CSV layout are written
    together (``release.out``, ``release.private``, ``release.compat``), and moving one of
    them alone would leave the others overwritten in place."""
    from rucola.release.build import run_release

    params = read_params(params_file)
    section = override(params["release"], input=input_path)
    report = run_release(params)
    out.print(
        f"release: {section['out']} {report['configs']}; RuCoLA CSV layout in "
        f"{section['compat']} {report['compat']}"
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
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the plan only")] = False,
    params_file: ParamsOption = None,
) -> None:
    """Publish a validated release: one atomic commit and a tag vX.Y.Z on the Hub.

    The new changelog goes up with the commit; the local file is written only after the
    commit and the tag succeeded, so a failed publish leaves the git tree as it was.
    Repository ids are checked first, before any file is read or request sent; the private
    repository must differ from the public one and be private on the Hub (see
    ``release.publish.prepare_repos``)."""
    from rucola.params import path_list
    from rucola.release.publish import (
        changelog_section,
        check_git,
        check_repo_ids,
        check_validation,
        plan_release,
        publish,
        render_changelog,
        write_changelog,
    )

    check_repo_ids(repo_id, private_repo_id)
    params = read_params(params_file)
    section = params["release"]
    check_validation(Path(section["input"]), Path(section["validation"]))
    check_git(Path.cwd(), version)
    changelog = Path(section["changelog"])
    pins = path_list(params["split"].get("pin"), "split.pin")
    entry = changelog_section(version, section["input"], previous or (pins[0] if pins else None))
    text = render_changelog(changelog, entry)
    plan = plan_release(params, repo_id, version, private_repo_id, text)
    if dry_run:
        out.print(plan.describe(), markup=False, soft_wrap=True)
        out.print("dry run: nothing was sent")
        return
    result = publish(plan, endpoint=os.environ.get("HF_ENDPOINT"))
    for warning in result["warnings"]:
        err.print(f"[yellow]warning:[/] {warning}", soft_wrap=True)
    write_changelog(changelog, text)
    out.print(f"published {repo_id} {plan.tag} (commit {result['commit'][:12]})")
    out.print(f"wrote {changelog}: commit it and tag the git tree {plan.tag}", markup=False)


@release_app.command("diff")
@handles_errors
def release_diff_command(
    old: Annotated[Path, typer.Argument(help="previous release folder or split parquet")],
    new: Annotated[Path, typer.Argument(help="new release folder or split parquet")],
    private: Annotated[
        bool,
        typer.Option(
            "--private",
            help="the maintainers' diff: hidden test labels, categories and every cause "
            "(never publish it)",
        ),
    ] = False,
) -> None:
    """Rows added, removed, relabelled, re-categorised and moved between two releases.

    The public diff (the one the changelog publishes) sees both releases in public form: a
    test row is listed only when added, removed, moved or with corrected text, with no
    cause. ``--private`` adds the hidden changes and causes from ``../private``."""
    from rucola.release.diff import release_diff, to_markdown

    result = release_diff(old, new, private=private)
    out.print(to_markdown(result, f"{old} -> {new}"), markup=False)
