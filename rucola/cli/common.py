"""What every command shares: one-line errors, the consoles, the options pattern.

Every stage command takes ``--params FILE`` and, where its stage has them, ``--input``,
``--out``, ``--rejected`` and ``--report``, each replacing the params key of the same name
for this run only (``override``), so a stage can be tried on other files without editing
params. Commands import their stage inside the function: ``rucola --help`` stays fast,
and the modules a command runs are exactly those its function imports (the closure that
``tests/test_architecture.py`` checks against the stage's deps in ``dvc.yaml``).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_args

import typer
from rich.console import Console
from rich.markup import escape

from rucola.errors import RucolaError

# emoji=False: Rich would print `params.yaml:100: ...` as `params.yaml💯 ...`
err = Console(stderr=True, highlight=False, emoji=False)
out = Console(highlight=False, emoji=False)
# Set by the ``--debug`` option of the main app, read when a command fails.
state = {"debug": False}

F = TypeVar("F", bound=Callable[..., Any])

ParamsOption = Annotated[
    Path | None,
    typer.Option("--params", help="params file to read; default: params.yaml"),
]
InputOption = Annotated[
    Path | None, typer.Option("--input", help="input parquet; default: the stage's params input")
]
OutOption = Annotated[
    Path | None, typer.Option("--out", help="output parquet; default: the stage's params out")
]
RejectedOption = Annotated[
    Path | None,
    typer.Option("--rejected", help="set-aside rows; default: the stage's params rejected"),
]
ReportOption = Annotated[
    Path | None, typer.Option("--report", help="report JSON; default: the stage's params report")
]


def handles_errors(func: F) -> F:
    """A known problem (``RucolaError``) becomes one line on stderr and exit 1; with
    ``--debug`` the exception (and its traceback) goes through instead."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RucolaError as exc:
            if state["debug"]:
                raise
            # escaped: a message quotes user input, and '[' would read as Rich markup
            err.print(f"[bold red]error:[/] {escape(exc.format())}", soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def progress() -> bool:
    """Progress bars only for a person watching a terminal, never in CI or DVC logs."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def read_params(params_file: Path | None) -> dict[str, Any]:
    """The params a command runs on. ``None`` (no ``--params``) goes to ``load_params`` as
    it is, so the rule for a missing file (``params.yaml`` if present, else the defaults;
    a file that is named must exist) lives in one place. Imported here: the params
    schema (pydantic) is the slowest import of all, and ``--help`` needs none of it."""
    from rucola.params import load_params

    return load_params(params_file)


def params_name(params_file: Path | None) -> Path:
    """The params file error messages name."""
    return params_file if params_file is not None else Path("params.yaml")


def one_of(value: str | None, allowed: Any, option: str, noun: str) -> str | None:
    """``value`` of ``option`` if it is one of the ``Literal`` type ``allowed`` (the params
    schema's own type for the key the option stands in for), else one line naming both."""
    choices = get_args(allowed)
    if value is not None and value not in choices:
        raise RucolaError(
            f"{option}: unknown {noun} {value!r}", hint=f"one of {', '.join(choices)}"
        )
    return value


def override(section: dict[str, Any], **paths: Path | None) -> dict[str, Any]:
    """``section`` with the paths given on the command line in place of its keys (in
    place, so code that reads the whole params sees the same values); returns it."""
    for key, value in paths.items():
        if value is not None:
            section[key] = str(value)
    return section
