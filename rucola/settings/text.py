"""What a text of the corpus's identity may hold: the words that reach the dataset card.

Every text of params that the card prints (in ``corpus``: ``pretty_name`` in its title and
YAML, the description, the lines per domain, the licence note, the citations, the homepage,
the category names in its tables; a source's ``detailed_source``, ``extract.sources[i].source``)
is the maintainer's, yet the card is published as it is. A character or a piece of markup
that changes what a reader sees, or what the Hub reads, is refused here, where params are
read, with one line naming the key:

- control characters (Unicode Cc: NUL, BEL, the terminal's ANSI escapes ``ESC [``; tabs and
  line breaks of a multi-line text excepted): a terminal or a viewer acts on them;
- bidi controls (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C): they reorder
  the text around them, so the card shows another text than the one it holds;
- a line of ``---`` (three dashes or more, alone on its line): some tools end the card's
  YAML front matter there, and Markdown turns the line above into a heading;
- an HTML comment left open (``<!--`` without its ``-->``): it hides the rest of the card;
- ``<script>``, ``<style>`` and ``<iframe>`` tags: they run or restyle the page that shows
  the card.

The rules are checks, not repairs: the card says what params say, so a text is refused
rather than silently changed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator

from rucola.settings.types import BibTeX, Description, Text, Title, Url

BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
_ALLOWED_CONTROLS = frozenset("\n\t")  # in a multi-line text only
_RULE_LINE = re.compile(r"[ \t]*-{3,}[ \t]*")
_TAG = re.compile(r"<\s*/?\s*(script|style|iframe)\b", re.IGNORECASE)
_OPEN, _CLOSE = "<!--", "-->"


def _where(value: str, index: int) -> str:
    """``line N`` of a multi-line text; nothing for a one-line one."""
    return f" (line {value.count(chr(10), 0, index) + 1})" if "\n" in value else ""


def problem(value: str, *, lines: bool = True) -> str | None:
    """Why ``value`` may not reach the card, or None; ``lines``: tabs and line breaks are
    allowed (a multi-line text)."""
    allowed = _ALLOWED_CONTROLS if lines else frozenset()
    for index, ch in enumerate(value):
        code = f"U+{ord(ch):04X}"
        if ch == "\x1b":
            return f"must not hold an ANSI escape (ESC, U+001B){_where(value, index)}"
        if unicodedata.category(ch) == "Cc" and ch not in allowed:
            return f"must not hold a control character ({code}){_where(value, index)}"
        if ch in BIDI_CONTROLS:
            name = unicodedata.name(ch, code)
            return (
                f"must not hold the bidi control {code} ({name}): it reorders the card's "
                f"text{_where(value, index)}"
            )
    for number, line in enumerate(value.split("\n"), 1):
        if _RULE_LINE.fullmatch(line):
            where = f" (line {number})" if "\n" in value else ""
            return f"must not hold a line of '---'{where}: the card's YAML front matter ends there"
    tag = _TAG.search(value)
    if tag:
        return f"must not hold a <{tag.group(1).lower()}> tag{_where(value, tag.start())}"
    opened = value.rfind(_OPEN)
    if opened >= 0 and value.find(_CLOSE, opened + len(_OPEN)) < 0:
        return (
            f"must not open an HTML comment '<!--' without closing it '-->': it would hide "
            f"the rest of the card{_where(value, opened)}"
        )
    return None


def _checked(lines: bool) -> Any:
    def check(value: Any) -> Any:
        if isinstance(value, str):
            found = problem(value, lines=lines)
            if found:
                raise ValueError(found)
        return value

    return AfterValidator(check)


# The identity's types as the card prints them: each the schema's type, checked here too.
CardTitle = Annotated[Title, _checked(lines=False)]
CardMarkdown = Annotated[Description, _checked(lines=True)]
CardBibTeX = Annotated[BibTeX, _checked(lines=True)]
CardUrl = Annotated[Url, _checked(lines=False)]
CardWord = Annotated[Text, _checked(lines=False)]
CardLabel = Annotated[str, _checked(lines=False)]  # any one-line text, empty included
