"""Commands of the tracker stages: input fingerprints for DVC (see ``rucola.track`` and
``rucola.track_input``)."""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from rucola.cli.common import ParamsOption, out, read_settings

commands = typer.Typer()


@commands.command()
def track(
    family: Annotated[
        str, typer.Argument(help="the params key naming the input, e.g. extract.sources")
    ],
    path: Annotated[str, typer.Argument(help="the input (file or folder) as params name it")],
    name: Annotated[
        str | None,
        typer.Option("--as", help="fingerprint name (the source id for generate.sources)"),
    ] = None,
) -> None:
    """Fingerprint one params-named input for DVC (reports/inputs/FAMILY/PATH.json). It
    reads what params name from the family's index, which `rucola track-index` writes."""
    from rucola.track_input import track as run

    target = run(family, path, name)
    out.print(f"track: {path} -> {target}", markup=False)


@commands.command("track-generators")
def track_generators(params_file: ParamsOption = None) -> None:
    """Fingerprint the sources each generator reads (reports/inputs/generate.generators/)."""
    from rucola.track import track_generators as run

    names = run(read_settings(params_file))
    out.print(f"track-generators: {', '.join(names) or 'none'}", markup=False)


@commands.command("track-index")
def track_index(params_file: ParamsOption = None) -> None:
    """Record which inputs params name per family; remove fingerprints no longer named."""
    from rucola.track import track_index as run

    counts = {family: len(names) for family, names in run(read_settings(params_file)).items()}
    out.print(f"track-index: {counts}", markup=False)


@commands.command("fingerprint")
def fingerprint_code(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="write nothing; exit 1 naming each stale file")
    ] = False,
) -> None:
    """Fingerprint each command's code for DVC (reports/code/COMMAND.json): the modules it
    runs and the settings models it reads; a stage depends on its command's file."""
    from pathlib import Path

    from rucola.code_fingerprint import OUT_DIR, collector_paused, stale, write
    from rucola.errors import RucolaError
    from rucola.import_graph import code_root

    app = ctx.find_root().command  # the command line itself, every command in it
    root = Path.cwd()  # the repository the stage runs in: its reports/code/
    code = code_root(root)  # this checkout's code, or else the installed package's
    if check:
        with collector_paused():
            changed, removed = stale(app, root, code=code)
        names = [
            *(f"stale: {OUT_DIR / n}" for n in changed),
            *(f"not a command's: {OUT_DIR / n}" for n in removed),
        ]
        if names:
            raise RucolaError(
                f"{len(names)} code fingerprints out of date: " + "; ".join(names),
                hint="run `rucola fingerprint` (or `dvc repro fingerprint_code`)",
            )
        out.print(f"fingerprint: {OUT_DIR} up to date", markup=False)
        return
    with collector_paused():
        changed, removed = write(app, root, code=code)
    out.print(
        f"fingerprint: {len(changed)} written, {len(removed)} removed under {OUT_DIR}",
        markup=False,
    )


@commands.command("salt")
def salt_folder(
    folder: Annotated[str, typer.Argument(help="the folder of private files, in the repository")],
) -> None:
    """Salt a folder of private inputs once (FOLDER/rucola-salt, random bytes of random
    length), so that no hash git tracks of it (dvc.lock, its .dvc file, reports/inputs/)
    can be recomputed from a guess of its files; then `dvc add FOLDER` and name the folder
    in params. An existing salt is kept."""
    from rucola.gitignore import ignore_in_git
    from rucola.names import check_output_path, inside_repository
    from rucola.salt import salt

    normal = check_output_path(inside_repository(folder, "salt"), "FOLDER", "command line")
    gitignore = ignore_in_git(normal)  # private from now on: never one `git add -A` away
    target, written = salt(normal)
    verb = "salted" if written else "already salted"
    # what a commit needs (rucola.release.committed): the .dvc file and the .gitignore rule
    commit = shlex.join([f"{normal}.dvc", *([gitignore.as_posix()] if gitignore else [])])
    out.print(
        f"salt: {normal} {verb} ({target.as_posix()}); `dvc add {shlex.quote(normal)}`, then "
        f"`git add {commit}` and commit",
        markup=False,
        soft_wrap=True,
    )
