"""``rucola summarize``: the headline metrics DVC shows (``rucola.release.headline``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rucola.cli.common import ParamsOption, handles_errors, out, read_params

commands = typer.Typer()


@commands.command()
@handles_errors
def summarize(
    out_path: Annotated[
        Path | None,
        typer.Option("--out", help="metrics JSON; default: summarize.out"),
    ] = None,
    params_file: ParamsOption = None,
) -> None:
    """Write the headline metrics (rows, kept and acceptable share, baseline MCC, agreement)
    from the stage reports: the file `dvc metrics show` prints."""
    from rucola.release.headline import summarize as run

    params = read_params(params_file)
    metrics = run(params, out_path)
    shown = ", ".join(f"{key} {metrics[key]}" for key in ("kept", "accept", "mcc", "alpha"))
    out.print(f"summarize: {out_path or params['summarize']['out']} ({shown})", markup=False)
