"""What every guarantee test checks of a command that must fail, in one place.

A refused command prints exactly one ``error:`` line on stderr (no traceback) naming what
it refused, and changes no file: :func:`one_error_line` and :func:`snapshot` say so for every
file of ``tests/guarantees/``, so a new promise is tried against the same bar.
"""

from __future__ import annotations

from pathlib import Path

# The head of a script a guarantee test runs in a subprocess to kill a run at its commit:
# with the argument ``kill``, the process gets SIGKILL at the first file ``StageRun``'s
# commit moves into place (``os.replace``), the worst moment for the outputs.
KILL_AT_COMMIT = """\
import os, signal, sys
import rucola.stage as stage

if "kill" in sys.argv[1:]:
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)
    commit = stage.StageRun._commit
    def dying_commit(self):
        os.replace = die
        commit(self)
    stage.StageRun._commit = dying_commit
"""


def one_error_line(stderr: str, *needles: str) -> str:
    """The single ``error:`` line of a failed command, without a traceback; it names every
    needle (a file, a line, a params key)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: what a refused command must not change."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
