"""What every command shares: one error boundary, the consoles, the options pattern.

Every command runs inside :class:`BoundaryGroup`, the class of the root ``rucola`` group:
a click group invokes its subcommands (and their subgroups') from its own ``invoke``, so
one ``try`` there sees every command's errors, and a new command cannot forget them. The
boundary (:func:`error_boundary`) turns the problems a user can cause into one line on
stderr and exit 1: a ``RucolaError``; an ``OSError`` (disk full, read-only file system,
permission, a file that vanished), naming its path; a ``MemoryError``, or a worker process
killed from outside (``BrokenExecutor``, what the parent sees of the OOM killer), naming
the params sizes to lower. Anything else is a bug and keeps its traceback; ``--debug`` lets
everything through.

Every stage command is made by ``rucola.cli.stage_command`` (the same ``--params``,
``--input``, ``--out``, ``--rejected`` and ``--report``, checked by the schema). Commands
import their stage inside the function: ``rucola --help`` stays fast, and the modules a
command runs are exactly those its function imports (the closure ``rucola.dev`` writes
into each stage's code deps in ``dvc.yaml``).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup

from rucola.errors import reading_params, set_params_file
from rucola.failure import USER_FAILURES, failure_text

if TYPE_CHECKING:
    from rucola.settings import Params

# emoji=False: Rich would print `params.yaml:100: ...` as `params.yaml💯 ...`
# soft_wrap: a line is never cut at the console width, so piped output keeps whole lines.
err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)
out = Console(highlight=False, emoji=False, soft_wrap=True)
# Set by the ``--debug`` option of the main app, read when a command fails.
state = {"debug": False}

F = TypeVar("F", bound=Callable[..., Any])

ParamsOption = Annotated[
    Path | None,
    typer.Option("--params", help="params file to read; default: params.yaml"),
]


def _fail(text: str) -> NoReturn:
    """``text`` as ``error:`` lines on stderr (one per problem: a params file's problems
    come all at once, see ``RucolaError.more``), then exit 1."""
    # escaped: a message quotes user input, and '[' would read as Rich markup
    for line in text.split("\n"):
        err.print(f"[bold red]error:[/] {escape(line)}", soft_wrap=True)
    raise typer.Exit(1)


@contextmanager
def error_boundary() -> Iterator[None]:
    """The one place a command's errors become a line on stderr and exit 1 (see the module
    docstring and ``rucola.failure``); with ``--debug`` the exception and its traceback go
    through instead."""
    # the params file a command loads is named by its messages until it ends, then forgotten
    with reading_params():
        try:
            yield  # usage errors (exit 2) and typer.Exit are none of these: they pass on
        except USER_FAILURES as exc:
            text = failure_text(exc)
            if state["debug"] or text is None:
                raise
            _fail(text)


class PlainHelp:
    """Help that reads like the rest of the Unix tools: Typer (0.27 and later) writes a
    type after every option, a flag's too (``--dry-run <bool>``, though a flag takes no
    value), and a required argument as ``{name}`` in the usage line. Here a flag shows no
    type and an argument is ``NAME`` (``[NAME]`` when optional), in the usage line, the
    arguments table and errors alike. Every command and group of ``rucola`` uses it
    (``rucola.cli``: ``HelpCommand``, ``HelpGroup``, ``BoundaryGroup``)."""

    options_metavar: str | None

    def get_params(self, ctx: typer.Context) -> list[Any]:
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if param.metavar is not None:
                continue
            if isinstance(param, TyperArgument):
                param.metavar = (param.name or "").upper()
            elif getattr(param, "is_flag", False):
                param.metavar = ""  # no type shown: a flag takes no value
        return params

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = param.metavar if param.required else f"[{param.metavar}]"
                pieces.append(name + ("..." if param.nargs != 1 else ""))
        subcommands = getattr(self, "subcommand_metavar", None)
        return [*pieces, subcommands] if subcommands else pieces


class HelpCommand(PlainHelp, TyperCommand):
    """A ``rucola`` command (see :class:`PlainHelp`)."""


class HelpGroup(PlainHelp, TyperGroup):
    """A ``rucola`` command group (see :class:`PlainHelp`)."""


class BoundaryGroup(HelpGroup):
    """The root ``rucola`` group: every command, in every subgroup, runs inside
    :func:`error_boundary`, because a group invokes its subcommands from ``invoke``."""

    def invoke(self, ctx: typer.Context) -> Any:
        with error_boundary():
            # the command's words and arguments, before the group hands them on
            words = [*getattr(ctx, "_protected_args", []), *ctx.args]
            if words and words[0] not in UNCHECKED and "--help" not in words:
                from rucola.tool_record import check_installed_code

                check_installed_code()
            return super().invoke(ctx)


# The commands that may run whatever rucola is installed: the two that record it.
UNCHECKED = frozenset({"init", "upgrade"})


def handles_errors(func: F) -> F:
    """:func:`error_boundary` around one function. Commands need not use it (the root
    group puts every command inside the boundary); it stays for code that calls a command
    function directly, and nesting it changes nothing."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with error_boundary():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def progress() -> bool:
    """Progress bars only for a person watching a terminal, never in CI or DVC logs."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def read_settings(params_file: Path | None) -> Params:
    """The params a command runs on, as the schema's typed model. ``None`` (no
    ``--params``) goes to ``load_settings`` as it is, so the rule for a missing file
    (``params.yaml`` if present, else the defaults; a file that is named must exist) lives
    in one place. Imported here: the schema (pydantic) is the slowest import of all, and
    ``--help`` needs none of it."""
    from rucola.params import load_settings

    settings = load_settings(params_file)
    # every message about a params key from now on names this file (rucola.errors)
    set_params_file(params_name(params_file))
    return settings


def params_name(params_file: Path | None) -> Path:
    """The params file error messages name."""
    return params_file if params_file is not None else Path("params.yaml")
