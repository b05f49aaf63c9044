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
the validated split data they were built from.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.errors import RucolaError
from rucola.io import plain_folder_mode
from rucola.ownership import BOOKKEEPING, is_scratch_name, temporary_folder
from rucola.release.manifest import verified_files

if TYPE_CHECKING:
    from rucola.settings import Params

KEPT_ROOT = Path("data/releases")
# The names inside a kept version: release diff finds the gold and the ledger in ../private.
PUBLIC, COMPAT, PRIVATE = "rucola", "rucola_csv", "private"


def kept_folder(version: str, root: str | Path = KEPT_ROOT) -> Path:
    """``root/vX.Y.Z``, after checking that ``version`` is semantic (as ``publish`` does)."""
    from rucola.release.publish import SEMVER

    if not SEMVER.match(version):
        raise RucolaError(
            f"--version: '{version}' is not semantic (X.Y.Z, numbers without leading zeros)"
        )
    return Path(root) / f"v{version}"


def _copy_tree(source: Path, target: Path) -> int:
    """Copy ``source`` into the new folder ``target`` (bytes and permission bits only, so
    no ownership attribute comes along), leaving out rucola's bookkeeping and scratch
    files; returns the number of files copied."""
    target.mkdir()
    shutil.copymode(source, target)
    copied = 0
    for path in sorted(source.iterdir()):
        if path.name in BOOKKEEPING or is_scratch_name(path.name):
            continue
        if path.is_symlink():
            raise RucolaError("a link in a release folder; refusing to keep it", path)
        if path.is_dir():
            copied += _copy_tree(path, target / path.name)
        elif path.is_file():
            shutil.copyfile(path, target / path.name)
            shutil.copymode(path, target / path.name)
            copied += 1
    return copied


def keep_release(params: Params, version: str, root: str | Path = KEPT_ROOT) -> Path:
    """Copy the built (and published) release of ``params`` to ``root/vX.Y.Z``; returns it.

    Refuses, before copying anything, an existing ``root/vX.Y.Z`` (a published version is
    never replaced), public or CSV files that differ from the publish manifest, and folders
    not built from the validated split data."""
    from rucola.release.build import check_validated
    from rucola.release.publish import check_release_matches

    section = params.release
    target = kept_folder(version, root)
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
    check_validated(split, Path(params.validate.report))
    check_release_matches(public, private, split)
    verified_files(public, compat)
    if not private.is_dir():
        raise RucolaError("private folder not found; run 'rucola release build'", private)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = temporary_folder(target)
    try:
        for name, folder in ((PUBLIC, public), (COMPAT, compat), (PRIVATE, private)):
            if folder.is_dir():
                _copy_tree(folder, staging / name)
        plain_folder_mode(staging)  # mkdtemp made it 0700; the private folder keeps its own
        if target.exists():  # appeared while copying: still never replaced
            raise RucolaError(f"v{version} is already kept", target)
        os.rename(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target
