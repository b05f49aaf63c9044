"""``rucola summarize``: the headline metrics DVC shows (``rucola.release.headline``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from rucola.cli.common import out
from rucola.cli.stage_command import stage_command

if TYPE_CHECKING:
    from rucola.settings import Params, Summarize

commands = typer.Typer()


@stage_command(commands, section="summarize", outputs=("out",))
def summarize(settings: Summarize, params: Params) -> None:
    """Write the headline metrics (rows, kept and acceptable share, baseline MCC, agreement)
    from the stage reports: the file `dvc metrics show` prints."""
    from rucola.release.headline import summarize as run

    metrics = run(params, settings.out)
    shown = ", ".join(f"{key} {metrics[key]}" for key in ("kept", "accept", "mcc", "alpha"))
    out.print(f"summarize: {settings.out} ({shown})", markup=False)
