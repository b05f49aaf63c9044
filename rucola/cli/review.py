"""``rucola audit export`` and ``rucola audit import``: the audit's queue to expert
reviewers in Label Studio, and their decisions back as an errata file (``extract.errata``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rucola.cli.audit import audit_app
from rucola.cli.common import ParamsOption, out, read_settings
from rucola.cli.stage_command import checks_output_options, stage_command

if TYPE_CHECKING:
    from rucola.settings import AuditExport, Params


@stage_command(
    audit_app,
    "export",
    section="audit.export",
    reads="audit.out",
    input_help="the review queue",
    outputs=("out",),
)
def export(
    settings: AuditExport,
    params: Params,
    source: str,
) -> None:
    """Write the most suspicious rows of each kind as Label Studio tasks, with the review
    configuration (keep, relabel, change category, fix text, remove; a comment)."""
    from rucola.curation.review import export_line, export_review

    out.print(export_line(export_review(settings, params, source)), markup=False)


@audit_app.command("import")
@checks_output_options
def import_(
    export_file: Annotated[Path, typer.Argument(help="Label Studio JSON export of the review")],
    errata: Annotated[Path, typer.Option("--out", help="the errata CSV to write")],
    undecided: Annotated[
        Path | None,
        typer.Option("--undecided", help="also write the undecided tasks to this CSV"),
    ] = None,
    queue: Annotated[
        Path | None,
        typer.Option("--queue", help="the audit queue the tasks came from; default: audit.out"),
    ] = None,
    params_file: ParamsOption = None,
) -> None:
    """Turn the reviewers' decisions into an errata file: a decision a majority of a task's
    reviewers made is an erratum; ties, split decisions and errata the build would refuse
    (a row not in the audit queue, a text with control characters) are listed as undecided,
    never applied. Write it into a folder of errata (`--out data/raw/errata/review.csv`):
    the folder is salted (`rucola salt`), so that no hash git tracks can be tested against
    a guess of the file; name the folder in `extract.errata` and `dvc add` it, never git."""
    from rucola.curation.review import import_lines, import_review
    from rucola.gitignore import ignore_in_git
    from rucola.salt import salt

    params = read_settings(params_file)
    if errata.parent.resolve() != Path.cwd().resolve():
        ignore_in_git(errata.parent)  # the errata are private before DVC tracks them
    result = import_review(export_file, errata, params, undecided, queue)
    for line in import_lines(result):
        out.print(line, markup=False, soft_wrap=True)
    folder = errata.parent
    if folder.resolve() != Path.cwd().resolve() and salt(folder)[1]:
        out.print(
            f"salted {folder.as_posix()}: its hashes tell nothing of the errata", markup=False
        )
