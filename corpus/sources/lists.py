"""Example lists: numbered examples as printed in publications (contract §3.2).

One example a line: optional numbering (``(12)``, ``12.``, ``12)``, a sub-letter ``а.``),
then an optional judgment mark, then the sentence. Blank lines are skipped.

``#`` is a judgment mark (``extract.marks`` excludes it by default), so a line that starts
with ``#`` is read as follows:

- ``# source: ID`` and ``# error_type: TYPE`` are directives; they apply to the lines after
  them (the error type to the unacceptable examples of that section);
- ``#`` followed by white space or nothing (``# Тема: ...``, ``#``) is a comment;
- ``#`` written against the text (``#Мальчик спит.``, ``#?Мальчик спит.``) is an example
  with a mark that starts with ``#``: it goes through the marks like any other, so with the
  default marks it is set aside as ``excluded_mark`` and counted, never dropped unseen.

A ``#`` example may also be numbered (``(20) #Каждый ...``), which reads it as an example
whatever follows the mark. The one line the format cannot tell apart is an unnumbered
example printed with a space after its ``#`` (``# Мальчик спит.``): it reads as a comment,
as the sample's comments (``# Тема: порядок слов ...``) must; number it, or write the mark
against the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rucola.corpus.sources.records import RawExample
from rucola.corpus.sources.text import read_text

_DIRECTIVE = re.compile(r"^#\s*(source|error_type)\s*:\s*(.*?)\s*$", re.IGNORECASE)
# A comment: '#' then white space or the end of the line (see the module doc).
_COMMENT = re.compile(r"^#(?:\s|$)")
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
        directive = _DIRECTIVE.match(stripped)
        if directive:
            key, value = directive.group(1).lower(), directive.group(2)
            if key == "source":
                source = value or options.get("source") or path.stem
            else:
                error_type = value or None
            continue
        if _COMMENT.match(stripped):
            continue
        yield RawExample(
            origin=f"{path}:{number}",
            raw=line.rstrip(),
            text=strip_numbering(line),
            mark=None,
            error_type=error_type,
            source=source,
            domain=domain,
            error_type_from_section=True,
        )
