"""Commands of out-of-domain generation: one generator, then the merge of all."""

from __future__ import annotations

from typing import Annotated

import typer

from rucola.cli.common import (
    OutOption,
    ParamsOption,
    ReportOption,
    out,
    override,
    params_name,
    progress,
    read_params,
)

commands = typer.Typer()


@commands.command()
def generate(
    name: Annotated[str, typer.Argument(help="generator name under generate.generators")],
    engine: Annotated[
        str | None, typer.Option("--engine", help="local or ray; default: generate.engine")
    ] = None,
    params_file: ParamsOption = None,
) -> None:
    """Generate out-of-domain candidates with one generator (resumes a killed run).

    Its outputs are named after the generator (``generate.out_dir``/NAME.parquet,
    ``generate.report_dir``/NAME.json), so there is no ``--out`` or ``--report``."""
    from rucola.generation.stage import generate as run

    params = read_params(params_file)["generate"]
    if engine is not None:
        params["engine"] = engine
    report = run(name, params, params_name(params_file), progress=progress())
    if not report["enabled"]:
        out.print(f"generate {name}: disabled, wrote an empty candidates file")
        return
    resumed = f", {report['shards_resumed']} shards resumed" if report["shards_resumed"] else ""
    out.print(
        f"generate {name}: {report['read']} source sentences, {report['kept']} gave "
        f"{report['candidates']} candidates, set aside {report['set_aside']}, outputs "
        f"dropped {report['outputs']['dropped']}{resumed} ({report['seconds']} s)"
    )


@commands.command("merge-candidates")
def merge_candidates(
    out_path: OutOption = None,
    report: ReportOption = None,
    params_file: ParamsOption = None,
) -> None:
    """Concatenate every enabled generator's candidates into one file (generate.merge)."""
    from rucola.generation.merge import merge_candidates as run

    params = read_params(params_file)["generate"]
    override(params["merge"], out=out_path, report=report)
    summary = run(params, params_name(params_file))
    out.print(f"merge-candidates: {summary['candidates']} candidates {summary['by_method']}")
