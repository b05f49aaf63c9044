"""Atomic, deterministic writers shared by every stage.

Every output goes to a temporary file in the target folder and is renamed into place, so a
failing stage never leaves a partial file; parquet and JSON are written the same way each
time (no index, sorted keys) so DVC sees byte-identical outputs for identical inputs.
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


@contextmanager
def atomic_dir(path: str | Path) -> Iterator[Path]:
    """Yield a temporary folder next to ``path``; swap it in for ``path`` on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield tmp
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
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
