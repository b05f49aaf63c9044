"""Keep a folder of private inputs out of git from the moment it exists.

A maintainer's inputs (``data/raw/<folder>``) and kept versions (``data/releases/vX.Y.Z``)
are tracked by DVC: ``dvc add FOLDER`` writes ``/FOLDER`` into the parent's ``.gitignore``.
Until then the folder is one ``git add -A`` away from git, gold and errata included, so
the commands that create or salt such a folder write the same entry first (DVC sees it is
there and writes none of its own). No wider rule may stand in for it: DVC skips every
``.dvc`` file inside a folder that a git rule reaches, so ``/data/raw/*`` in the root
``.gitignore`` hid every input from ``dvc push``, ``dvc checkout`` and ``dvc exp run``.

The entry is the folder's name with git's escaping (gitignore(5)): ``[``, ``]``, ``*``,
``?``, ``!``, ``#``, a backslash and a trailing space each get a backslash, so
``err[1]`` is ``/err\\[1\\]`` (unescaped it ignored ``err1`` and not the folder) and
``errata `` is ``/errata\\ `` (git drops an unescaped trailing space, and the entry then
ignored ``errata`` beside it). Then ``git check-ignore`` must say that the folder is
ignored and that its ``.dvc`` file, its ``.gitignore`` and every sibling on disk are not:
else the entry is taken back and the command refuses with one line naming the rule that
covers too much (an old ``/*``, say). A name with a control character (a line break) can
be no entry: refused.
"""

from __future__ import annotations

import subprocess
import unicodedata
from pathlib import Path

from rucola.errors import RucolaError

# Characters gitignore(5) reads as pattern syntax anywhere in a pattern.
_SPECIAL = frozenset("\\[]*?!#")


def work_tree(path: Path) -> Path | None:
    """The git work tree holding ``path`` (its nearest ancestor with ``.git``), or None."""
    for folder in path.resolve().parents:
        if (folder / ".git").exists():
            return folder
    return None


def escaped(name: str) -> str:
    """``name`` as a gitignore pattern that matches exactly it: every special character
    and every trailing space behind a backslash (a leading space is literal already)."""
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise RucolaError(
            "a folder name with a control character cannot be written into a .gitignore",
            name.encode("unicode_escape").decode("ascii"),
            hint="rename the folder",
        )
    body = name.rstrip(" ")
    text = "".join(f"\\{c}" if c in _SPECIAL else c for c in body)
    return text + "\\ " * (len(name) - len(body))


def entry_for(folder: Path) -> str:
    """The line ``dvc add`` and rucola write for ``folder`` into the ``.gitignore`` beside
    it: ``/NAME``, escaped."""
    return f"/{escaped(folder.name)}"


def _check_ignore(root: Path, paths: list[str]) -> dict[str, tuple[str, str, str]]:
    """``git check-ignore -v -n --no-index``: per path (relative to ``root``), the rule
    that decides it (source, line, pattern), or empty strings when none does. ``--no-index``:
    what the rules say, whether git tracks the path or not."""
    stdin = "".join(f"{p}\0" for p in paths)
    try:
        done = subprocess.run(
            ["git", "check-ignore", "-v", "-n", "-z", "--no-index", "--stdin"],
            cwd=root,
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise RucolaError("git is not installed; cannot check the .gitignore entry") from None
    if done.returncode not in (0, 1):
        raise RucolaError(f"git check-ignore failed: {done.stderr.strip()}", root)
    fields = done.stdout.split("\0")
    found = {}
    for at in range(0, len(fields) - 3, 4):
        source, line, pattern, path = fields[at : at + 4]
        found[path] = (source, line, pattern)
    return found


def _ignored(rule: tuple[str, str, str]) -> bool:
    source, _, pattern = rule
    return bool(source) and not pattern.startswith("!")


def _rule(rule: tuple[str, str, str]) -> str:
    source, line, pattern = rule
    return f"{source}:{line}: {pattern}"


def _problem(root: Path, folder: Path, gitignore: str, entry: str) -> str | None:
    """What is wrong with the rules for ``folder`` (relative to ``root``): it is not
    ignored, a rule ignores its ``.dvc`` file or its ``.gitignore`` (DVC would skip them),
    or its own entry (``entry`` in ``gitignore``) also ignores a sibling."""
    own = folder.as_posix()
    parent = folder.parent
    companions = [(parent / f"{folder.name}.dvc").as_posix(), (parent / ".gitignore").as_posix()]
    siblings = []
    if (root / parent).is_dir():
        siblings = sorted(
            (parent / p.name).as_posix() for p in (root / parent).iterdir() if p.name != folder.name
        )
    rules = _check_ignore(root, [own, *companions, *siblings])
    none = ("", "", "")
    rule = rules.get(own, none)
    if not _ignored(rule):
        shown = f" (the rule {_rule(rule)} keeps it)" if rule[0] else ""
        return f"git does not ignore {own} with its entry{shown}"
    for path in companions:
        if _ignored(rules.get(path, none)):
            return (
                f"the rule {_rule(rules[path])} also ignores {path}: DVC skips a .dvc file "
                "a git rule reaches, and no commit would hold it"
            )
    # the folder's entry, or one written for it unescaped (by rucola before it escaped)
    meant = {entry, f"/{folder.name}", folder.name, f"/{folder.name}/", f"{folder.name}/"}
    for path in siblings:
        source, line, pattern = rules.get(path, none)
        if Path(source).as_posix() == gitignore and pattern in meant:
            return f"the entry {_rule(rules[path])} also ignores {path}, beside the folder"
    return None


def ignore_in_git(folder: str | Path) -> Path | None:
    """Write the folder's escaped ``/NAME`` into the ``.gitignore`` beside ``folder`` unless
    it is there (the entry ``dvc add`` writes) and check it with ``git check-ignore``;
    return that ``.gitignore``, or None outside a git work tree (or for the work tree's
    root itself). Refused, with the ``.gitignore`` as it was, when the folder is then not
    ignored or a rule covers more than the folder."""
    folder = Path(folder)
    root = work_tree(folder)
    if root is None or folder.resolve() == root:
        return None
    entry = entry_for(folder)
    gitignore = folder.parent / ".gitignore"
    existed = gitignore.is_file()
    text = gitignore.read_text(encoding="utf-8") if existed else ""
    written = entry not in text.splitlines()  # git strips no leading space: compare whole lines
    created: list[Path] = []
    if written:
        missing = gitignore.parent
        while not missing.exists():
            created.append(missing)
            missing = missing.parent
        gitignore.parent.mkdir(parents=True, exist_ok=True)
        separator = "" if not text or text.endswith("\n") else "\n"
        with open(gitignore, "a", encoding="utf-8") as handle:
            handle.write(f"{separator}{entry}\n")
    relative = folder.resolve().parent.relative_to(root) / folder.name
    try:
        problem = _problem(root, relative, (relative.parent / ".gitignore").as_posix(), entry)
    except BaseException:
        _take_back(gitignore, text if existed else None, created, written)
        raise
    if problem is not None:
        _take_back(gitignore, text if existed else None, created, written)
        raise RucolaError(
            problem,
            gitignore,
            hint="fix or remove that rule: each private folder has its own entry "
            f"({entry} in {gitignore.as_posix()}) and no wider rule",
        )
    return gitignore


def _take_back(gitignore: Path, text: str | None, created: list[Path], written: bool) -> None:
    """The ``.gitignore`` (and the folders made for it) as before ``ignore_in_git``."""
    if not written:
        return
    if text is None:
        gitignore.unlink(missing_ok=True)
    else:
        gitignore.write_text(text, encoding="utf-8")
    for made in created:
        made.rmdir()
