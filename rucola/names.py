"""Names that become parts of paths, and the paths commands write: checked before any use.

A generator called ``../../..`` once made ``rucola generate`` delete the repository, because
its work folder is ``work_dir/<name>``. So every name from params or the command line that
ends up in a path (generator, generation source, release config, split, version) must be a
plain name, and every path a command derives from one must stay inside the folder it was
derived from. Params paths that are relative must stay inside the repository (the working
directory, where ``dvc repro`` runs every stage); an absolute path is an explicit choice
of the user's and is kept, but never inside ``.git`` or ``.dvc``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from rucola.errors import RucolaError

NAME_RULE = (
    "letters, digits, '_', '-' and '.', at most 100 characters, not starting with '.' "
    "(no '/', no spaces)"
)
_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")
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
    """``folder/<name><suffix>``, refused unless it lies directly inside ``folder``."""
    check_name(name, key)
    path = Path(folder) / f"{name}{suffix}"
    if Path(os.path.normpath(path)).parent != Path(os.path.normpath(folder)):
        raise RucolaError(f"{key}: {name!r} leaves its folder {folder}", "params.yaml")
    return path


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


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
    pure = PurePosixPath(value.replace("\\", "/"))
    resolved = Path(os.path.realpath(Path(value)))
    if not (pure.is_absolute() or Path(value).is_absolute()):
        normal = os.path.normpath(pure.as_posix())
        if normal == ".." or normal.startswith("../") or not _inside(resolved, root):
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
