"""``rucola init`` and ``rucola upgrade``: a corpus repository of its own, apart from the
tool's (``rucola.corpus_repo``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rucola.cli.common import out

commands = typer.Typer()


@commands.command()
def init(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(help="the corpus repository (made if missing)")],
    preset: Annotated[
        str | None,
        typer.Option("--preset", help="a corpus rucola ships: sample, rucola-v1, cola, ..."),
    ] = None,
    language: Annotated[
        str | None, typer.Option("--language", help="a new corpus's language code (es, de)")
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="a new corpus's name (its release folder)")
    ] = None,
) -> None:
    """Make FOLDER a corpus repository: git, DVC, corpus.yaml and the generated pipeline."""
    from rucola import corpus_repo
    from rucola.errors import RucolaError
    from rucola.import_graph import code_root

    if (preset is None) == (language is None and name is None):
        raise RucolaError(
            "give --preset NAME, or --language CODE and --name NAME for a new corpus",
            hint=f"presets: {', '.join(corpus_repo.presets())}",
        )
    if preset is not None:
        overlay = corpus_repo.preset_overlay(preset)
        title = preset
    else:
        if language is None or name is None:
            raise RucolaError("a new corpus needs both --language CODE and --name NAME")
        overlay = corpus_repo.new_overlay(name, language)
        title = name
    app = ctx.find_root().command
    data = corpus_repo.sample_files() if preset == "sample" else None
    written = corpus_repo.init(folder, overlay, title, app, code_root(), data)
    out.print(
        f"init: {folder}: a corpus repository ({len(written)} files written); next: put the"
        f" inputs under data/raw/ and `dvc add` them, then `dvc repro` (see {folder}/README.md)",
        markup=False,
    )


@commands.command()
def upgrade(ctx: typer.Context) -> None:
    """Rewrite the generated files for the installed rucola; say which stages will rerun."""
    from rucola import corpus_repo
    from rucola.import_graph import code_root

    root = Path.cwd()
    app = ctx.find_root().command
    written = corpus_repo.upgrade(root, app, code_root())
    if not written:
        out.print("upgrade: up to date, nothing written", markup=False)
        return
    out.print(f"upgrade: wrote {', '.join(written)}", markup=False)
    rerun = corpus_repo.stages_to_rerun(root)
    shown = ", ".join(rerun) if rerun else "none"
    stages = "stage" if len(rerun) == 1 else "stages"
    out.print(f"upgrade: `dvc repro` will run {len(rerun)} {stages}: {shown}", markup=False)
