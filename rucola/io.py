"""Atomic, deterministic writers shared by every stage.

Every output goes to a temporary file in the target folder and is renamed into place, so a
failing stage never leaves a partial file; parquet and JSON are written the same way each
time (no index, sorted keys) so DVC sees byte-identical outputs for identical inputs.

A folder output (``atomic_dir``) carries a manifest, ``.rucola-output.json``, listing the
files it was written with; a folder is replaced only when that manifest proves it ours and
it holds nothing else, so a mistyped ``release.out: .`` cannot delete the repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rucola.errors import RucolaError

OWNER_FILE = ".rucola-output.json"

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        # mkstemp creates 0600; give the file the permissions a plain open() would.
        os.chmod(tmp_path, 0o666 & ~_UMASK)
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def listed_files(folder: Path) -> list[str]:
    """Every file and link under ``folder`` but the manifest, as sorted POSIX paths."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        base = Path(root)
        for name in [*names, *(d for d in dirs if (base / d).is_symlink())]:
            relative = (base / name).relative_to(folder).as_posix()
            if relative != OWNER_FILE:
                found.append(relative)
    return sorted(found)


def check_replaceable(target: Path) -> None:
    """Refuse to replace ``target`` unless it is absent, empty, or a folder ``atomic_dir``
    wrote that holds only the files its manifest lists."""
    if not target.exists() and not target.is_symlink():
        return
    if target.is_symlink() or not target.is_dir():
        raise RucolaError("exists and is not a folder rucola wrote; refusing to replace it", target)
    if not any(target.iterdir()):
        return
    files = listed_files(target)
    try:
        manifest = json.loads((target / OWNER_FILE).read_text(encoding="utf-8"))
        listed = set(manifest["files"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise RucolaError(
            f"this folder was not written by rucola (no {OWNER_FILE}); refusing to replace it",
            target,
            hint="choose another output folder, or remove this one yourself",
        ) from None
    foreign = [f for f in files if f not in listed]
    if foreign:
        raise RucolaError(
            f"this folder holds {foreign[0]!r}, which rucola did not write; refusing to replace it",
            target,
            hint="move that file elsewhere first",
        )


def plain_folder_mode(folder: Path) -> None:
    """Give a folder made by ``mkdtemp`` (0700) the permissions a plain mkdir gives; the
    caller may narrow them (the private folder of the gold stays 0700)."""
    os.chmod(folder, 0o777 & ~_UMASK)


def swap_in_dir(staged: Path, target: Path) -> None:
    """Seal ``staged`` with its manifest and put it in place of ``target``: the old folder
    is checked again (``check_replaceable``) and moved aside first, so ``target`` is never
    missing nor half-written."""
    write_json({"files": listed_files(staged), "written_by": "rucola"}, staged / OWNER_FILE)
    check_replaceable(target)
    if not target.exists():
        os.replace(staged, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
    try:
        os.replace(target, old / target.name)
        try:
            os.replace(staged, target)
        except OSError:
            os.replace(old / target.name, target)  # the old folder stays where it was
            raise
    finally:
        shutil.rmtree(old)


@contextmanager
def atomic_dir(path: str | Path) -> Iterator[Path]:
    """Yield a temporary folder next to ``path``; swap it in for ``path`` on success
    (``swap_in_dir``). The old folder is checked before any work, too."""
    target = Path(path)
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    plain_folder_mode(tmp)
    try:
        yield tmp
        swap_in_dir(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def table_from_frame(frame: pd.DataFrame, schema: pa.Schema | None = None) -> pa.Table:
    """Convert without the pandas index or pandas metadata, which would vary between runs."""
    table = pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
    return table.replace_schema_metadata(None) if schema is None else table


def write_parquet(
    frame: pd.DataFrame | pa.Table, path: str | Path, schema: pa.Schema | None = None
) -> None:
    table = frame if isinstance(frame, pa.Table) else table_from_frame(frame, schema)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def read_parquet(path: str | Path) -> pd.DataFrame:
    return pq.read_table(path).to_pandas()


def write_json(data: Any, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(
            json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )


def write_text(text: str, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def stable_hash(*parts: str, length: int = 16) -> str:
    """A short content hash used for ids and deterministic ordering."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x1f")
    return digest.hexdigest()[:length]
