"""What a failure a user can cause says: the text of the one line (a line per problem)
that every command prints on stderr before it exits 1.

A ``RucolaError`` says its own text; an ``OSError`` (disk full, read-only file system,
permission, a file that vanished) names its path; a ``MemoryError``, or a worker process
killed from outside (``BrokenExecutor``, what the parent sees of the OOM killer), names the
params sizes to lower. Anything else is a bug and keeps its traceback. Here, apart from the
command line framework, because two boundaries print these lines: the command line's
(``rucola.cli.common.error_boundary``) and a tracker's, which starts without the framework
(``rucola.track_input.main``).
"""

from __future__ import annotations

import errno
import os
import re
from concurrent.futures import BrokenExecutor
from pathlib import Path

from rucola.errors import RucolaError

# What to do about an OSError, by errno: the failing disk or mount, not the data.
_OS_HINTS = {
    errno.ENOSPC: "the disk is full: free space or choose an output path on another disk",
    errno.EDQUOT: "the disk quota is exhausted: free space or choose another output path",
    errno.EROFS: "a read-only file system: choose an output path on a writable one",
    errno.EACCES: "check the file's permissions, or choose another path",
    errno.EPERM: "check the file's permissions, or choose another path",
}
# The params keys that size what a stage holds in memory at once.
MEMORY_KEYS = (
    "measure.batch_rows, generate.shard_size, generate.generators.<name>.max_batch_tokens, "
    "filter.near_duplicates.num_perm"
)


def shown_path(path: str) -> str:
    """``path`` as the user named it: the staged or temporary name a writer was using
    (``.NAME.rucola-staged``, ``.NAME.XXXXXXXX.rucola-tmp``, see ``rucola.ownership``) is
    shown as the output ``NAME`` it stands for."""
    from rucola.ownership import STAGED, TEMPORARY

    pattern = re.compile(
        rf"\.\.?(?P<name>.+?)(?P<staged>\.{STAGED})?(?P<tmp>\.[A-Za-z0-9_]{{8}}\.{TEMPORARY})?"
    )
    parts = []
    for part in Path(path).parts:
        found = pattern.fullmatch(part)
        named = found is not None and (found["staged"] or found["tmp"])
        parts.append(found["name"] if named and found is not None else part)
    return str(Path(*parts)) if parts else path


def os_error_line(exc: OSError) -> str:
    """An OSError as one line: the path (both, for a rename), what went wrong, a hint."""
    # the system's words for a known errno: Arrow's message around them adds nothing
    reason = os.strerror(exc.errno) if exc.errno else exc.strerror or type(exc).__name__
    names = (exc.filename, exc.filename2)
    paths = [shown_path(os.fsdecode(p)) for p in names if isinstance(p, str | bytes)]
    text = f"{' -> '.join(paths)}: {reason}" if paths else reason
    hint = _OS_HINTS.get(exc.errno) if exc.errno is not None else None
    return f"{text} (hint: {hint})" if hint else text


# What a boundary catches and hands to :func:`failure_text` (which lets a bug through).
USER_FAILURES = (RucolaError, MemoryError, BrokenExecutor, OSError)


def failure_text(exc: BaseException) -> str | None:
    """The text a failure shows, one line per problem; None for a bug (and for a closed
    pipe, which click handles): let it through with its traceback."""
    if isinstance(exc, RucolaError):
        return exc.format()
    if isinstance(exc, MemoryError):
        return f"out of memory (hint: lower a size in params, such as {MEMORY_KEYS})"
    if isinstance(exc, BrokenExecutor):  # a worker killed (the OOM killer), not one that raised
        return (
            "a worker process was killed before it finished (often: the machine ran out of "
            f"memory) (hint: lower filter.workers, or a size such as {MEMORY_KEYS})"
        )
    if isinstance(exc, OSError) and exc.errno != errno.EPIPE:
        return os_error_line(exc)
    return None
