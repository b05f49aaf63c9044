"""Names that become parts of paths, and the paths commands write: checked before any use.

A generator called ``../../..`` once made ``rucola generate`` delete the repository, because
its work folder is ``work_dir/<name>``. So every name from params or the command line that
ends up in a path (generator, generation source, release config, split, version) must be a
plain name, and every path a command derives from one must stay inside the folder it was
derived from. Params paths a command writes must, when relative, stay inside the
repository (the working directory, where ``dvc repro`` runs every stage); an absolute path
is an explicit choice of the user's and is kept, but never inside ``.git`` or ``.dvc``.
Params paths of inputs must be relative and inside the repository, where DVC can track
them (``inside_repository``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from rucola.errors import RucolaError

NAME_RULE = (
    "letters, digits, '_', '-' and '.', at most 100 characters, not starting with '.' "
    "or '-' (no '/', no spaces)"
)
# Not starting with '-': a generator's name is an argument of the command DVC runs
# (`rucola generate NAME`), and `--help` there would be read as an option.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
# Folders that belong to git and DVC: no output of ours ever goes there.
_PROTECTED = (".git", ".dvc")


def is_name(value: object) -> bool:
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def check_name(value: object, key: str, path: str | Path | None = "params.yaml") -> str:
    """``value`` if it is a plain name (see ``NAME_RULE``); else exit 1 naming ``key``."""
    if not is_name(value):
        raise RucolaError(f"{key}: {value!r} is not a valid name ({NAME_RULE})", path)
    return str(value)


def child(folder: str | Path, name: str, suffix: str, key: str) -> Path:
    """``folder/<name><suffix>`` for a plain name, which cannot leave ``folder``."""
    return Path(folder) / f"{check_name(name, key)}{suffix}"


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _parsed(text: str) -> tuple[bool, str]:
    """(absolute, normal POSIX form) of a path as params or the command line write it."""
    pure = PurePosixPath(text.replace("\\", "/"))
    absolute = pure.is_absolute() or Path(text).is_absolute()
    return absolute, os.path.normpath(pure.as_posix()) if text else ""


def _climbs_out(normal: str) -> bool:
    return normal == ".." or normal.startswith("../")


def inside_repository(path: str | Path, where: str = "") -> str:
    """An input path as a normal relative POSIX path; refuses what DVC cannot track here."""
    text = str(path)
    absolute, normal = _parsed(text)
    subject = f"{where} names" if where else "this is"
    if absolute:
        problem = "an absolute path"
    elif not text or normal == ".":
        problem = "the whole repository"
    elif _climbs_out(normal):
        problem = "a path outside the repository"
    elif text.endswith("/"):
        raise RucolaError(f"{subject} a path with a trailing '/'; write {normal}", text)
    else:
        return normal
    raise RucolaError(
        f"{subject} {problem}, but DVC can only track inputs inside the repository: "
        "copy it under data/raw/, `dvc add` it and name the copy in params",
        text,
    )


def check_output_path(value: object, key: str, params_path: str | Path = "params.yaml") -> str:
    """A path a command writes (or replaces), from params key ``key``.

    Relative: normalised and, resolved through symlinks, inside the repository. Absolute:
    the user's explicit choice, kept. Never under ``.git`` or ``.dvc``, never the
    repository itself."""
    if not isinstance(value, str) or not value.strip():
        raise RucolaError(f"{key} must be a path, got {value!r}", params_path)
    if "\x00" in value:
        raise RucolaError(f"{key}: a path cannot hold a NUL character", params_path)
    root = Path.cwd().resolve()
    absolute, normal = _parsed(value)
    resolved = Path(os.path.realpath(Path(value)))
    if not absolute and (_climbs_out(normal) or not _inside(resolved, root)):
        raise RucolaError(
            f"{key}: {value!r} lies outside the repository",
            params_path,
            hint="outputs go inside the repository (DVC tracks them there)",
        )
    if resolved == root:
        raise RucolaError(f"{key}: {value!r} is the repository itself", params_path)
    for protected in _PROTECTED:
        if _inside(resolved, root / protected):
            raise RucolaError(f"{key}: {value!r} lies inside {protected}/", params_path)
    return value
