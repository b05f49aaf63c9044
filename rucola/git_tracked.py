"""Whether git holds a private file: the file itself, what a link points at, or the same
file under another name.

A private input (an errata file, a folder's salt) that git tracks is public: pushed with
the repository and kept in its history. Git tracks names, so a second name for a tracked
file hides it from ``git ls-files PATH``: a symbolic link (the file read is the one it
points at, :meth:`Path.resolve`) or a hard link (the same inode under another name: no
link to follow, only ``(st_dev, st_ino)`` tells). A hard link is found by comparing the
file's ``(st_dev, st_ino)`` with every path ``git ls-files`` lists; its link count is no
sign on its own (DVC's cache links files it tracks, so two names for one private file are
common and fine), but a file with one name has no second one to look for.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, check=False)
    except OSError:  # no git here: nothing can be committed either
        return None


def tracked(path: Path) -> bool:
    """Whether git tracks ``path`` (a file of the index, staged or committed)."""
    # literal: a name such as ``e*.csv`` is a file name here, not a pattern
    found = _git(path.parent, "--literal-pathspecs", "ls-files", "--error-unmatch", "--", path.name)
    return found is not None and found.returncode == 0


def tracked_twin(path: Path) -> Path | None:
    """A path git tracks that is the same file as ``path`` under another name (a hard
    link), or None."""
    try:
        own = path.stat()
    except OSError:
        return None
    if own.st_nlink < 2:
        return None  # one name: no other name git could track
    top = _git(path.parent, "rev-parse", "--show-toplevel")
    if top is None or top.returncode != 0:
        return None
    root = Path(os.fsdecode(top.stdout.rstrip(b"\n")))
    listed = _git(root, "ls-files", "-z")
    if listed is None or listed.returncode != 0:
        return None
    for name in listed.stdout.split(b"\0"):
        if not name:
            continue
        candidate = root / os.fsdecode(name)
        try:
            other = candidate.lstat()  # a tracked link holds a path, not the file's bytes
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (own.st_dev, own.st_ino):
            return candidate
    return None


def held_by_git(path: Path) -> str | None:
    """How git holds the file read at ``path``: ``""`` when git tracks the path itself, a
    parenthesised note for a symbolic or hard link to a tracked file, None when git holds
    it under no name."""
    if tracked(path):
        return ""
    target = path.resolve()
    if target != path.absolute() and tracked(target):
        return f" (the link points at {target}, which git tracks)"
    twin = tracked_twin(target)
    if twin is not None:
        return f" (a hard link to {twin}, which git tracks)"
    return None
