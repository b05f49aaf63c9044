"""Resumable output: a generator's work cut into shards, each written once, with a manifest.

A run writes ``shard-NNNNN.parquet`` files and a ``manifest.json`` that records the run's
fingerprint (settings and inputs) and each finished shard's row count and hash. A killed
run, started again with the same fingerprint, skips the shards that are complete and
intact; shard seeds depend only on the shard's number, so the result equals an
uninterrupted run's. A different fingerprint starts afresh.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rucola.io import atomic_path, file_sha256, write_json


class ShardStore:
    """The shard folder of one generator run."""

    def __init__(self, folder: str | Path, fingerprint: str, n_shards: int) -> None:
        self.folder = Path(folder)
        self.fingerprint = fingerprint
        self.n_shards = n_shards
        self.manifest_path = self.folder / "manifest.json"
        self.manifest = self._load()

    def _load(self) -> dict[str, Any]:
        if self.manifest_path.is_file():
            try:
                manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                manifest = {}
            if manifest.get("fingerprint") == self.fingerprint:
                return manifest
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        manifest = {"fingerprint": self.fingerprint, "n_shards": self.n_shards, "shards": {}}
        write_json(manifest, self.manifest_path)
        return manifest

    def path(self, index: int) -> Path:
        return self.folder / f"shard-{index:05d}.parquet"

    def is_done(self, index: int) -> bool:
        """Recorded and intact; a recorded shard whose file changed is forgotten."""
        entry = self.manifest["shards"].get(str(index))
        if not entry:
            return False
        path = self.path(index)
        if path.is_file() and file_sha256(path) == entry["sha256"]:
            return True
        del self.manifest["shards"][str(index)]
        return False

    @property
    def completed(self) -> int:
        """Shards recorded in the manifest (intact: checked at start or written since)."""
        return len(self.manifest["shards"])

    def write(self, index: int, table: pa.Table, stats: dict[str, Any]) -> None:
        """Write one shard, then record it: a shard in the manifest is always complete."""
        path = self.path(index)
        with atomic_path(path) as tmp:
            pq.write_table(table, tmp, compression="zstd")
        self.manifest["shards"][str(index)] = {
            "rows": table.num_rows,
            "sha256": file_sha256(path),
            "stats": stats,
        }
        write_json(self.manifest, self.manifest_path)

    def read_all(self) -> pa.Table:
        tables = [pq.read_table(self.path(i)) for i in range(self.n_shards)]
        return pa.concat_tables(tables)

    def stats(self) -> list[dict[str, Any]]:
        return [self.manifest["shards"][str(i)]["stats"] for i in range(self.n_shards)]

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
