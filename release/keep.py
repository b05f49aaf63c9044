"""Keeping a published release: ``rucola release keep --version X.Y.Z``.

Ids are permanent once a version is published: a leaderboard submission names test rows by
id, and a row added in v1.1.0 from a sheet has no published identity of its own, only the
id the build gave it. The build folders (``release.out``, ``release.compat``,
``release.private``) are replaced by the next ``dvc repro``, so ``make release`` keeps the
published version beside the repository's other inputs, under
``data/releases/vX.Y.Z/{rucola,rucola_csv,private}``: the public folder, its CSV layout and
the private folder (test gold and corrections ledger), side by side as ``release diff``
expects them (it reads ``../private``). The next version names
``data/releases/vX.Y.Z/rucola`` in ``split.pin``, so every row of it, sheet rows included
(matched by text), keeps its split and id. DVC tracks the folder (``dvc add``), git only
its ``.dvc`` file: the gold never enters git.

A kept version is never replaced: the command refuses an existing folder, copies into a
temporary folder beside it and renames that into place, so the folder is either complete
or absent. The copies carry no rucola ownership record (no ``.rucola-output.json``, no
``user.rucola.sha256`` attribute), so no rucola command will ever overwrite or delete them
(``rucola.ownership``). What is kept is checked first: the public and CSV files against the
build's publish manifest (exactly what ``publish`` uploaded), and the three folders against
the validated split data they were built from, and every file of the three folders against
the folder's own record (``.rucola-output.json``, written with it by the build: each file
and its SHA-256), so a gold label flipped or a file added since the build is never kept.

The folder of kept versions (``data/releases``, or ``--into``) must lie inside the
repository once resolved through links: DVC tracks the kept version there and ``split.pin``
reads it. A run killed while copying leaves its temporary folder
(``.vX.Y.Z.XXXXXXXX.rucola-tmp``, git- and DVC-ignored) beside the kept versions; the next
run removes every such folder before it copies (no other command makes one there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.errors import RucolaError
from rucola.gitignore import ignore_in_git
from rucola.io import plain_folder_mode
from rucola.names import resolved_inside_repository
from rucola.ownership import (
    BOOKKEEPING,
    OWNER_FILE,
    TEMPORARY,
    file_sha256,
    is_scratch_name,
    temporary_folder,
)
from rucola.release.kept import KEPT_ROOT
from rucola.release.manifest import verified_files
from rucola.salt import salt

if TYPE_CHECKING:
    from rucola.settings import Params

# The names inside a kept version: release diff finds the gold and the ledger in ../private.
PUBLIC, COMPAT, PRIVATE = "rucola", "rucola_csv", "private"


def kept_folder(version: str, root: str | Path = KEPT_ROOT) -> Path:
    """``root/vX.Y.Z``, after checking that ``version`` is semantic (as ``publish`` does)."""
    from rucola.release.publish import check_version

    check_version(version)
    return Path(root) / f"v{version}"


# What ``temporary_folder(root/vX.Y.Z)`` names keep's staging folder: only keep makes
# folders of this name in the folder of kept versions.
_LEFTOVER = re.compile(
    rf"\.v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.[A-Za-z0-9_]{{8}}\.{TEMPORARY}"
)


def remove_leftovers(root: Path) -> list[Path]:
    """Remove the staging folders earlier runs of keep left in ``root`` when killed while
    copying (``.vX.Y.Z.XXXXXXXX.rucola-tmp``, folders, not links); returns them."""
    if not root.is_dir():
        return []
    removed = []
    for entry in sorted(root.iterdir()):
        if _LEFTOVER.fullmatch(entry.name) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
            removed.append(entry)
    return removed


def _kept_names(folder: Path) -> list[Path]:
    """The entries of ``folder`` that are kept: all but rucola's bookkeeping and scratch
    files (its record, ledger, staged and temporary names)."""
    return [
        path
        for path in sorted(folder.iterdir())
        if path.name not in BOOKKEEPING and not is_scratch_name(path.name)
    ]


def _kept_files(folder: Path, base: Path | None = None) -> list[str]:
    """Every file under ``folder`` that keep copies, as POSIX paths relative to it; a link
    is refused (it would copy what lies outside the release)."""
    base = folder if base is None else base
    found = []
    for path in _kept_names(folder):
        if path.is_symlink():
            raise RucolaError("a link in a release folder; refusing to keep it", path)
        if path.is_dir():
            found += _kept_files(path, base)
        elif path.is_file():
            found.append(path.relative_to(base).as_posix())
        else:
            raise RucolaError("not a file nor a folder; refusing to keep it", path)
    return found


def check_record(folder: Path) -> None:
    """Every file keep would copy from ``folder`` is the one the build wrote: listed in the
    folder's ``.rucola-output.json`` with the same SHA-256, and every file listed there is
    present. One line naming the first file that differs."""
    rebuild = "run 'rucola release build' (or 'dvc repro') again"
    record = folder / OWNER_FILE
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        hashes = data["sha256"]
        listed = data["files"]
        if not isinstance(hashes, dict) or not isinstance(listed, list):
            raise TypeError
    except FileNotFoundError:
        raise RucolaError(
            f"the build's record of this folder ({OWNER_FILE}) is missing; refusing to keep it",
            folder,
            hint=rebuild,
        ) from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise RucolaError(
            "not the build's record of its folder; refusing to keep it", record, hint=rebuild
        ) from None
    present = _kept_files(folder)
    for name in present:
        if name not in hashes:
            raise RucolaError(
                f"this file is not in the build's record of its folder ({OWNER_FILE}); "
                "refusing to keep the release",
                folder / name,
                hint="remove it: only what 'rucola release build' wrote is kept",
            )
        if file_sha256(folder / name) != hashes[name]:
            raise RucolaError(
                f"this file changed since the build (its SHA-256 differs from {OWNER_FILE}); "
                "refusing to keep the release",
                folder / name,
                hint=rebuild,
            )
    kept = set(present)
    for name in sorted({*listed, *hashes} - kept):
        if isinstance(name, str) and Path(name).name not in BOOKKEEPING:
            raise RucolaError(
                f"a file of the build's record ({OWNER_FILE}) is missing; refusing to keep "
                "the release",
                folder / name,
                hint=rebuild,
            )


def _copy_tree(source: Path, target: Path) -> int:
    """Copy ``source`` into the new folder ``target`` (bytes and permission bits only, so
    no ownership attribute comes along), leaving out rucola's bookkeeping and scratch
    files; returns the number of files copied. A folder gets its permission bits once
    its files are in (a read-only folder would refuse them)."""
    target.mkdir()
    copied = 0
    for path in _kept_names(source):
        if path.is_symlink():
            raise RucolaError("a link in a release folder; refusing to keep it", path)
        if path.is_dir():
            copied += _copy_tree(path, target / path.name)
        elif path.is_file():
            shutil.copyfile(path, target / path.name)
            shutil.copymode(path, target / path.name)
            copied += 1
    shutil.copymode(source, target)
    return copied


def keep_release(params: Params, version: str, root: str | Path = KEPT_ROOT) -> Path:
    """Copy the built (and published) release of ``params`` to ``root/vX.Y.Z``; returns it.

    Refuses, before copying anything, a ``root`` outside the repository (through a link
    too), an existing ``root/vX.Y.Z`` (a published version is never replaced), public or
    CSV files that differ from the publish manifest, folders not built from the validated
    split data, any file that differs from its folder's record, and, in a git repository,
    an input params name that is not committed (``rucola.release.committed``). Then removes what
    killed earlier runs left in ``root``."""
    from rucola.release.build import check_validated
    from rucola.release.committed import check_committed, in_git_work_tree
    from rucola.release.publish import check_release_matches

    section = params.release
    target = kept_folder(version, root)
    resolved_inside_repository(root, "the folder of kept versions (--into)")
    if target.exists() or target.is_symlink():
        raise RucolaError(
            f"v{version} is already kept; a published version is never replaced",
            target,
            hint="publish a new version instead",
        )
    public, compat, private = Path(section.out), Path(section.compat), Path(section.private)
    split = Path(params.split.out)
    if not split.is_file():
        raise RucolaError("split data not found; run 'dvc repro'", split)
    # the data's hash is in the private report, as for build and publish
    check_validated(split, Path(params.validate.private_report))
    check_release_matches(public, private, split)
    verified_files(public, compat)
    if not private.is_dir():
        raise RucolaError("private folder not found; run 'rucola release build'", private)
    for folder in (public, compat, private):
        if folder.is_dir():
            check_record(folder)
    if in_git_work_tree(Path.cwd()):  # a version is its commit (outside git: no commit)
        check_committed(Path.cwd(), params, "release keep")
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(target.parent)
    staging = temporary_folder(target)
    try:
        for name, folder in ((PUBLIC, public), (COMPAT, compat), (PRIVATE, private)):
            if folder.is_dir():
                _copy_tree(folder, staging / name)
        # The gold is private, and `dvc add` records the kept folder's hash in git (its .dvc
        # file): the salt in private/ makes that hash impossible to recompute from a guess
        # of the gold (``rucola.salt``), while split.pin names the public folder beside it.
        salt(staging / PRIVATE)
        plain_folder_mode(staging)  # mkdtemp made it 0700; the private folder keeps its own
        if target.exists():  # appeared while copying: still never replaced
            raise RucolaError(f"v{version} is already kept", target)
        ignore_in_git(target)  # the gold is inside: out of git before it appears there
        os.rename(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target
