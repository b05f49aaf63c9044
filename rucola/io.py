"""Atomic, deterministic writers shared by every stage.

Every output goes to a temporary file in the target folder and is renamed into place, so a
failing stage never leaves a partial file; parquet and JSON are written the same way each
time (no index, sorted keys) so DVC sees byte-identical outputs for identical inputs.

Every file lands through ``rucola.ownership.commit``, which replaces only what rucola
wrote and records what it wrote. A folder output (``atomic_dir``) carries a manifest,
``.rucola-output.json``, listing the files it was written with and their hashes; a folder
is replaced only when that manifest proves it ours and it holds nothing else, so a
mistyped ``release.out: .`` cannot delete the repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rucola.errors import RucolaError
from rucola.ownership import (  # noqa: F401  (file_sha256, listed_files, OWNER_FILE: re-exported)
    OWNER_FILE,
    Claim,
    check_may_replace,
    commit,
    file_sha256,
    folder_record,
    listed_files,
    temporary_file,
    temporary_folder,
)

if TYPE_CHECKING:  # pandas and pyarrow load in the functions that write tables: a command
    # that writes JSON only (`rucola track`, a DVC stage per input) starts without them
    import pandas as pd
    import pyarrow as pa

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextmanager
def atomic_path(path: str | Path, claim: Claim | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` on success, only if
    rucola may replace what is there (``rucola.ownership.commit``, asked before any work
    too, so a refusal wastes nothing; ``claim`` is a store's own proof of its files)."""
    target = Path(path)
    check_may_replace(target, claim)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = temporary_file(target)
    try:
        yield tmp_path
        # mkstemp creates 0600; give the file the permissions a plain open() would.
        os.chmod(tmp_path, 0o666 & ~_UMASK)
        commit(tmp_path, target, claim)
    except OSError as exc:  # a write error (disk full) names no file: the CLI names this one
        exc.filename = str(target) if exc.filename is None else exc.filename
        raise
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def check_replaceable(target: Path) -> None:
    """Refuse to replace the folder output ``target`` unless it is absent, or a folder
    rucola wrote (``rucola.ownership.check_may_replace``): a file there, even one rucola
    wrote, is not replaced by a folder."""
    check_may_replace(target)
    if target.exists() and not target.is_dir():
        raise RucolaError("exists and is not a folder; refusing to replace it", target)


def plain_folder_mode(folder: Path) -> None:
    """Give a folder made by ``mkdtemp`` (0700) the permissions a plain mkdir gives; the
    caller may narrow them (the private folder of the gold stays 0700)."""
    os.chmod(folder, 0o777 & ~_UMASK)


def swap_in_dir(staged: Path, target: Path) -> None:
    """Seal ``staged`` with its manifest (files and hashes) and put it in place of
    ``target``: the old folder is checked again (``check_replaceable``) and moved aside
    first, so ``target`` is never missing nor half-written."""
    write_json(folder_record(staged), staged / OWNER_FILE)
    check_replaceable(target)
    if not target.exists():
        os.replace(staged, target)
        return
    old = temporary_folder(target, old=True)
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
    tmp = temporary_folder(target)
    plain_folder_mode(tmp)
    try:
        yield tmp
        swap_in_dir(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def table_from_frame(frame: pd.DataFrame, schema: pa.Schema | None = None) -> pa.Table:
    """Convert without the pandas index or pandas metadata, which would vary between runs."""
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
    return table.replace_schema_metadata(None) if schema is None else table


def write_parquet(
    frame: pd.DataFrame | pa.Table, path: str | Path, schema: pa.Schema | None = None
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = frame if isinstance(frame, pa.Table) else table_from_frame(frame, schema)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def read_parquet(path: str | Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pandas()


def write_json(data: Any, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(
            json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )


def write_text(text: str, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def stable_hash(*parts: str, length: int = 16) -> str:
    """A short content hash used for ids and deterministic ordering."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x1f")
    return digest.hexdigest()[:length]
