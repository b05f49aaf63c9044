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
"""

from __future__ import annotations

import functools
import hashlib
import io
import sys
import tokenize

# Tokens that hold no code: a line only these start on is layout (where a version of
# tokenize puts a DEDENT or the ENDMARKER must not keep a comment's line).
LAYOUT = frozenset(
    {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)


@functools.lru_cache(maxsize=1024)
def code_lines(text: str) -> tuple[str | None, ...]:
    """One entry per line of ``text`` (``splitlines(keepends=True)``): the line without
    its comment, or None for a line of layout only (blank, or a comment alone)."""
    lines: list[str | None] = list(text.splitlines(keepends=True))
    starting: dict[int, set[int]] = {}
    comments: dict[int, int] = {}
    in_strings: set[int] = set()  # the lines a multi-line token spans, past its first
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        starting.setdefault(token.start[0], set()).add(token.type)
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.start[1]
        elif token.end[0] > token.start[0] and token.type != tokenize.NL:
            in_strings.update(range(token.start[0] + 1, token.end[0] + 1))
    for number, column in comments.items():
        line = lines[number - 1]
        assert line is not None
        ending = line[len(line.rstrip("\r\n")) :]
        lines[number - 1] = line[:column].rstrip() + ending
    for number, kinds in starting.items():
        if number <= len(lines) and kinds <= LAYOUT:
            lines[number - 1] = None
    for number, line in enumerate(lines, 1):
        if number not in starting and line is not None and not line.strip():
            # a blank line no token starts on: inside a string it is content; elsewhere
            # (between two lines of one bracket, past the last token) it is layout
            lines[number - 1] = line if number in in_strings else None
    return tuple(lines)


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
