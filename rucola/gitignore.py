"""Keep a folder of private inputs out of git from the moment it exists.

A maintainer's inputs (``data/raw/<folder>``) and kept versions (``data/releases/vX.Y.Z``)
are tracked by DVC: ``dvc add FOLDER`` writes ``/FOLDER`` into the parent's ``.gitignore``.
Until then the folder is one ``git add -A`` away from git, gold and errata included, so
the commands that create or salt such a folder write the same entry first (DVC sees it is
there and writes none of its own). No wider rule may stand in for it: DVC skips every
``.dvc`` file inside a folder that a git rule reaches, so ``/data/raw/*`` in the root
``.gitignore`` hid every input from ``dvc push``, ``dvc checkout`` and ``dvc exp run``.
"""

from __future__ import annotations

from pathlib import Path


def work_tree(path: Path) -> Path | None:
    """The git work tree holding ``path`` (its nearest ancestor with ``.git``), or None."""
    for folder in path.resolve().parents:
        if (folder / ".git").exists():
            return folder
    return None


def ignore_in_git(folder: str | Path) -> Path | None:
    """Write ``/NAME`` into the ``.gitignore`` beside ``folder`` unless it is there (the
    entry ``dvc add`` writes); return that ``.gitignore``, or None outside a git work tree
    (or for the work tree's root itself)."""
    folder = Path(folder)
    root = work_tree(folder)
    if root is None or folder.resolve() == root:
        return None
    gitignore = folder.parent / ".gitignore"
    entry = f"/{folder.name}"
    text = gitignore.read_text(encoding="utf-8") if gitignore.is_file() else ""
    if entry in (line.strip() for line in text.splitlines()):
        return gitignore
    gitignore.parent.mkdir(parents=True, exist_ok=True)
    separator = "" if not text or text.endswith("\n") else "\n"
    with open(gitignore, "a", encoding="utf-8") as handle:
        handle.write(f"{separator}{entry}\n")
    return gitignore
