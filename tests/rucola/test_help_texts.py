"""Every ``--help`` reads as written for its user: no placeholder, type tag or internal name
leaks into it (issue 24, item 8: ``<bool>``, ``{old}`` and ``release.publish.prepare_repos``
were shown, the command docstrings being the help text)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from rucola.cli import app

ROOT = Path(__file__).resolve().parents[2]

# What never belongs in a help text, with what it is.
LEAKS = {
    r"<bool>": "a flag's type tag (a flag takes no value)",
    r"\{\w+\}": "a placeholder in braces",
    r"::": "a Python or reST reference",
    r"``|:(?:class|func|mod|meth|data):": "reST markup",
    r"\brucola\.\w+": "a module of the package",
    r"\b(?:self|ctx|kwargs)\b": "code",
}
# A dotted name of three or more parts is a params key (annotate.simulate.format) or an
# internal name (release.publish.prepare_repos): only the first may be shown.
DOTTED = re.compile(r"\b[a-z_]+(?:\.[a-z_0-9]+){2,}\b")


def commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The path of every command and group under ``command``, itself first."""
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from commands(sub, (*path, name))


ALL = list(commands(typer.main.get_command(app)))


def params_keys() -> set[str]:
    """Every dotted key of the sample's params, sections included."""
    from rucola.params import load_settings

    keys: set[str] = set()

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, dict):
            for key, sub in value.items():
                name = f"{prefix}.{key}" if prefix else str(key)
                keys.add(name)
                walk(sub, name)

    walk(load_settings(ROOT / "params.yaml").model_dump(), "")
    return keys


def problems(text: str, keys: set[str]) -> list[str]:
    """What in a rendered help text should not be there, one line each."""
    found = []
    for pattern, what in LEAKS.items():
        for match in re.finditer(pattern, text):
            found.append(f"{what}: {match.group(0)!r}")
    for match in DOTTED.finditer(text):
        if match.group(0) not in keys:
            found.append(f"an internal name, not a params key: {match.group(0)!r}")
    return found


def rendered(path: tuple[str, ...], width: int) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], prog_name="rucola", terminal_width=width)
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_is_walked():
    """The walk reaches the groups and their commands (a vendored click may change how
    groups are told apart: then this fails, rather than the test below checking nothing)."""
    assert {(), ("release",), ("release", "publish"), ("release", "diff")} <= set(ALL)
    assert ("annotate", "merge") in ALL and len(ALL) > 20


@pytest.mark.parametrize("path", ALL, ids=lambda path: " ".join(path) or "rucola")
def test_help_leaks_nothing(path):
    keys = params_keys()
    # wide: a name is never split across lines; narrow: what a small terminal shows
    for width in (200, 80):
        text = rendered(path, width)
        assert text.lstrip().startswith(f"Usage: rucola {' '.join(path)}".rstrip()), text
        assert problems(text, keys) == [], text


def test_the_checks_can_fail():
    """Each leak the issue found is caught, and a params key is not."""
    keys = params_keys()
    assert problems("│ --dry-run  <bool>  print the plan │", keys)
    assert problems("Usage: rucola release diff [OPTIONS] {old} {new}", keys)
    assert problems("(see ``release.publish.prepare_repos``)", keys)
    assert problems("see release.publish.prepare_repos", keys)
    assert problems("rucola.release.votes.SAMPLE_KEY", keys)
    assert problems("default: annotate.simulate.format and corpus.pretty_name", keys) == []


def test_flags_and_arguments_read_plainly():
    """A flag shows no type; an argument is NAME in the usage line and its table."""
    text = rendered(("release", "diff"), 120)
    assert "Usage: rucola release diff [OPTIONS] OLD NEW" in text
    assert re.search(r"--private\s+the maintainers' diff", text)
    assert re.search(r"\*\s+OLD\s+<path>", text)
    assert "Missing argument 'NAME'" in CliRunner().invoke(app, ["generate"]).output
