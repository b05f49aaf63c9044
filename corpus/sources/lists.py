"""Example lists: numbered examples as printed in publications (format: docs/inputs.md).

One example a line: optional numbering (``(12)``, ``12.``, ``12)``, a sub-letter ``а.``),
then an optional judgment mark, then the sentence. Blank lines are skipped.

``#`` is a judgment mark (``extract.marks`` excludes it by default), so a line that starts
with ``#`` is read as follows:

- ``# source: ID`` and ``# error_type: TYPE`` are directives; they apply to the lines after
  them (the error type to the unacceptable examples of that section);
- ``#``, an ASCII identifier (Latin letters, digits, ``_``) and ``:`` is a directive attempt:
  one that is not a known directive (``# sourc: T1``) is an error naming the line, with the
  nearest directive as a hint, because as a comment it would silently leave the section
  under the previous source. A comment may not look like that (``# Тема: ...``,
  ``# see p. 12``, ``# Note - ...``, ``# https://...`` are comments);
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

import difflib
import re
from collections.abc import Iterator
from pathlib import Path

from rucola.corpus.sources.records import RawExample
from rucola.corpus.sources.text import read_text
from rucola.errors import RucolaError
from rucola.settings import IN_DOMAIN, ExtractSource

DIRECTIVES = ("source", "error_type")
# '#', an ASCII identifier and ':' (see the module doc): a directive, known or not.
# A URL (``# https://...``) is a comment.
_DIRECTIVE = re.compile(r"^#\s*([A-Za-z_][A-Za-z0-9_]*)\s*:(?!//)\s*(.*?)\s*$")
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


def _directive(word: str, path: Path, line: int) -> str:
    """The directive ``word`` names (in any case), or an error with the nearest one."""
    key = word.lower()
    if key in DIRECTIVES:
        return key
    near = difflib.get_close_matches(key, DIRECTIVES, n=1, cutoff=0.5)
    hint = f"did you mean '# {near[0]}:'?" if near else None
    raise RucolaError(
        f"unknown directive '# {word}:' (directives: {', '.join(DIRECTIVES)})",
        path,
        line,
        hint=(hint + " " if hint else "")
        + "a comment is '#', a space and text not of the form 'word:'",
    )


def read_list(path: Path, options: ExtractSource, encoding: str) -> Iterator[RawExample]:
    text = read_text(path, encoding)
    source = options.source or path.stem
    domain = options.domain or IN_DOMAIN
    error_type: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        directive = _DIRECTIVE.match(stripped)
        if directive:
            key, value = _directive(directive.group(1), path, number), directive.group(2)
            if key == "source":
                source = value or options.source or path.stem
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
