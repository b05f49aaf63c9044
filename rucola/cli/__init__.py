"""The ``rucola`` command: parse options, read params, call one stage, report.

The command line sits on top of the package and nothing imports it: each module here
holds one group of commands and imports its stage inside the command function, so
starting ``rucola`` loads no stage code and each command loads only its own. Known
problems (``RucolaError``, an ``OSError`` such as a full disk, a ``MemoryError``) become
one line on stderr and exit 1, for every command, because the root group is
``BoundaryGroup`` (``rucola.cli.common``); ``--debug`` shows the traceback instead. Usage
errors exit 2 (Typer's default).
"""

from __future__ import annotations

from typing import Annotated

import typer

from rucola.cli import annotate, corpus, generation, release, track
from rucola.cli.common import BoundaryGroup, state

app = typer.Typer(
    cls=BoundaryGroup,  # every command's errors pass through its one boundary
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Build, check and release corpora of acceptability judgments.",
)
# Groups without a name add their commands at the top level, in this order in --help.
app.add_typer(corpus.commands)
app.add_typer(generation.commands)
app.add_typer(release.commands)
app.add_typer(track.commands)
app.add_typer(release.release_app, name="release")
app.add_typer(annotate.annotate_app, name="annotate")


@app.callback()
def _main(debug: Annotated[bool, typer.Option("--debug", help="show tracebacks")] = False) -> None:
    state["debug"] = debug


def main() -> None:
    """The ``rucola`` entry point (``[project.scripts]``) and ``python -m rucola``."""
    app()


__all__ = ["app", "main"]
