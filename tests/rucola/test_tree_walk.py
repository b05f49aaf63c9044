"""``rucola.tree_walk``: the statements come in ``ast.walk``'s order, and a statement left
unwalked holds none of the names looked for; on every module of the package and on
tricky text."""

from __future__ import annotations

import ast

import pytest

from rucola.import_graph import modules, parsed
from rucola.tree_walk import naming_lines, naming_nodes, statements

TRICKY = """\
@decorator(params)
def f():
    try:
        pass
    except E as params:
        x = 1
    else:
        y = params.a.b
    finally:
        match z:
            case [q] if params:
                w = read_settings(p).x
    for a in b:
        pass
    else:
        c = lambda: params.q
    class C:
        d: int = load_settings().e
def g():
    return \uff50\uff41\uff52\uff41\uff4d\uff53.a  # written in full-width letters
"""


def texts() -> list[tuple[str, ast.Module]]:
    found = [parsed(module.path) for module in modules().values()]
    for text in (TRICKY, TRICKY.replace("\n", "\r\n"), TRICKY.replace("\n", "\r")):
        found.append((text, ast.parse(text)))
    return found


def test_statements_come_in_the_order_of_the_whole_walk():
    for _, tree in texts():
        assert list(statements(tree)) == [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def names(node: ast.AST, words: frozenset[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in words
    if isinstance(node, ast.Attribute):
        return node.attr in words
    return False


@pytest.mark.parametrize(
    "words",
    [
        frozenset({"params", "read_settings", "load_settings"}),
        frozenset({"iter_modules"}),
        frozenset({"LANGUAGES", "SOURCES"}),
    ],
)
def test_a_statement_left_unwalked_names_none_of_the_words(words: frozenset[str]):
    walked = 0
    for text, tree in texts():
        lines = naming_lines(text, words)
        for statement in tree.body:
            kept = {id(node) for node in naming_nodes(statement, lines)}
            walked += len(kept)
            for node in ast.walk(statement):
                assert not names(node, words) or id(node) in kept, (ast.dump(node), text[:80])
    assert walked  # the test reaches nodes at all
