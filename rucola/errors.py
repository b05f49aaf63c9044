"""The one exception type for problems a user can cause (bad data, bad params).

Anything else is a bug and keeps its traceback; the CLI turns a ``RucolaError`` into one
line naming the file and line (or row) and exits 1.
"""

from __future__ import annotations

from pathlib import Path


class RucolaError(Exception):
    """A user-facing error: a message, where it happened, and how to fix it."""

    def __init__(
        self,
        message: str,
        path: str | Path | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.hint = hint
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
        return text
