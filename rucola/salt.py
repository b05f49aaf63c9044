"""Salted folders: private inputs whose hashes in git-tracked files cannot be tested
against a guess.

Everything git tracks is public, and git tracks hashes of inputs: ``dvc.lock`` and ``.dvc``
files hold each dependency's md5 and size, and ``reports/inputs/`` its fingerprint. For a
small private file (an errata file written from a fixed template, a review export) the
md5 is as open as the file itself: an attacker hashes every plausible content until one
matches. So private inputs (errata, review exports, crowd answers, a kept release with its
gold) live in a *salted folder*: a folder holding ``rucola-salt``, a file of random bytes
of random length written once by ``rucola salt FOLDER`` (or by the command that creates
the folder: ``release keep``, ``audit import``). DVC tracks the salt with the folder, so:

- ``dvc add FOLDER`` and a stage's dependency on FOLDER record the md5 of the folder's
  listing, which holds the salt's md5: no guess of the files recomputes it; the folder's
  size is the files' sizes plus a salt of unknown length;
- the tracker's fingerprint of a salted folder (``reports/inputs/...``) is an HMAC-SHA256
  under the salt (:func:`keyed_fingerprint`): it changes when any file changes, and says
  nothing else. No per-file hash or size is written.

Where the secret lives: in the salted folder itself, in the DVC cache and the private DVC
remote (``dvc push``; a second machine gets it with ``dvc pull``), never in git. CI and
the sample need none: the sample's inputs are public (git tracks them). A path *inside* a
salted folder (a file or a sub-folder) is refused as an input: DVC would record its own
md5, unsalted; name the salted folder instead. A salt git holds (force-added, or a link
to a file git tracks: :mod:`rucola.git_tracked`) is public, and so would be every hash
under it: refused wherever a salt is read or written.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import shlex
from pathlib import Path

from rucola.errors import RucolaError
from rucola.git_tracked import held_by_git

SALT_FILE = "rucola-salt"
# The salt's length is random too, so a folder's size tells no file's size exactly.
MIN_SALT_BYTES = 32
MAX_SALT_BYTES = 1056


def salt_path(folder: str | Path) -> Path:
    return Path(folder) / SALT_FILE


def is_salted(folder: str | Path) -> bool:
    """True when ``folder`` holds its own salt file (a regular file, not a link)."""
    salt = salt_path(folder)
    return salt.is_file() and not salt.is_symlink()


def read_salt(folder: str | Path) -> bytes:
    """The salt of a salted folder; one line naming the file when it is unreadable or too
    short to be a salt (a person's empty placeholder)."""
    salt = salt_path(folder)
    check_not_in_git(salt)
    try:
        data = salt.read_bytes()
    except OSError as exc:
        raise RucolaError(f"cannot read the salt: {exc.strerror or exc}", salt) from None
    if len(data) < MIN_SALT_BYTES:
        raise RucolaError(
            f"not a salt: {len(data)} bytes, at least {MIN_SALT_BYTES} expected",
            salt,
            hint=f"remove it and run `rucola salt {Path(folder).as_posix()}`",
        )
    return data


def check_not_in_git(salt: Path) -> None:
    """A salt git holds is public: whatever is fingerprinted under it can be tested against
    a guess again. One line naming it and how to untrack it and salt anew (the commit
    keeps the old salt in git's history)."""
    if not (salt.exists() or salt.is_symlink()):
        return
    shown = held_by_git(salt)
    if shown is None:
        return
    folder = salt.parent.as_posix()
    raise RucolaError(
        f"git tracks this salt{shown}: every hash under it could be tested against a guess",
        salt,
        hint=f"`git rm --cached {shlex.quote(salt.as_posix())}`, then remove it and run "
        f"`rucola salt {shlex.quote(folder)}` for a new salt (git's history keeps the old one)",
    )


def salted_ancestor(path: str | Path) -> Path | None:
    """The nearest folder strictly above ``path`` (relative to the working directory, up
    to it) that is salted, or None."""
    parts = Path(path).parts
    for end in range(len(parts) - 1, 0, -1):
        folder = Path(*parts[:end])
        if is_salted(folder):
            return folder
    return None


def salt(folder: str | Path) -> tuple[Path, bool]:
    """Salt ``folder`` (created if missing) once: ``(salt file, written now)``. An existing
    salt is never replaced: it would change every hash of the folder for nothing."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise RucolaError("not a folder; a salt goes into the folder of private files", folder)
    target = salt_path(folder)
    check_not_in_git(target)
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise RucolaError("exists and is not a plain file; refusing to use it as a salt", target)
    if target.exists():
        read_salt(folder)  # an existing salt must be a real one
        return target, False
    folder.mkdir(parents=True, exist_ok=True)
    size = MIN_SALT_BYTES + secrets.randbelow(MAX_SALT_BYTES - MIN_SALT_BYTES + 1)
    data = secrets.token_bytes(size)
    tmp = folder / f".{SALT_FILE}.rucola-tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(tmp, target)  # never over a salt another process wrote meanwhile
    except FileExistsError:
        pass
    except OSError as exc:
        exc.filename = str(target) if exc.filename is None else exc.filename
        raise
    finally:
        tmp.unlink(missing_ok=True)
    return target, True


def keyed(salt_bytes: bytes, content: str) -> str:
    """HMAC-SHA256 of ``content`` under the salt, as hex."""
    return hmac.new(salt_bytes, content.encode("utf-8"), hashlib.sha256).hexdigest()
