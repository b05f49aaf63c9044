"""Names that become parts of paths, and the paths commands write: checked before any use.

A generator called ``../../..`` once made ``rucola generate`` delete the repository, because
its work folder is ``work_dir/<name>``. So every name from params or the command line that
ends up in a path (generator, generation source, release config, split, version) must be a
plain name, and every path a command derives from one must stay inside the folder it was
derived from. Params paths a command writes must, when relative, stay inside the
repository (the working directory, where ``dvc repro`` runs every stage); an absolute path
is an explicit choice of the user's and is kept, but never inside ``.git`` or ``.dvc``.
Output paths given on the command line (``--out``, ``--rejected``, ``--report``, ...) are
the user's explicit choice too, relative or not, but never inside ``.git`` or ``.dvc``
either (``check_command_line_output``, which the stage command factory applies to every
such option). Params paths of inputs must be relative and inside the repository, where DVC
can track them (``inside_repository``); a folder rucola keeps there (the kept releases)
must lie inside it once resolved through links (``resolved_inside_repository``). Every
pattern here matches a whole value (``fullmatch``): ``$`` would also match before a final
newline.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from rucola.errors import RucolaError, params_file

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


def check_name(value: object, key: str, path: str | Path | None = None) -> str:
    """``value`` if it is a plain name (see ``NAME_RULE``); else exit 1 naming ``key`` and
    ``path`` (None: the params file the command loaded)."""
    if not is_name(value):
        where = path if path is not None else params_file()
        raise RucolaError(f"{key}: {value!r} is not a valid name ({NAME_RULE})", where)
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


def check_output_path(value: object, key: str, params_path: str | Path | None = None) -> str:
    """A path a command writes (or replaces), from params key ``key`` of ``params_path``
    (None: the params file the command loaded).

    Relative: normalised and, resolved through symlinks, inside the repository. Absolute:
    the user's explicit choice, kept. Never under ``.git`` or ``.dvc``, never the
    repository itself."""
    params_path = params_path if params_path is not None else params_file()
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
    _check_unprotected(value, resolved, root, key, params_path)
    return value


def _check_unprotected(
    value: str, resolved: Path, root: Path, key: str, where: str | Path | None
) -> None:
    """Refuse a path that, resolved through links, lies in a folder of git's or DVC's:
    the repository's own, or any other (a ``.git`` or ``.dvc`` among its parts below the
    repository, or anywhere in a path outside it)."""
    parts = resolved.relative_to(root).parts if _inside(resolved, root) else resolved.parts
    for protected in _PROTECTED:
        if protected in parts:
            raise RucolaError(f"{key}: {value!r} lies inside {protected}/", where)


def check_command_line_output(value: object, option: str) -> str | None:
    """A path a command writes, from the command-line option ``option`` (``--out``): the
    user's explicit choice, relative or absolute, inside the repository or not, but never
    under ``.git`` or ``.dvc`` once resolved through links (as for params paths). None
    (the option not given) passes."""
    if value is None:
        return None
    text = str(value)
    if not text.strip():
        raise RucolaError(f"{option} must be a path, got {text!r}")
    if "\x00" in text:
        raise RucolaError(f"{option}: a path cannot hold a NUL character")
    root = Path.cwd().resolve()
    _check_unprotected(text, Path(os.path.realpath(text)), root, option, None)
    return text


def resolved_inside_repository(path: str | Path, what: str) -> Path:
    """``path`` resolved through links, which must lie inside the repository (the working
    directory), not be the repository itself and not lie under ``.git`` or ``.dvc``: a
    folder rucola fills for DVC to track and params to name (the kept releases)."""
    text = str(path)
    root = Path.cwd().resolve()
    resolved = Path(os.path.realpath(text))
    if not _inside(resolved, root):
        shown = "" if resolved == Path(text) else f" (it resolves to {resolved})"
        raise RucolaError(
            f"{what} lies outside the repository{shown}; refusing to write there",
            text,
            hint="it must lie inside the repository, where DVC tracks it and params name "
            "it (make a folder there, not a link out of it)",
        )
    if resolved == root:
        raise RucolaError(f"{what} is the repository itself", text)
    _check_unprotected(text, resolved, root, what, None)
    return resolved
