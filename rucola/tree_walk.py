"""Walking a module's syntax tree no further than the question needs.

A fingerprint run asks three things of every module's tree (``rucola.import_graph``,
``rucola.code_fingerprint``): its imports, its lookups of a registry's entries, and its
chains of params keys. ``ast.walk`` over every node of every tree took an eighth of the
run. An import is a statement, and statements hold statements only in their bodies and
clauses: :func:`statements` walks those alone. A lookup or a chain starts from a name
written out in the source: :func:`naming_lines` finds the lines that may hold one, and a
statement on none of them is not walked (:func:`names_none`, :func:`naming_nodes`).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Iterator
from functools import cache

# The fields that hold statements: bodies, and the ``except`` and ``case`` clauses.
BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


@cache
def _blocks(kind: type) -> tuple[str, ...]:
    return tuple(field for field in kind._fields if field in BLOCKS)


def statements(root: ast.AST) -> Iterator[ast.stmt]:
    """The statements of ``root`` and below, in ``ast.walk``'s order (breadth first),
    reached through the statement bodies alone: a tenth of the nodes (an import is a
    statement; its expressions are walked for nothing). Statements hold statements only
    in their bodies and clauses (:data:`BLOCKS`), so each lies as deep, and comes as
    early among the statements, as in the whole walk."""
    todo = deque([root])
    while todo:
        node = todo.popleft()
        if isinstance(node, ast.stmt):
            yield node
        for field in _blocks(type(node)):
            todo.extend(getattr(node, field))


def naming_lines(text: str, words: Iterable[str]) -> list[int] | None:
    """The numbers of the lines of ``text`` that may hold one of the identifiers ``words``,
    in order: those that write one out, and those with a character beyond ASCII (an
    identifier is read NFKC-normalized, PEP 3131). None where the lines cannot be told
    apart (a ``\\r``: a line break to the parser, not here). A statement on none of
    them (:func:`names_none`) needs no walk to look for one."""
    if "\r" in text:
        return None
    written = _written(tuple(sorted(words)))
    if not text.isascii():
        lines = enumerate(text.split("\n"), 1)
        return [n for n, line in lines if not line.isascii() or written.search(line)]
    found: list[int] = []
    line, last = 1, 0
    for match in written.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        if not found or found[-1] != line:
            found.append(line)
    return found


@cache
def _written(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, words)))


def names_none(statement: ast.stmt, lines: list[int] | None) -> bool:
    """Whether no line of ``statement`` (its decorators' included) is among ``lines``
    (:func:`naming_lines`): no node below it holds one of their words."""
    if lines is None:
        return False
    decorators = getattr(statement, "decorator_list", ())
    first = min([statement.lineno, *(d.lineno for d in decorators)])
    index = bisect_left(lines, first)
    return index == len(lines) or lines[index] > (statement.end_lineno or first)


def naming_nodes(statement: ast.stmt, lines: list[int] | None) -> Iterator[ast.AST]:
    """The nodes below ``statement`` (itself included) but those below a statement that
    names none of the words of ``lines`` (:func:`names_none`), in no set order."""
    if names_none(statement, lines):
        return
    todo: list[ast.AST] = [statement]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt) or not names_none(child, lines):
                todo.append(child)
