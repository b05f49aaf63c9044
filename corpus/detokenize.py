"""Tokens back into text as a Russian writer prints it.

GEC corpora store sentences tokenised (``Кто - то , по - моему , прав .``); a row of the
corpus is plain text (``Кто-то, по-моему, прав.``), or the filter's token counts, the
duplicate keys and every consumer would see spaces no writer typed. The rules are few and
conservative: a token is never changed, only the spaces between tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

# No space before these (closing punctuation) and none after those (opening).
_ATTACH_LEFT = frozenset(",.!?:;…)]}»”%") | {"...", "?!", "!?", "!!!", "!!", "??"}
_ATTACH_RIGHT = frozenset("([{«„")
_QUOTE = '"'
_ELLIPSES = frozenset({"...", "…"})
# ``“`` closes a German-style ``„`` (the Russian inner quotes, „так“) and otherwise opens an
# English-style “quote”.
_LOW_QUOTE, _HIGH_QUOTE = "„", "“"
_HYPHEN = "-"
# A hyphen token inside a word: ``X - то`` is ``X-то``, ``по - моему`` is ``по-моему``. A
# hyphen between other words is a dash (``проблема - умение``) and keeps its spaces, so only
# these particles (after the hyphen) and prefixes (before it) join; the dashes ``—``, ``–``
# and ``‒`` are never joined.
_SUFFIXES = frozenset({"то", "либо", "нибудь", "ка", "таки", "де"})
_PREFIXES = frozenset({"кое", "кой", "по", "во", "в", "из", "полу", "вице", "экс"})
# ``Ростов - на - Дону``: a lower-case link between two capitalised words of one place name.
_INFIXES = frozenset({"на"})
_ROMAN = frozenset("IVXLCDM")


def _word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def _number(token: str) -> bool:
    return token.isdigit() or (bool(token) and set(token) <= _ROMAN)


def _joins(left: str, right: str) -> bool:
    """Whether ``left - right`` is one hyphenated word."""
    if not (_word(left) and _word(right)):
        return False
    if right.lower() in _SUFFIXES or left.lower() in _PREFIXES:
        return True
    # An ordinal's ending: ``1960 - е``, ``5 - й``, ``XIX - го``.
    return _number(left) and right.isalpha() and right.islower() and len(right) <= 3


def _capital(token: str) -> bool:
    return token[:1].isupper() and token.isalpha()


def _place_name(tokens: Sequence[str], i: int) -> bool:
    """Whether the hyphen at ``i`` is one of the two in ``Ростов - на - Дону``."""
    after = tokens[i + 1 : i + 4]
    if len(after) == 3 and after[0] in _INFIXES and after[1] == _HYPHEN:
        return _capital(tokens[i - 1]) and _capital(after[2])
    before = tokens[max(0, i - 3) : i]
    if len(before) == 3 and before[2] in _INFIXES and before[1] == _HYPHEN:
        return _capital(before[0]) and _capital(tokens[i + 1])
    return False


def _closes(tokens: Sequence[str], i: int, open_quote: bool) -> bool:
    """Whether the straight quote at ``i`` closes one. Quotes alternate, except that one
    before closing punctuation (not an ellipsis: ``" ... и вот "`` opens with one) or at the
    end closes, and one at the start or after ``:`` or an opening bracket opens: a learner's
    text often lacks a quote, and alternation alone would then turn every later pair inside
    out (``непринуждённее ".``)."""
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    before = tokens[i - 1] if i else None
    if after is None or (after in _ATTACH_LEFT and after not in _ELLIPSES):
        return True
    if before is None or before == ":" or before in _ATTACH_RIGHT:
        return False
    return open_quote


def detokenize(tokens: Sequence[str]) -> str:
    """``tokens`` joined with single spaces except where the rules above remove one."""
    out: list[str] = []
    glue = True  # no space before the next token (start of text, after an opening mark)
    open_quote = False
    open_low = False  # a „ waits for its “
    for i, token in enumerate(tokens):
        # whether the token attaches to what precedes it, and the next one to it
        if token == _HIGH_QUOTE:
            attach, glue_next = glue or open_low, not open_low
            open_low = False
        elif token == _QUOTE:
            closes = _closes(tokens, i, open_quote)
            attach, glue_next = (True, False) if closes else (glue, True)
            open_quote = not closes
        elif (
            token == _HYPHEN
            and 0 < i < len(tokens) - 1
            and (_joins(tokens[i - 1], tokens[i + 1]) or _place_name(tokens, i))
        ):
            attach, glue_next = True, True
        else:
            attach, glue_next = glue or token in _ATTACH_LEFT, token in _ATTACH_RIGHT
            open_low = open_low or token == _LOW_QUOTE
        out.append(token if attach else " " + token)
        glue = glue_next
    return "".join(out)
