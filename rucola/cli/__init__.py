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
from typer.core import TyperCommand

from rucola.cli import (
    annotate,
    audit,
    corpus,
    generation,
    release,
    remote,
    repo,
    summary,
    track,
)
from rucola.cli import review as _review  # noqa: F401 (adds export and import to `audit`)
from rucola.cli.common import BoundaryGroup, HelpCommand, HelpGroup, state

app = typer.Typer(
    cls=BoundaryGroup,  # every command's errors pass through its one boundary
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # docstrings are reflowed to the terminal's width, `code` shown as such
    rich_markup_mode="markdown",
    help="Build, check and release corpora of acceptability judgments.",
)
# Groups without a name add their commands at the top level, in this order in --help.
app.add_typer(corpus.commands)
app.add_typer(generation.commands)
app.add_typer(release.commands)
app.add_typer(summary.commands)
app.add_typer(track.commands)
app.add_typer(remote.commands)
app.add_typer(repo.commands)
app.add_typer(release.release_app, name="release", cls=HelpGroup)
app.add_typer(annotate.annotate_app, name="annotate", cls=HelpGroup)
app.add_typer(audit.audit_app, name="audit", cls=HelpGroup)


def _plain_help(group: typer.Typer) -> None:
    """Every command of ``group`` and its subgroups renders its help with
    :class:`rucola.cli.common.PlainHelp` (a command module need not name the class)."""
    for command in group.registered_commands:
        if command.cls in (None, TyperCommand):  # Typer's default, not a class of our own
            command.cls = HelpCommand
    for subgroup in group.registered_groups:
        if subgroup.typer_instance is not None:
            _plain_help(subgroup.typer_instance)


_plain_help(app)


@app.callback()
def _main(debug: Annotated[bool, typer.Option("--debug", help="show tracebacks")] = False) -> None:
    state["debug"] = debug


def main() -> None:
    """The ``rucola`` entry point (``[project.scripts]``) and ``python -m rucola``."""
    app()


__all__ = ["app", "main"]
