"""``rucola audit``: find rows a corpus maintainer should look at again.

``rucola audit`` is the DVC stage ``audit`` (after ``split``): it reads the split rows and
writes the private review queue (``audit.out``) and the counts (``audit.report``).
``rucola audit export`` and ``rucola audit import`` (``rucola.cli.review``) take the queue
to expert reviewers in Label Studio and their decisions back as an errata file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from rucola.cli.common import out
from rucola.cli.stage_command import stage_command

if TYPE_CHECKING:
    from rucola.settings import Audit, Params

audit_app = typer.Typer(
    help="Audit the split rows (the stage), and review the findings in Label Studio.",
)


@stage_command(
    audit_app,
    section="audit",
    reads="split.out",
    input_help="split rows",
    outputs=("out", "report"),
    callback=True,
)
def audit(settings: Audit, params: Params, source: str) -> None:
    """Write the review queue: cross-split duplicates, conflicting duplicates, likely label
    errors (confident learning) and category mismatches, most suspicious first."""
    from rucola.curation.audit import run_audit, summary_lines

    for line in summary_lines(run_audit(settings, params, source)):
        out.print(line, markup=False, soft_wrap=True)
