"""The publish manifest: the one list of what the release makes public.

``rucola release build`` writes ``release_manifest.json`` into the public folder, last, from
the files it has just written: for each public file its path in the Hub repository, size,
SHA-256, and (for data files) config, split, rows and columns. The CSV layout is public too:
its files are listed under ``rucola_csv/``. ``rucola release publish`` uploads exactly these
files, after checking each one's size and hash, and refuses any other file found in the
public folder or the CSV folder (a worker table, a copy of the gold), naming it: what a
build did not write is never published, whoever put it there. The manifest itself and the
folders' ownership records (``rucola.ownership``) are the folders' own bookkeeping.

The card is one of the files the manifest holds to its bytes, so a card corrected by hand
is refused like any other edited file: what it says comes from params (``corpus``: the
corpus's identity), and a build with corrected params writes it, and the manifest, again.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from rucola.corpus.sources.rucola_csv import PUBLISHED_FILES
from rucola.errors import RucolaError
from rucola.io import file_sha256
from rucola.ownership import BOOKKEEPING as OWNERSHIP_FILES

MANIFEST_FILE = "release_manifest.json"
CARD_FILE = "README.md"  # the dataset card, written from params: never edited by hand
CARD_HINT = (
    "the card is written from params (corpus.name, pretty_name, description, "
    "domain_descriptions, license, citations ...): change them and run 'rucola release "
    "build' again instead of editing it"
)
COMPAT_PREFIX = "rucola_csv/"  # where the CSV layout goes in the Hub repository
# the manifest, and the ownership records (``.rucola-output.json``, ``.rucola-written``)
BOOKKEEPING = {MANIFEST_FILE, *OWNERSHIP_FILES}
FORMAT = 1


@dataclass(frozen=True)
class ManifestEntry:
    """One public file: where it goes, its bytes' size and hash, and what it carries."""

    path: str  # in the Hub repository, POSIX
    size: int
    sha256: str
    config: str | None = None
    split: str | None = None
    rows: int | None = None
    columns: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "size": self.size, "sha256": self.sha256}
        if self.config is not None:
            out.update(config=self.config, split=self.split)
        if self.rows is not None:
            out.update(rows=self.rows, columns=list(self.columns or ()))
        return out


def _describe(path: Path, in_repo: str) -> ManifestEntry:
    """What the manifest records of one written file (rows and columns of data files)."""
    size, digest = path.stat().st_size, file_sha256(path)
    if path.suffix == ".parquet":
        meta = pq.read_metadata(path)
        parts = in_repo.split("/")
        config = parts[-2] if len(parts) >= 2 else None
        return ManifestEntry(
            in_repo, size, digest, config, path.stem, meta.num_rows, tuple(meta.schema.names)
        )
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader, [])
            rows = sum(1 for _ in reader)
        split = PUBLISHED_FILES.get(path.name, ("test", None))[0]
        return ManifestEntry(in_repo, size, digest, "rucola_csv", split, rows, tuple(header))
    return ManifestEntry(in_repo, size, digest)


def _files(folder: Path) -> list[Path]:
    """Every file of a folder but its bookkeeping, in path order."""
    return [
        p
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).as_posix() not in BOOKKEEPING
    ]


def write_manifest(public_dir: Path, compat_dir: Path | None) -> list[ManifestEntry]:
    """List every file of the (staged) public folder and CSV folder in ``MANIFEST_FILE``;
    called once both are complete, so nothing written after it is public."""
    entries = [_describe(p, p.relative_to(public_dir).as_posix()) for p in _files(public_dir)]
    if compat_dir is not None:
        entries += [
            _describe(p, COMPAT_PREFIX + p.relative_to(compat_dir).as_posix())
            for p in _files(compat_dir)
        ]
    (public_dir / MANIFEST_FILE).write_bytes(render(entries))
    return entries


def render(entries: list[ManifestEntry]) -> bytes:
    """The manifest's bytes: the same entries give the same bytes."""
    body = {"format": FORMAT, "files": [e.to_json() for e in entries]}
    return (json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()


def read_manifest(public_dir: Path) -> list[ManifestEntry]:
    """The build's manifest; an error naming it when it is missing or not one."""
    path = public_dir / MANIFEST_FILE
    if not path.is_file():
        raise RucolaError(
            "no publish manifest: the folder was not built by 'rucola release build'",
            path,
            hint="run 'rucola release build' (or 'dvc repro') again",
        )
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        entries = [
            ManifestEntry(
                str(e["path"]),
                int(e["size"]),
                str(e["sha256"]),
                e.get("config"),
                e.get("split"),
                e.get("rows"),
                tuple(e["columns"]) if e.get("columns") is not None else None,
            )
            for e in body["files"]
        ]
    except (UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise RucolaError(f"not a publish manifest ({exc})", path) from None
    return entries


def local_path(entry: ManifestEntry, public_dir: Path, compat_dir: Path | None) -> Path:
    """Where a listed file lies: in the CSV folder for ``rucola_csv/``, else the public one."""
    if entry.path.startswith(COMPAT_PREFIX):
        if compat_dir is None:
            raise RucolaError(
                f"the manifest lists {entry.path} but no CSV folder is configured",
                public_dir / MANIFEST_FILE,
                hint="set release.compat as it was at build time",
            )
        return compat_dir / entry.path[len(COMPAT_PREFIX) :]
    return public_dir / entry.path


def verified_files(public_dir: Path, compat_dir: Path | None) -> list[tuple[Path, ManifestEntry]]:
    """The manifest's files, each checked against its size and SHA-256, after refusing any
    file in either folder that the manifest does not list (named in the error)."""
    if not public_dir.is_dir():
        raise RucolaError("release folder not found; run 'rucola release build'", public_dir)
    entries = read_manifest(public_dir)
    listed = {local_path(e, public_dir, compat_dir).resolve() for e in entries}
    folders = [public_dir]
    if compat_dir is not None and compat_dir.is_dir():
        folders.append(compat_dir)
    for folder in folders:
        for path in _files(folder):
            if path.resolve() not in listed:
                raise RucolaError(
                    "this file is not in the build's publish manifest; nothing was uploaded",
                    path,
                    hint="remove it: only what 'rucola release build' wrote is published",
                )
    out = []
    rebuild = "run 'rucola release build' again"
    for entry in entries:
        path = local_path(entry, public_dir, compat_dir)
        if not path.is_file():
            raise RucolaError("a file of the publish manifest is missing", path, hint=rebuild)
        if path.stat().st_size != entry.size or file_sha256(path) != entry.sha256:
            raise RucolaError(
                "this file differs from the publish manifest (size or SHA-256)",
                path,
                hint=CARD_HINT if entry.path == CARD_FILE else rebuild,
            )
        out.append((path, entry))
    return out


def with_file(entries: list[ManifestEntry], path: str, content: bytes) -> list[ManifestEntry]:
    """``entries`` with ``path`` (a file uploaded from memory, the changelog) added or
    replaced: the manifest that is uploaded lists everything uploaded."""
    added = ManifestEntry(path, len(content), hashlib.sha256(content).hexdigest())
    return sorted([e for e in entries if e.path != path] + [added], key=lambda e: e.path)
