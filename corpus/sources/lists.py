"""Example lists: numbered examples as printed in publications (contract §3.2)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rucola.corpus.sources import RawExample
from rucola.corpus.sources.text import read_text

_DIRECTIVE = re.compile(r"^#\s*(source|error_type)\s*:\s*(.*?)\s*$", re.IGNORECASE)
# (12) / 12. / 12) followed by white space; a bare "2 мая" or "12.5" is not numbering.
_NUMBER = re.compile(r"^(?:\(\d+[a-zа-яё]?\)|\d+[.)])(?=\s)\s*")
# A lower-case sub-letter: а. б) a. b) - upper-case initials such as "В." are text.
_SUBLETTER = re.compile(r"^[a-zа-яё][.)](?=\s)\s*")


def strip_numbering(line: str) -> str:
    """Remove the example number and the sub-letter in front of an example."""
    text = line.strip()
    number = _NUMBER.match(text)
    if number:
        text = text[number.end() :]
    sub = _SUBLETTER.match(text)
    if sub:
        text = text[sub.end() :]
    return text


def read_list(path: Path, options: dict[str, Any], encoding: str) -> Iterator[RawExample]:
    text = read_text(path, encoding)
    source = options.get("source") or path.stem
    domain = options.get("domain") or "in_domain"
    error_type: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            directive = _DIRECTIVE.match(stripped)
            if directive:
                key, value = directive.group(1).lower(), directive.group(2)
                if key == "source":
                    source = value or options.get("source") or path.stem
                else:
                    error_type = value or None
            continue
        yield RawExample(
            origin=f"{path}:{number}",
            raw=line.rstrip(),
            text=strip_numbering(line),
            mark=None,
            error_type=error_type,
            source=source,
            domain=domain,
        )
