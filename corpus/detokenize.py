"""Tokens back into text as a Russian writer prints it.

GEC corpora store sentences tokenised (``Кто - то , по - моему , прав .``); a row of the
corpus is plain text (``Кто-то, по-моему, прав.``), or the filter's token counts, the
duplicate keys and every consumer would see spaces no writer typed. The rules are few and
conservative: a token is never changed, only the spaces between tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

# No space before these (closing punctuation) and none after those (opening).
_ATTACH_LEFT = frozenset(",.!?:;…)]}»“%") | {"...", "?!", "!?", "!!!", "!!", "??"}
_ATTACH_RIGHT = frozenset("([{«„")
_QUOTE = '"'
_HYPHEN = "-"
# A hyphen token inside a word: ``X - то`` is ``X-то``, ``по - моему`` is ``по-моему``. A
# hyphen between other words is a dash (``проблема - умение``) and keeps its spaces.
_SUFFIXES = frozenset({"то", "либо", "нибудь", "ка", "таки", "де"})
_PREFIXES = frozenset({"кое", "кой", "по", "во", "в", "из", "полу"})


def _word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def _joins(left: str, right: str) -> bool:
    """Whether ``left - right`` is one hyphenated word."""
    if not (_word(left) and _word(right)):
        return False
    if right.lower() in _SUFFIXES or left.lower() in _PREFIXES:
        return True
    return left.isdigit() and right.isalpha() and len(right) <= 3  # 1960 - е, 5 - й


def detokenize(tokens: Sequence[str]) -> str:
    """``tokens`` joined with single spaces except where the rules above remove one."""
    out: list[str] = []
    glue = True  # no space before the next token (start of text, after an opening mark)
    open_quote = False
    for i, token in enumerate(tokens):
        if token == _QUOTE:
            if open_quote:  # a closing quote: attached to what it closes
                out.append(token)
                glue = False
            else:
                out.append(token if glue else " " + token)
                glue = True
            open_quote = not open_quote
            continue
        if (
            token == _HYPHEN
            and 0 < i < len(tokens) - 1
            and out
            and _joins(tokens[i - 1], tokens[i + 1])
        ):
            out.append(token)
            glue = True
            continue
        attach = glue or token in _ATTACH_LEFT
        out.append(token if attach else " " + token)
        glue = token in _ATTACH_RIGHT
    return "".join(out)
