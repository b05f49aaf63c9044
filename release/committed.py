"""A version is its commit: every input params name is in it, as git or DVC holds it.

``release publish`` refused a tree with changed tracked files, but not one whose new files
were never added: following the docs, a release manager committed ``data/raw/rucola_v1.dvc``
while ``data/raw/.gitignore``, ``data/raw/errata.dvc`` and ``data/raw/sheets.dvc`` stayed
untracked, published 1.1.0, and a clone of that commit lacked the errata (and showed
``?? data/raw/rucola_v1/``). So before ``release publish`` and ``release keep``, each input
that params name (``rucola.track.FAMILIES``: sources, errata, pins, rounds, the frequency
table, the audit's model) must be committed as its owner holds it:

- an input git holds: no untracked or changed file under it;
- an input git ignores (DVC holds it, ``dvc add``): the ``.dvc`` file that tracks it (its
  own, or a folder's above it) and the ``.gitignore`` whose rule ignores it, each tracked
  and unchanged (``git check-ignore -v`` names the rule's file: a rule in
  ``.git/info/exclude`` or a global excludes file is in no commit either).

What is not committed is named with the ``git add`` that commits it.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterable
from pathlib import Path

from rucola.errors import RucolaError
from rucola.settings import Params
from rucola.track import FAMILIES, named


def input_paths(params: Params) -> list[str]:
    """Every input path params name, once, in the families' order."""
    paths: dict[str, None] = {}
    for family in FAMILIES:
        for _, path in named(params, family):
            paths[Path(path).as_posix()] = None
    return list(paths)


def _git(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, input=stdin)
    except FileNotFoundError:
        raise RucolaError("git is not installed") from None


def in_git_work_tree(root: Path) -> bool:
    done = _git(root, "rev-parse", "--is-inside-work-tree")
    return done.returncode == 0 and done.stdout.strip() == "true"


def _not_committed(root: Path, path: str) -> list[str]:
    """The files under ``path`` (a file or a folder) git does not hold as committed:
    untracked, added but not committed, changed or deleted. ``-z``: paths as they are
    (without it git quotes a Cyrillic name as octal escapes, which no ``git add`` takes)."""
    done = _git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", path)
    if done.returncode != 0:
        raise RucolaError(f"git status failed: {done.stderr.strip()}", root)
    found, fields = [], iter(done.stdout.split("\0"))
    for entry in fields:
        if entry:
            found.append(entry[3:])
            if entry[0] in "RC":  # a rename or copy: its source path follows
                next(fields, None)
    return found


def _ignored_by(root: Path, path: str) -> str | None:
    """The file whose rule makes git ignore ``path`` (None: git does not ignore it)."""
    # -z (with --stdin, as git requires): the rule's file as it is, not octal-quoted
    done = _git(root, "check-ignore", "-v", "-z", "--stdin", stdin=f"{path}\0")
    if done.returncode != 0:
        return None
    return done.stdout.split("\0", 1)[0]  # source, line, pattern, path: NUL-separated


def _dvc_file(root: Path, path: str) -> str | None:
    """The ``.dvc`` file that tracks ``path``: its own, or a folder's above it."""
    current = Path(path)
    while current.parts:
        candidate = current.with_name(current.name + ".dvc")
        if (root / candidate).is_file():
            return candidate.as_posix()
        current = current.parent
    return None


def uncommitted(root: Path, paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """(files to ``git add``, inputs no ``.dvc`` file tracks) for the inputs ``paths``."""
    to_add: dict[str, None] = {}
    untracked: list[str] = []
    for path in paths:
        if not (root / path).exists():
            continue  # the stage that reads it says so
        rule = _ignored_by(root, path)
        if rule is None:
            to_add.update(dict.fromkeys(_not_committed(root, path)))
            continue
        dvc_file = _dvc_file(root, path)
        if dvc_file is None:
            untracked.append(path)
            continue
        to_add.update(dict.fromkeys(_not_committed(root, dvc_file)))
        inside = (root / rule).resolve().is_relative_to(root.resolve())
        if not inside or rule.startswith(".git/"):
            untracked.append(f"{path} (ignored by {rule}, which no commit holds)")
        else:
            to_add.update(dict.fromkeys(_not_committed(root, rule)))
    return sorted(to_add), untracked


def check_committed(root: Path, params: Params, command: str) -> None:
    """One line naming what is not committed, with the ``git add`` to run."""
    to_add, untracked = uncommitted(root, input_paths(params))
    if untracked:
        raise RucolaError(
            f"{command}: inputs params name that neither git nor a .dvc file holds: "
            + ", ".join(untracked),
            hint="track each with `dvc add PATH` (or commit it), then commit: a release "
            "is published from a commit, so that a clone of it can rebuild it",
        )
    if to_add:
        raise RucolaError(
            f"{command}: not committed: {', '.join(to_add)} (inputs params name, their "
            ".dvc files and .gitignore entries)",
            hint=f"git add {shlex.join(to_add)} && git commit: a release is published from "
            "a commit, so that a clone of it can rebuild it",
        )
