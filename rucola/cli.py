"""The ``rucola`` command: parse options, read params, call one stage, report.

Known problems (``RucolaError``) become one line on stderr and exit 1; ``--debug`` shows
the traceback instead. Usage errors exit 2 (Typer's default).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from rucola.annotate_cli import annotate_app
from rucola.errors import RucolaError
from rucola.params import load_params, path_list

app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Build, check and release corpora of acceptability judgments.",
)
release_app = typer.Typer(no_args_is_help=True, help="Build and publish releases.")
app.add_typer(release_app, name="release")
app.add_typer(annotate_app, name="annotate")

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)
_state = {"debug": False}

F = TypeVar("F", bound=Callable[..., Any])
ParamsOption = Annotated[Path, typer.Option("--params", help="params file to read")]


def handles_errors(func: F) -> F:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RucolaError as exc:
            if _state["debug"]:
                raise
            # escaped: a message quotes user input, and '[' would read as Rich markup
            err.print(f"[bold red]error:[/] {escape(exc.format())}", soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def _progress() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI")


@app.callback()
def _main(debug: Annotated[bool, typer.Option("--debug", help="show tracebacks")] = False) -> None:
    _state["debug"] = debug


@app.command()
@handles_errors
def extract(
    sources: Annotated[
        list[Path] | None,
        typer.Option("--sources", help="file or folder (repeatable); default: extract.sources"),
    ] = None,
    out_path: Annotated[Path | None, typer.Option("--out", help="output parquet")] = None,
    rejected: Annotated[Path | None, typer.Option("--rejected", help="rejected rows")] = None,
    report: Annotated[Path | None, typer.Option("--report", help="report JSON")] = None,
    params_file: ParamsOption = Path("params.yaml"),
) -> None:
    """Extract labelled in-domain sentences from judgment sheets, lists and RuCoLA CSVs."""
    from rucola.corpus.extract import extract as run

    params = load_params(params_file)["extract"]
    entries = [{"path": str(p), "type": None} for p in sources] if sources else params["sources"]
    summary = run(
        entries,
        params,
        out_path or params["out"],
        rejected or params["rejected"],
        report or params["report"],
    )
    out.print(
        f"extract: {summary['rows_read']} read, {summary['kept']} kept, "
        f"{summary['rejected']} set aside {summary['rejected_by_reason']}"
    )


@app.command()
@handles_errors
def generate(
    name: Annotated[str, typer.Argument(help="generator name under generate.generators")],
    engine: Annotated[
        str | None, typer.Option("--engine", help="local or ray; default: generate.engine")
    ] = None,
    params_file: ParamsOption = Path("params.yaml"),
) -> None:
    """Generate out-of-domain candidates with one generator (resumes a killed run)."""
    from rucola.generation.stage import generate as run

    params = load_params(params_file)["generate"]
    if engine is not None:
        params["engine"] = engine
    report = run(name, params, params_file, progress=_progress())
    if not report["enabled"]:
        out.print(f"generate {name}: disabled, wrote an empty candidates file")
        return
    resumed = f", {report['shards_resumed']} shards resumed" if report["shards_resumed"] else ""
    out.print(
        f"generate {name}: {report['inputs']} inputs, {report['candidates']} candidates, "
        f"dropped {report['dropped']}{resumed} ({report['seconds']} s)"
    )


@app.command("merge-candidates")
@handles_errors
def merge_candidates(params_file: ParamsOption = Path("params.yaml")) -> None:
    """Concatenate every enabled generator's candidates into one file."""
    from rucola.generation.merge import merge_candidates as run

    report = run(load_params(params_file)["generate"], params_file)
    out.print(f"merge-candidates: {report['candidates']} candidates {report['by_method']}")


@app.command()
@handles_errors
def measure(
    input_path: Annotated[
        Path | None, typer.Option("--input", help="parquet with a sentence column")
    ] = None,
    out_path: Annotated[Path | None, typer.Option("--out", help="output parquet")] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", help="processes; default: measure.workers")
    ] = None,
    params_file: ParamsOption = Path("params.yaml"),
) -> None:
    """Compute attributes once per sentence: token count and word lemma frequencies."""
    from rucola.corpus.measure import measure as run

    params = load_params(params_file)
    section = params["measure"]
    summary = run(
        input_path or section["input"],
        out_path or section["out"],
        params["filter"]["frequency"],
        progress=_progress(),
        workers=workers or params["filter"]["workers"],
        batch_rows=section["batch_rows"],
    )
    out.print(
        f"measure: {summary['rows']} sentences ({summary['frequency_source']} "
        f"frequencies, {summary['workers']} workers)"
    )


@app.command(name="filter")
@handles_errors
def filter_(params_file: ParamsOption = Path("params.yaml")) -> None:
    """Apply the length and word-frequency thresholds to the measured sentences."""
    from rucola.corpus.filters.stage import run_filter

    report = run_filter(load_params(params_file)["filter"])
    out.print(
        f"filter: {report['read']} read, {report['kept']} kept, "
        f"{report['rejected']} set aside {report['rejected_by_reason']}"
    )


@app.command()
@handles_errors
def screen(params_file: ParamsOption = Path("params.yaml")) -> None:
    """Screen measured candidates (filter thresholds, duplicates vs in-domain) before export."""
    from rucola.corpus.filters.stage import run_filter

    params = load_params(params_file)
    report = run_filter({**params["filter"], **params["screen"]})
    out.print(
        f"screen: {report['read']} candidates, {report['kept']} kept, "
        f"{report['rejected']} set aside {report['rejected_by_reason']}"
    )


@app.command()
@handles_errors
def split(params_file: ParamsOption = Path("params.yaml")) -> None:
    """Stratified, group-aware train/validation/test split with deterministic ids."""
    from rucola.corpus.split import run_split

    report = run_split(load_params(params_file)["split"])
    for domain, info in report["domains"].items():
        sizes = ", ".join(f"{s} {v['rows']}" for s, v in info["splits"].items())
        out.print(f"split: {domain}: {sizes}")


@app.command()
@handles_errors
def validate(params_file: ParamsOption = Path("params.yaml")) -> None:
    """Run the Great Expectations suite over the split data (exit 1 on failure)."""
    from rucola.validation.run import validate_split

    params = load_params(params_file)
    section = params["validate"]
    result = validate_split(section["input"], params, section["report"], section["docs"])
    if not result.success:
        err.print(f"[bold red]validation failed[/] ({section['report']}):", soft_wrap=True)
        err.print(result.summary(), soft_wrap=True, markup=False)
        raise typer.Exit(1)
    out.print(f"validate: all expectations met ({section['report']})")


@release_app.command("build")
@handles_errors
def release_build(params_file: ParamsOption = Path("params.yaml")) -> None:
    """Build the Hugging Face dataset folder and its card from validated data."""
    from rucola.release.build import build_release

    params = load_params(params_file)
    section = params["release"]
    counts = build_release(
        section["input"], section["validation"], params, section["out"], section["private"]
    )
    from rucola.release.compat import export_rucola_csv

    csv_counts = export_rucola_csv(section["input"], section["compat"])
    out.print(
        f"release: {section['out']} {counts}; RuCoLA CSV layout in {section['compat']} {csv_counts}"
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
    params_file: ParamsOption = Path("params.yaml"),
) -> None:
    """Publish a validated release: one atomic commit and a tag vX.Y.Z on the Hub.

    The new changelog goes up with the commit; the local file is written only after the
    commit and the tag succeeded, so a failed publish leaves the git tree as it was.
    Repository ids are checked first, before any file is read or request sent; the private
    repository must differ from the public one and be private on the Hub (see
    ``release.publish.prepare_repos``)."""
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
    params = load_params(params_file)
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
) -> None:
    """Rows added, removed, relabelled, re-categorised and moved between two releases."""
    from rucola.release.diff import release_diff, to_markdown

    out.print(to_markdown(release_diff(old, new), f"{old} -> {new}"), markup=False)


@app.command()
@handles_errors
def evaluate(
    predictions: Annotated[Path, typer.Argument(help="CSV id,acceptable")],
    gold: Annotated[
        Path, typer.Option("--gold", help="gold parquet or labelled RuCoLA CSV")
    ] = Path("data/release/private/test_gold.parquet"),
    out_path: Annotated[Path | None, typer.Option("--out", help="metrics JSON")] = Path(
        "reports/evaluation.json"
    ),
) -> None:
    """Score predictions (sample_submission layout): accuracy, MCC, recall per category."""
    from rucola.release.evaluate import evaluate as run

    result = run(predictions, gold, out_path)
    for part, scores in result.items():
        if part != "recall_by_error_type":
            out.print(
                f"{part}: n={scores['n']} accuracy={scores['accuracy']:.4f} MCC={scores['mcc']:.4f}"
            )
    for category, scores in result.get("recall_by_error_type", {}).items():
        out.print(f"recall {category}: {scores['recall']:.4f} (n={scores['n']})")


@app.command()
@handles_errors
def baseline(
    train: Annotated[Path | None, typer.Option("--train", help="train file (CSV/parquet)")] = None,
    validation: Annotated[
        Path | None, typer.Option("--validation", help="validation file (CSV/parquet)")
    ] = None,
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="report JSON; default: baseline.report for the split stage, stdout for "
            "--train/--validation (the pipeline's report is never overwritten by outside files)",
        ),
    ] = None,
    params_file: ParamsOption = Path("params.yaml"),
) -> None:
    """Train the paper's non-neural baselines on train and score validation."""
    import json

    from rucola.release.baseline import baseline as run

    params = load_params(params_file)["baseline"]
    outside = train is not None or validation is not None  # load_splits wants both or neither
    if outside:
        report = run(out_path, None, train, validation)
    else:
        report = run(out_path or params["report"], params["input"])
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


@app.command()
@handles_errors
def track(
    family: Annotated[
        str, typer.Argument(help="the params key naming the input, e.g. extract.sources")
    ],
    path: Annotated[str, typer.Argument(help="the input (file or folder) as params name it")],
    name: Annotated[
        str | None,
        typer.Option("--as", help="fingerprint name (the source id for generate.sources)"),
    ] = None,
    params_file: ParamsOption = Path("params.yaml"),
) -> None:
    """Fingerprint one params-named input for DVC (reports/inputs/FAMILY/PATH.json)."""
    from rucola.track import track as run

    target = run(load_params(params_file), family, path, name)
    out.print(f"track: {path} -> {target}", markup=False)


@app.command("track-generator")
@handles_errors
def track_generator(
    name: Annotated[str, typer.Argument(help="generator name under generate.generators")],
    params_file: ParamsOption = Path("params.yaml"),
) -> None:
    """Fingerprint the sources one generator reads (reports/inputs/generate.generators/)."""
    from rucola.track import track_generator as run

    out.print(f"track-generator: {name} -> {run(load_params(params_file), name)}", markup=False)


@app.command("track-index")
@handles_errors
def track_index(params_file: ParamsOption = Path("params.yaml")) -> None:
    """Record which inputs params name per family; remove fingerprints no longer named."""
    from rucola.track import track_index as run

    counts = {family: len(names) for family, names in run(load_params(params_file)).items()}
    out.print(f"track-index: {counts}", markup=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
