"""What a code fingerprint hashes of a Python file: its code, not its layout.

A comment appended to a module reran every stage whose command imports it (the bytes were
hashed). A fingerprint (``rucola.code_fingerprint``) hashes the source with its comments
and its blank lines removed instead, found by ``tokenize``: a line is dropped when the only
tokens starting on it are NL and COMMENT (blank, or a comment alone; :data:`LAYOUT`), and
a comment after code is cut off with the spaces before it. Lines inside a string literal
(a docstring's blank line) start no token and stay: they are content. Docstrings count as
code.

The text is taken from the file's own lines by token positions, never rebuilt from the
tokens (``untokenize``) or from the tree (``ast.dump``): tokenize's f-string tokens and
``ast.dump``'s output differ between Python 3.11 and 3.12, and a fingerprint must be the
same on every Python the project supports (``.ci/python313`` compares the 3.13 build's
outputs with the 3.11 ``dvc.lock``). Standard library only, so another interpreter runs it
as a script: ``python rucola/source_text.py FILE...`` prints each file's hash.

Tokenizing every line took half a second per fingerprint run on 3.11, whose tokenizer is
written in Python; there most lines are not handed to it at all (:class:`_Skimmer`): a line
is left out where its own text proves what it comes to and that tokenize would leave its
state as it found it. :func:`tokenized_lines` reads every line, and the tests compare the
two on every file of the project and on tricky text.
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
import sys
import tokenize
from collections.abc import Iterable, Iterator

# Tokens that hold no code: a line only these start on is layout (where a version of
# tokenize puts a DEDENT or the ENDMARKER must not keep a comment's line).
LAYOUT = frozenset(
    {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)
# Whether lines are left out (:class:`_Skimmer`): only where tokenize is the Python one
# (3.11), whose state between two lines is a bracket count, an indentation stack and the
# string it is in. From 3.12 the C tokenizer matches brackets and reads into f-strings,
# and it is fast: every line is read.
SKIMMING = sys.version_info < (3, 12)

# A token, as the classification reads it: (type, its first line, its column, its last line).
Token = tuple[int, int, int, int]


@functools.lru_cache(maxsize=1024)
def code_lines(text: str) -> tuple[str | None, ...]:
    """One entry per line of ``text`` (``splitlines(keepends=True)``): the line without
    its comment, or None for a line of layout only (blank, or a comment alone)."""
    if SKIMMING:
        try:
            skimmed = skimmed_lines(text)
        except (tokenize.TokenError, SyntaxError):
            # tokenize fails on the text (it fails the same way below), or on a stand-in
            # line where the whole text reads (Python 3.11.2's tokenize): read it whole
            skimmed = None
        if skimmed is not None:
            return skimmed
    return tokenized_lines(text)


def tokenized_lines(text: str) -> tuple[str | None, ...]:
    """:func:`code_lines` with every line read by tokenize."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return _classify(
        text.splitlines(keepends=True),
        ((t.type, t.start[0], t.start[1], t.end[0]) for t in tokens),
        (),
    )


def skimmed_lines(text: str) -> tuple[str | None, ...] | None:
    """:func:`code_lines` with the lines that need no reading left out (:class:`_Skimmer`);
    None for a text it does not apply to: one with a backslash at a line's end (a line
    continued, or a string), or with a line break other than ``\\n`` (``splitlines``
    breaks at ``\\r``, ``\\f``... too, tokenize does not: the numbers would not match)."""
    lines = text.splitlines(keepends=True)
    if not skimmable(text, lines):
        return None
    skimmer = _Skimmer(lines)
    return _classify(lines, skimmer.tokens(), skimmer.layout)


def skimmable(text: str, lines: list[str]) -> bool:
    """Whether :func:`skimmed_lines` applies to ``text``, split into ``lines``."""
    if "\\\n" in text or "\\\r\n" in text:
        return False
    return len(lines) == text.count("\n") + (not text.endswith("\n"))


def _classify(
    lines: list[str], tokens: Iterable[Token], layout: Iterable[int]
) -> tuple[str | None, ...]:
    """:func:`code_lines` from the ``tokens`` of ``lines``; ``layout``: the numbers of the
    lines found to be layout without tokenize."""
    result: list[str | None] = list(lines)
    starting: dict[int, set[int]] = {}
    comments: dict[int, int] = {}
    in_strings: set[int] = set()  # the lines a multi-line token spans, past its first
    for kind, first, column, last in tokens:
        starting.setdefault(first, set()).add(kind)
        if kind == tokenize.COMMENT:
            comments[first] = column
        elif last > first and kind != tokenize.NL:
            in_strings.update(range(first + 1, last + 1))
    for number in layout:
        result[number - 1] = None
    for number, column in comments.items():
        line = result[number - 1]
        assert line is not None
        ending = line[len(line.rstrip("\r\n")) :]
        result[number - 1] = line[:column].rstrip() + ending
    for number, kinds in starting.items():
        if number <= len(result) and kinds <= LAYOUT:
            result[number - 1] = None
    for number, line in enumerate(result, 1):
        if line is not None and not line.strip() and number not in starting:
            # a blank line no token starts on: inside a string it is content; elsewhere
            # (between two lines of one bracket, past the last token) it is layout
            result[number - 1] = line if number in in_strings else None
    return tuple(result)


# --- leaving lines out ------------------------------------------------------------------

_INDENT = re.compile(r"[ \t\f]*+")  # tokenize's whitespace: spaces, tabs, form feeds
# A string on one line as tokenize reads it (a prefix is read as code), with no backslash
# at its end; no quote follows it, so that no triple quotes are read as two strings.
_STRING = (
    r'(?:"[^"\\\r\n]*+(?:\\[^\r\n][^"\\\r\n]*+)*+"'
    r"|'[^'\\\r\n]*+(?:\\[^\r\n][^'\\\r\n]*+)*+')(?![\"'])"
)
_STRINGS = re.compile(_STRING)
# A line outside strings: its indentation; a comment alone, or nothing, or code that
# tokenize reads whole (group 2: printable ASCII but quotes, ``#`` and backslashes, and
# whole strings); its line break.
_LINE = re.compile(rf"([ \t\f]*+)(?:#[^\r\n]*+|((?:[\t !$-&(-\[\]-~]++|{_STRING})++))?(\r?\n)")
_TRIPLE = ('"""', "'''")
_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_ENDS = (tokenize.NL, tokenize.NEWLINE)


class _Skimmer:
    """Hands tokenize the lines of a text (no backslash at a line's end, ``\\n`` breaks
    only: :func:`skimmed_lines`) one by one, leaving out each line whose text proves what
    it comes to and that tokenize would leave its state as it found it.

    Tokenize's state between two lines is known from the tokens it gave (all of a line's
    before it reads the next): the brackets open (its OP tokens), and whether it is in a
    string (the last line it read ended without an NL or NEWLINE token: with no backslash
    at a line's end, only a string in triple quotes goes on past its line). Its stack of
    indentation levels is kept here, as tokenize keeps it, from every line that starts a
    logical line (an unindent to no level raises tokenize's IndentationError), and a line
    is handed without its indentation: tokenize's own stack stays empty and gives no
    INDENT or DEDENT (layout, on a line that starts a token of code too). Left out, and
    what each comes to:

    - in a string, a line without triple quotes (none can end the string): itself, a
      blank one too (it lies within the string token's lines);
    - outside strings, a blank line or a comment alone: layout (tokenize gives NL, and
      COMMENT; a NEWLINE where more brackets closed than opened: then it is handed);
    - outside strings, a line of code (:data:`_LINE`) with as many brackets opening as
      closing: itself, since a token of code starts on it and no comment does.

    A line of code that opens or closes brackets is handed as a stand-in that tokenize
    reads alike and faster: the brackets it leaves open or closes. Every other line, and
    always the last (whole), is handed as it is. The tokens' line numbers, and comments'
    columns, are mapped back to the text's (:meth:`tokens`); a line left out gets none.
    What the classification reads (the token types starting on a line, the comments, the
    lines a string spans) is then what it reads from the whole text. A text tokenize
    fails on fails here too, maybe elsewhere: ``code_lines`` then reads it all.
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.layout: list[int] = []  # the numbers of the lines left out as layout
        self.handed: list[int] = []  # the number of each line handed to tokenize
        self._cut: list[int] = []  # the indentation cut off each line handed
        self._next = 0  # the index of the next line to look at
        self._depth = 0  # brackets open (tokenize's ``parenlev``)
        self._indents = [0]  # the indentation levels' columns (tokenize's ``indents``)
        self._level = ""  # the indentation of the last logical line: the top level's
        self._last = (tokenize.NL, 0)  # the type and line of the last token given

    def tokens(self) -> Iterator[Token]:
        """Tokenize's tokens of the lines handed, as :func:`_classify` reads them: by the
        text's line numbers."""
        handed, cut = self.handed, self._cut
        beyond = len(self.lines) + 1  # the ENDMARKER past the last line
        for token in tokenize.generate_tokens(self._readline):
            kind, (row, column), end = token.type, token.start, token.end[0]
            if kind == tokenize.OP:
                self._depth += _BRACKETS.get(token.string, 0)
            self._last = (kind, row)
            if row > len(handed):
                yield kind, beyond, column, beyond
                continue
            last = handed[end - 1] if end <= len(handed) else beyond
            yield kind, handed[row - 1], column + cut[row - 1], last

    def _readline(self) -> str:
        lines, last, index = self.lines, len(self.lines) - 1, self._next
        in_string = self._last[0] not in _ENDS or self._last[1] != len(self.handed)
        depth, layout, read = self._depth, self.layout, _LINE.fullmatch
        while index < last:
            line = lines[index]
            index += 1
            if in_string:
                if _TRIPLE[0] in line or _TRIPLE[1] in line:
                    break
                continue
            match = read(line)
            if match is None:
                if depth == 0:  # tokenize reads the indentation
                    self._indent(_INDENT.match(line)[0])  # type: ignore[index]
                break
            indent, code, end = match.groups()
            if code is None:  # blank, or a comment alone
                if depth < 0:
                    break
                layout.append(index)
                continue
            if depth == 0 and indent != self._level:
                self._indent(indent)
            if '"' in code or "'" in code:
                code = _STRINGS.sub("", code)
            opened = code.count("(") + code.count("[") + code.count("{")
            opened -= code.count(")") + code.count("]") + code.count("}")
            if opened:
                self._next = index
                brackets = "(" * opened if opened > 0 else ")" * -opened
                return self._hand(index - 1, brackets + end)
        else:
            return self._read_last(index, in_string, depth)
        self._next = index
        line = lines[index - 1]
        cut = 0 if in_string or depth else len(_INDENT.match(line)[0])  # type: ignore[index]
        return self._hand(index - 1, line[cut:], cut)

    def _read_last(self, index: int, in_string: bool, depth: int) -> str:
        """The last line, whole (tokenize's stack is empty: it unindents nothing); then
        nothing, the end."""
        self._next = index + 1
        if index > len(self.lines) - 1:
            return ""
        line = self.lines[index]
        indent = _INDENT.match(line)[0]  # type: ignore[index]
        first = line[len(indent) : len(indent) + 1]
        if not in_string and depth == 0 and first and first not in "#\r\n":
            self._indent(indent)
        return self._hand(index, line)

    def _indent(self, indent: str) -> None:
        """A logical line indented by ``indent`` starts: tokenize's indentation stack."""
        column = len(indent)
        if indent.count(" ") != column:  # tabs to the next multiple of 8, form feeds to 0
            column = 0
            for char in indent:
                column = column + 1 if char == " " else 0 if char == "\f" else column // 8 * 8 + 8
        self._level = indent
        indents = self._indents
        if column > indents[-1]:
            indents.append(column)
        while column < indents[-1]:
            if column not in indents:
                raise IndentationError("unindent does not match any outer indentation level")
            indents.pop()

    def _hand(self, index: int, line: str, cut: int = 0) -> str:
        self.handed.append(index + 1)
        self._cut.append(cut)
        return line


def code_text(text: str) -> str:
    """``text`` without comments and blank lines (:func:`code_lines`)."""
    return "".join(line for line in code_lines(text) if line is not None)


def code_hash(text: str) -> str:
    """The SHA-256 of :func:`code_text`: what changes when, and only when, the code does."""
    return hashlib.sha256(code_text(text).encode("utf-8")).hexdigest()


if __name__ == "__main__":
    for name in sys.argv[1:]:
        with open(name, encoding="utf-8") as handle:
            print(name, code_hash(handle.read()))
