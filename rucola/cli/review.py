"""``rucola audit export`` and ``rucola audit import``: the audit's queue to expert
reviewers in Label Studio, and their decisions back as an errata file (``extract.errata``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rucola.cli.audit import audit_app
from rucola.cli.common import ParamsOption, out, read_settings
from rucola.cli.stage_command import stage_command

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
def import_(
    export_file: Annotated[Path, typer.Argument(help="Label Studio JSON export of the review")],
    errata: Annotated[Path, typer.Option("--out", help="the errata CSV to write")],
    undecided: Annotated[
        Path | None,
        typer.Option("--undecided", help="also write the undecided tasks to this CSV"),
    ] = None,
    params_file: ParamsOption = None,
) -> None:
    """Turn the reviewers' decisions into an errata file: a decision a majority of a task's
    reviewers made is an erratum; ties and split decisions are listed as undecided, never
    applied. Name the file in `extract.errata` (and `dvc add` it, never git)."""
    from rucola.curation.review import import_lines, import_review

    params = read_settings(params_file)
    for line in import_lines(import_review(export_file, errata, params, undecided)):
        out.print(line, markup=False, soft_wrap=True)
