"""Commands of out-of-domain generation: one generator, then the merge of all."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from rucola.cli.common import ParamsOption, out, params_name, progress, read_settings
from rucola.cli.stage_command import stage_command
from rucola.registry import GENERATION_METHODS

if TYPE_CHECKING:
    from rucola.settings import Merge, Params

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
    from rucola.params import with_overrides

    # ``--engine`` is held to the schema's rule for ``generate.engine``
    settings = with_overrides(
        read_settings(params_file).generate, {"engine": "--engine"}, engine=engine
    )
    report = run(name, settings, params_name(params_file), progress=progress())
    if not report["enabled"]:
        out.print(f"generate {name}: disabled, wrote an empty candidates file")
        return
    resumed = f", {report['shards_resumed']} shards resumed" if report["shards_resumed"] else ""
    out.print(
        f"generate {name}: {report['read']} source sentences, {report['kept']} gave "
        f"{report['candidates']} candidates, set aside {report['set_aside']}, outputs "
        f"dropped {report['outputs']['dropped']}{resumed} ({report['seconds']} s)"
    )


# One code fingerprint per method besides the command's own (reports/code/generate/METHOD.json):
# a generate@NAME stage depends on its method's, so a change to one method reruns only the
# generators of that method (rucola.code_fingerprint).
generate.__rucola_variants__ = GENERATION_METHODS  # type: ignore[attr-defined]


@stage_command(commands, "merge-candidates", section="generate.merge")
def merge_candidates(settings: Merge, params: Params) -> None:
    """Concatenate every enabled generator's candidates into one file (generate.merge)."""
    from rucola.generation.merge import merge_candidates as run

    summary = run(params.generate, settings)
    out.print(f"merge-candidates: {summary['candidates']} candidates {summary['by_method']}")
