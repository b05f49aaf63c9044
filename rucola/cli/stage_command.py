"""One factory for every stage command: the same options, read the same way.

A stage command is a function that takes its typed params section (``settings``), the
whole params (``params``, for the keys of other stages it needs) and, when the stage
reads a file another stage writes, that file (``source``), plus any options of its own:

    @stage_command(commands, "filter", section="filter", reads="measure.out")
    def filter_(settings: Filter, params: Params, source: str) -> None: ...

The factory adds ``--params`` and, where the stage has them, ``--input`` (in place of
``reads``), ``--out``, ``--rejected`` and ``--report``; it reads the params file, applies
the options through the schema (:func:`rucola.params.with_overrides`: an option is held to
the rules a params file is held to) and calls the function with the checked section. An
``--out`` given alone takes the stage's other outputs (set-aside rows, report, plots)
beside it, under their usual file names, so a trial run never overwrites the pipeline's
files. ``generate`` and ``release build`` write where params say only: they take no
``--out``.

Every command-line option that names a path a command writes (``OUTPUT_OPTIONS``: the
factory's ``--out``, ``--rejected`` and ``--report``, and a command's own ``--out``,
``--out-dir``, ``--report``, ``--undecided`` or ``--into``) is checked here, before the
command runs, by :func:`check_output_options` (``rucola.names.check_command_line_output``:
never under ``.git`` or ``.dvc``, as for a params path): the factory does it for its
commands, and :func:`checks_output_options` for a command made without it.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.models

from rucola.cli.common import ParamsOption

# The options the factory can add: params key -> (option, help).
OPTIONS: dict[str, tuple[str, str]] = {
    "out": ("--out", "output; its companion outputs go beside it unless given too"),
    "rejected": ("--rejected", "set-aside rows"),
    "report": ("--report", "report JSON"),
}
# Injected by the factory, never options.
INJECTED = ("settings", "params", "source")
# The options that name a path a command writes, wherever a command declares them.
OUTPUT_OPTIONS = frozenset(
    {"--out", "--out-dir", "--rejected", "--report", "--undecided", "--into"}
)


def _option_names(parameter: inspect.Parameter) -> tuple[str, ...]:
    """The option names (``--out``, ...) a command parameter is given by, if any."""
    infos = [parameter.default]
    if typing.get_origin(parameter.annotation) is Annotated:
        infos += list(parameter.annotation.__metadata__)
    for info in infos:
        if isinstance(info, typer.models.OptionInfo):
            decls = [d for d in (info.default, *(info.param_decls or ())) if isinstance(d, str)]
            return tuple(d for d in decls if d.startswith("-"))
    return ()


def output_parameters(parameters: Sequence[inspect.Parameter]) -> dict[str, str]:
    """``{parameter name: option}`` for every parameter given by an ``OUTPUT_OPTIONS``
    option (its names joined, ``--out/--report``, where it has two)."""
    found = {}
    for parameter in parameters:
        names = _option_names(parameter)
        if any(n in OUTPUT_OPTIONS for n in names):
            found[parameter.name] = "/".join(names)
    return found


def check_output_options(values: dict[str, Any], options: dict[str, str]) -> None:
    """Every given value of an output option (``options``: parameter name -> option) is a
    path a command may write: never under ``.git`` or ``.dvc`` (one line naming the
    option); a list option (repeated) is checked item by item."""
    from rucola.names import check_command_line_output

    for key, option in options.items():
        value = values.get(key)
        for item in value if isinstance(value, list | tuple) else [value]:
            check_command_line_output(item, option)


def checks_output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """For a command made without the factory: its output options are checked
    (:func:`check_output_options`) before it runs."""
    signature = inspect.signature(func)
    options = output_parameters(
        [
            p.replace(annotation=_resolved(p.annotation, func))
            for p in signature.parameters.values()
            if p.name not in INJECTED
        ]
    )

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs)
        check_output_options(dict(bound.arguments), options)
        return func(*args, **kwargs)

    return command


def _option(name: str, help_text: str, default_key: str) -> inspect.Parameter:
    annotation = Annotated[
        Path | None, typer.Option(name, help=f"{help_text}; default: {default_key}")
    ]
    key = name.removeprefix("--").replace("-", "_") + "_path"
    return inspect.Parameter(
        key, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
    )


def _resolved(annotation: Any, func: Callable[..., Any]) -> Any:
    if isinstance(annotation, str):
        return eval(annotation, func.__globals__)  # noqa: S307 (our own source)
    return annotation


def beside(section: Any, out: Path, given: set[str]) -> dict[str, str]:
    """The section's other output keys, not given on the command line, moved into the
    folder of ``out`` under their own file names; a name that is already taken there
    (``split.rejected`` is ``rejected/split.parquet``, as ``--out split.parquet`` may be)
    gets its key in front (``rejected_split.parquet``), so no output overwrites another."""
    from rucola.settings import output_fields

    moved: dict[str, str] = {}
    taken = {out.name}
    for key in output_fields(type(section)):
        value = getattr(section, key)
        if key != "out" and key not in given and value is not None:
            name = Path(value).name
            if name in taken:
                name = f"{key}_{name}"
            taken.add(name)
            moved[key] = str(out.parent / name)
    return moved


def stage_command(
    app: typer.Typer,
    name: str | None = None,
    *,
    section: str,
    reads: str | None = None,
    input_help: str = "input",
    outputs: Sequence[str] = ("out", "rejected", "report"),
    callback: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``func`` as the command ``name`` of ``app`` (see the module docstring).

    ``section``: the dotted params section the stage runs on; ``reads``: the dotted params
    key of the file it reads (what ``--input`` replaces, given to ``func`` as ``source``);
    ``outputs``: which of ``out``, ``rejected``, ``report`` the command takes as options;
    ``callback``: register it as ``app``'s own command, run when no subcommand is named."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        # The command's own options, their annotations resolved (the injected ones are for
        # type checkers only: importing the schema here would slow down ``--help``).
        own = [
            p.replace(annotation=_resolved(p.annotation, func))
            for p in inspect.signature(func).parameters.values()
            if p.name not in INJECTED
        ]
        added: list[inspect.Parameter] = []
        if reads is not None:
            added.append(_option("--input", input_help, reads))
        for key in outputs:
            option, help_text = OPTIONS[key]
            added.append(_option(option, help_text, f"{section}.{key}"))
        params_option = inspect.Parameter(
            "params_file", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ParamsOption
        )
        parameters = (
            [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own] + added + [params_option]
        )
        if callback:
            context = inspect.Parameter(
                "ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context
            )
            parameters = [context, *parameters]
        wants = set(inspect.signature(func).parameters)
        # the factory's --out/--rejected/--report and the command's own output options
        outputs_given = output_parameters([*own, *added])

        @functools.wraps(func)
        def command(**kwargs: Any) -> Any:
            from rucola.cli.common import read_settings
            from rucola.determinism import one_thread
            from rucola.params import value_at, with_overrides

            if callback and kwargs.pop("ctx").invoked_subcommand is not None:
                return None
            check_output_options(kwargs, outputs_given)
            params = read_settings(kwargs.pop("params_file"))
            source = kwargs.pop("input_path", None) if reads is not None else None
            given = {key: kwargs.pop(f"{key}_path", None) for key in outputs}
            settings = value_at(params, section)
            updates = {key: value for key, value in given.items() if value is not None}
            if "out" in updates:
                updates = beside(settings, Path(updates["out"]), set(updates)) | updates
            elif "report" in updates and hasattr(settings, "private_report"):
                # a trial report never overwrites the pipeline's private one
                report = Path(updates["report"])
                updates["private_report"] = str(report.with_name(f"private_{report.name}"))
            names = {key: OPTIONS[key][0] for key in outputs}
            settings = with_overrides(settings, names, **updates)
            injected = {"settings": settings, "params": params}
            if reads is not None:
                injected["source"] = str(source) if source else value_at(params, reads)
            with one_thread():  # the same floats on every machine (rucola.determinism)
                return func(**{k: v for k, v in injected.items() if k in wants}, **kwargs)

        # the keys the function is handed, for its code fingerprint (rucola.code_fingerprint)
        func.__rucola_settings__ = (section, reads)  # type: ignore[attr-defined]
        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        if callback:
            app.callback(invoke_without_command=True)(command)
        else:
            app.command(name)(command)
        return func

    return register
