"""The one exception type for problems a user can cause (bad data, bad params).

Anything else is a bug and keeps its traceback; the CLI turns a ``RucolaError`` into one
line naming the file and line (or row) and exits 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

# The params file the running command read (``--params``; else ``params.yaml``, where a
# key would be set even when the defaults are used), held for the length of one command
# (``reading_params``, which the command line's error boundary opens) and read by every
# message about a params key, wherever the key's value is checked: deep in a stage, long
# after the file was loaded. A list, so that ``set_params_file`` changes the innermost
# block's file, and nothing outside any block (where it would never be forgotten).
_PARAMS_FILE: ContextVar[list[str] | None] = ContextVar("params_file", default=None)
DEFAULT_PARAMS_FILE = "params.yaml"


class RucolaError(Exception):
    """A user-facing error: a message, where it happened, and how to fix it."""

    def __init__(
        self,
        message: str,
        path: str | Path | None = None,
        line: int | None = None,
        hint: str | None = None,
        more: tuple[RucolaError, ...] = (),
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.hint = hint
        # further problems of the same input, one line each after this one (a params file's
        # every problem at once: a person fixes them in one pass, not one run per problem)
        self.more = more
        super().__init__(self.format())

    @property
    def location(self) -> str | None:
        if self.path is None:
            return None
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def format(self) -> str:
        text = f"{self.location}: {self.message}" if self.location else self.message
        if self.hint:
            text += f" (hint: {self.hint})"
        return "\n".join([text, *(other.format() for other in self.more)])


def params_file() -> str:
    """The params file a message about a params key names: the one the command loaded."""
    held = _PARAMS_FILE.get()
    return held[0] if held else DEFAULT_PARAMS_FILE


@contextmanager
def reading_params(path: str | Path | None = None) -> Iterator[None]:
    """Within the block, :func:`params_file` is ``path`` (None: the file in effect, until
    :func:`set_params_file` names another); after it, what it was before, so one
    command's file never carries over to the next run in the same process."""
    token = _PARAMS_FILE.set([str(path) if path is not None else params_file()])
    try:
        yield
    finally:
        _PARAMS_FILE.reset(token)


def set_params_file(path: str | Path) -> None:
    """Name ``path`` in params messages until the innermost :func:`reading_params` block
    ends; outside any block, nothing changes (nothing would ever forget it)."""
    held = _PARAMS_FILE.get()
    if held is not None:
        held[0] = str(path)


def params_error(message: str, hint: str | None = None) -> RucolaError:
    """An error about a params key: ``message`` (which names the dotted key) against the
    params file the command loaded, not ``params.yaml`` whatever ``--params`` said."""
    return RucolaError(message, params_file(), hint=hint)


def check_header(names: list[str], path: str | Path, line: int = 1) -> list[str]:
    """``names`` (a header row) with white space stripped, or an error naming the file and
    the header line when two columns share a name, compared without case.

    Every tabular reader (judgment sheets, published RuCoLA CSVs, Toloka exports, vote
    tables, the golden set) calls this one check: with a repeated column, a dict of the row
    keeps the last cell silently (a second ``mark`` column turned a ``*`` row acceptable).
    """
    stripped = [name.strip() for name in names]
    seen: dict[str, str] = {}
    repeated: list[str] = []
    for name in stripped:
        key = name.casefold()
        if key in seen and seen[key] not in repeated:
            repeated.append(seen[key])
        seen.setdefault(key, name)
    if repeated:
        shown = ", ".join(name or "'' (empty header cells)" for name in repeated)
        raise RucolaError(
            f"duplicated column(s) {shown} in the header",
            path,
            line,
            hint="give each column one header cell: which one holds the data is ambiguous",
        )
    return stripped
