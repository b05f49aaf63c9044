"""``rucola.source_text``: leaving lines out of tokenize (``skimmed_lines``) comes to what
reading every line (``tokenized_lines``) does, on every Python file of the project and on
tricky text; a text tokenize fails on fails the same way."""

from __future__ import annotations

import os
import tokenize
from collections.abc import Callable
from pathlib import Path

import pytest

from rucola.import_graph import ROOT
from rucola.source_text import (
    SKIMMING,
    _classify,
    _Skimmer,
    code_lines,
    skimmable,
    skimmed_lines,
    tokenized_lines,
)

Lines = tuple[str | None, ...]


def outcome(read: Callable[[str], Lines | None], text: str) -> Lines | None | type:
    try:
        return read(text)
    except (tokenize.TokenError, SyntaxError) as error:
        return type(error)


def project_files() -> list[Path]:
    """Every Python file of the checkout, hidden folders (``.venv``...) left out."""
    found: list[Path] = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [n for n in subfolders if not n.startswith(".") and n != "__pycache__"]
        found.extend(Path(folder, name) for name in names if name.endswith(".py"))
    return sorted(found)


def variants(text: str) -> list[str]:
    """The text, with CRLF line ends, and without its last line break."""
    return [text, text.replace("\n", "\r\n"), text.removesuffix("\n")]


@pytest.mark.skipif(not SKIMMING, reason="from Python 3.12 on, tokenize reads every line")
def test_every_file_of_the_project_reads_as_tokenize_reads_it():
    files = project_files()
    assert len(files) > 100
    skimmed = handed = total = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        if not skimmable(text, lines):  # a line continued by a backslash: read whole
            continue
        skimmer = _Skimmer(lines)
        assert _classify(lines, skimmer.tokens(), skimmer.layout) == tokenized_lines(text), path
        skimmed += 1
        handed += len(skimmer.handed)
        total += len(lines)
    assert skimmed > 0.9 * len(files)
    assert handed < total / 2  # most lines are left out


TRICKY = [
    # strings holding '#', comments after strings, quotes of both kinds
    "x = \"a # b\"  # c\ny = '#'\nz = \"it's\"  # it's\nw = '\"'  # \"\n",
    # f-strings
    'name = f"{x!r} # {y}"\nw = f\'{a["k"]}\'  # c\nv = f"{x:>{width}}"\n',
    "s = f'''{\nx\n}'''\nt = f\"\"\"a {b}\n\n# {c}\n\"\"\"\n",
    # strings side by side, triple quotes inside a string on one line
    """x = "a""b" 'c''d'\ny = "'''"  # c\nz = '\"\"\"' + ""\nw = ''\n""",
    # escapes in strings, a backslash that ends no line
    'x = "a\\"b # c" + \'d\\\'e\'  # f\ny = "\\\\"  # g\nz = "\\n".join(a)\n',
    # docstrings: blank lines, a line like a comment, quotes inside
    'def f():\n    """Doc.\n\n    # not a comment\n    it\'s "quoted" (\n    """\n    return 1\n',
    # a string closing inside brackets (its last line starts only an NL)
    'call(\n    """a\n\n    b"""\n)\nx = ("""\n"""\n    , 1)\n',
    "s = '''one\n\n'''  # c\nt = '''\"\"\"'''\nu = \"\"\"'''\n\"\"\"\n",
    'x = """a""" + """\nb"""; y = (1,\n  2)\n',
    # line continuations, in code and in a string
    'x = 1 + \\\n    2\ny = "a\\\nb"\nz = 3  # c\n',
    "if a and \\\n        b:\n    pass\n",
    # brackets over lines, comments and blank lines inside them
    "x = [\n    1,  # one\n\n    # alone\n    (2,\n     3),\n]\ny = {\n}\nz = f(a)[\n    0]\n",
    "x = (\n    1)(\n    2\n)\n    # indented comment\ny = 3\n",
    # more brackets closed than opened: a blank line or a comment then ends a statement
    ")\nx = f(\n1)\n)\n\n# c\n\n((\ny = 1\n",
    # indentation: blocks, dedents, tabs and spaces for the same column
    "if a:\n    b = 1\n    if c:\n        d = 2\n\n    e = 3\n"
    "else:\n\tf = 4\n        g = 5\nh = 6\n",
    "class A:\n    def f(self):\n        return (1 +\n    2)\n    x = 1\n  # c\n    y = 2\n",
    "for i in x:\n    if i:\n        continue\n    else:\n        break\nelse:\n    pass\n",
    "try:\n    a()\nexcept (A,\n        B) as e:\n    b()\nfinally:\n    c()\n",
    # form feeds, whitespace at the end without a line break
    "\x0cx = 1\n  \x0c\n# c\n\x0cclass A:\n    pass\n",
    "x = 1\n   ",
    "x = 1\n# last",
    "def f():\n    return 1\n    ",
    "",
    "\n\n",
    "# only a comment\n",
    "x",
    # beyond ASCII: in strings, comments and names
    'привет = "мир"  # коммент\nx = "é#"\ny = \'ü\'\n',
    # line breaks other than \n: splitlines and tokenize disagree
    "x = 1\x0by = 2\n",
    'x = "a\u2028b"\n',
    "x = 1\ry = 2\n",
    "x = 1\r\n\r\ny = 2\r",
    # semicolons, decorators, lambdas, match, odd characters
    "@dec(\n    1)\ndef f(): return 2; x = 3\nf = lambda: (\n    1)\n",
    'match x:\n    case [1, 2]:\n        pass\n    case {"k": v}:\n        pass\n',
    "x = 1 $ 2 ? 3\ny = `a`\n",
    # text tokenize fails on, each its own way
    "if a:\n        b\n    c\n",
    "if a:\n    b\n  c = 1\n",
    "x = (\n",
    's = """abc\n',
    "x = (\n    1,\n",
    "s = 'abc\\\n",
]


@pytest.mark.parametrize("snippet", TRICKY)
def test_tricky_text_reads_as_tokenize_reads_it(snippet: str):
    for text in variants(snippet):
        expected = outcome(tokenized_lines, text)
        assert outcome(code_lines, text) == expected, text
        if SKIMMING:
            # The fast path gives tokenize's answer or none: None (not skimmable), or an
            # error, on which code_lines reads the text whole (asserted above). Python
            # 3.11.2's tokenize (Debian's) fails on one stand-in line of these where the
            # whole text reads; 3.11.7's reads it.
            fast = outcome(skimmed_lines, text)
            assert fast == expected or fast in (None, tokenize.TokenError), text
            breaks = text.count("\n") + (not text.endswith("\n"))
            continued = "\\\n" in text or "\\\r\n" in text
            if not continued and breaks == len(text.splitlines()):
                assert fast is not None, text  # skimmed, not read whole
