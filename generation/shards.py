"""Resumable output: a generator's work cut into shards, each written once, with a manifest.

A run writes ``shard-NNNNN.parquet`` files and a ``manifest.json`` that records the run's
fingerprint (settings and inputs) and each finished shard's row count and hash; both appear
with the first finished shard, so a run that fails before (a missing model) writes nothing. A killed
run, started again with the same fingerprint, skips the shards that are complete and
intact; shard seeds depend only on the shard's number, so the result equals an
uninterrupted run's. A different fingerprint starts afresh.

Starting afresh deletes only what a store wrote: the folder must hold a manifest of ours
(or nothing), and only the manifest, the shards and our temporary files are removed; a
folder holding anything else is refused, never emptied.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rucola.errors import RucolaError
from rucola.io import atomic_path, file_sha256, stable_hash
from rucola.ownership import LEDGER, TEMPORARY, remove

MANIFEST = "manifest.json"
# What a store writes: its manifest, its shards, atomic_path's temporary files of both, and
# the folder's ledger of what rucola wrote (``rucola.ownership``).
_OURS = re.compile(
    rf"(manifest\.json|shard-\d{{5}}\.parquet|{re.escape(LEDGER)}"
    rf"|\.(manifest\.json|shard-\d{{5}}\.parquet|{re.escape(LEDGER)})\..+\.{TEMPORARY})"
)


def shard_seed(seed: int, index: int) -> int:
    """The seed of shard ``index``: its number and the generator's seed, nothing else, so
    a resumed run (and the Ray engine) draws what an uninterrupted local run draws."""
    return int(stable_hash(str(seed), str(index), length=8), 16)


def _is_manifest(data: Any) -> bool:
    return isinstance(data, dict) and {"fingerprint", "n_shards", "shards"} <= set(data)


class ShardStore:
    """The shard folder of one generator run."""

    def __init__(self, folder: str | Path, fingerprint: str, n_shards: int) -> None:
        self.folder = Path(folder)
        self.fingerprint = fingerprint
        self.n_shards = n_shards
        self.manifest_path = self.folder / MANIFEST
        self.on_disk = False  # whether this run's manifest is written yet
        self.manifest = self._load()

    def _read_manifest(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None
        return data if _is_manifest(data) else None

    def _load(self) -> dict[str, Any]:
        manifest = self._read_manifest()
        if manifest is not None and manifest.get("fingerprint") == self.fingerprint:
            self.on_disk = True
            return manifest
        self.remove()
        # Written with the first shard (:meth:`write`), not here: a run that fails before
        # it has one (a model folder that is missing, a model that does not load) leaves
        # no folder and no manifest behind.
        return {"fingerprint": self.fingerprint, "n_shards": self.n_shards, "shards": {}}

    def _claim(self, path: Path) -> bool:
        """The store's own proof of a file in its folder (``rucola.ownership``): a shard
        name beside a manifest of ours, or that manifest. A torn shard, written but not
        recorded, is still the store's to redo."""
        if path.parent != self.folder or not _OURS.fullmatch(path.name):
            return False
        return self._read_manifest() is not None

    def _write_manifest(self, manifest: dict[str, Any]) -> None:
        with atomic_path(self.manifest_path, claim=self._claim) as tmp:
            tmp.write_text(
                json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                encoding="utf-8",
            )

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
        """Write one shard, then record it: a shard in the manifest is always complete.
        The first shard of a fresh run writes the (empty) manifest before it, so the shard
        file is the store's own from the start (:meth:`_claim`)."""
        if not self.on_disk:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._write_manifest(self.manifest)
            self.on_disk = True
        path = self.path(index)
        with atomic_path(path, claim=self._claim) as tmp:
            pq.write_table(table, tmp, compression="zstd")
        self.manifest["shards"][str(index)] = {
            "rows": table.num_rows,
            "sha256": file_sha256(path),
            "stats": stats,
        }
        self._write_manifest(self.manifest)

    def read_all(self) -> pa.Table:
        tables = [pq.read_table(self.path(i)) for i in range(self.n_shards)]
        return pa.concat_tables(tables)

    def stats(self) -> list[dict[str, Any]]:
        return [self.manifest["shards"][str(i)]["stats"] for i in range(self.n_shards)]

    def remove(self) -> None:
        """Delete the store's own files, then the folder if that left it empty.

        Refuses a folder that exists without a manifest of ours (unless empty), and leaves
        any file that a store does not write where it is."""
        if not self.folder.exists():
            return
        if not self.folder.is_dir() or self.folder.is_symlink():
            raise RucolaError("expected a shard folder written by rucola", self.folder)
        entries = sorted(self.folder.iterdir())
        if entries and self._read_manifest() is None:
            raise RucolaError(
                "this folder holds files but no shard manifest of rucola's; refusing to delete it",
                self.folder,
                hint="remove it yourself, or set generate.work_dir to another folder",
            )
        foreign = [e for e in entries if not (e.is_file() and _OURS.fullmatch(e.name))]
        if foreign:
            raise RucolaError(
                f"the shard folder holds {foreign[0].name!r}, which rucola did not write; "
                "refusing to delete it",
                self.folder,
            )
        for entry in entries:
            if entry not in (self.manifest_path, self.folder / LEDGER):
                remove(entry, claim=self._claim)  # through the one rule of what rucola wrote
        # last: the proof goes when all else is gone
        remove(self.manifest_path, claim=self._claim)
        (self.folder / LEDGER).unlink(missing_ok=True)
        self.folder.rmdir()
