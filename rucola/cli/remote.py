"""``rucola pull``: ``dvc pull`` from the public and the private remote, each as far as it
can be read (``rucola.remotes``)."""

from __future__ import annotations

import typer

from rucola.cli.common import out

commands = typer.Typer()


@commands.command()
def pull() -> None:
    """Pull every DVC-tracked file (stage outputs, inputs, kept versions) from the remote
    it names: public outputs from `public`, the rest from `private`. Without access to a
    remote, pull what the others hold and end with one line naming what is missing (exit 1)."""
    from rucola.errors import RucolaError
    from rucola.remotes import missing_line
    from rucola.remotes import pull as run

    result = run()
    for name, paths in result.pulled.items():
        out.print(f"pull: {len(paths)} outputs from remote '{name}'", markup=False)
    line = missing_line(result)
    if line is not None:
        raise RucolaError(line)
