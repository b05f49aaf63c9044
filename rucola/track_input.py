"""One input's fingerprint: what a tracker stage (``track_*@INPUT``) runs.

A tracker stage runs once per input params name, so its command's start-up is paid once per
input on a cold build (issue 44: the bookkeeping stages were a quarter of it). So it reads
no params: ``track_index`` (``rucola.track``) reads them once, through the schema, and
writes each family's ``_params.json`` (what the family names, and for a generation source
whether it is read as a pair); a tracker depends on its family's index, finds its input
there, fingerprints it and writes ``reports/inputs/<family>/<name>.json``. This module
imports no settings (``tests/rucola/test_track.py`` holds it to that), so a tracker loads
neither pydantic nor the schema.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from rucola.errors import RucolaError
from rucola.io import file_sha256, write_json
from rucola.names import child, inside_repository
from rucola.salt import is_salted, keyed, read_salt, salted_ancestor

ROOT = Path("reports/inputs")
INDEX = "_params.json"
GENERATORS = "generate.generators"
SOURCES = "generate.sources"
# The params keys whose values name inputs, one tracker stage per input (``rucola.track``
# says how each is read from the settings; ``generate.generators`` is a second level).
FAMILY_NAMES = (
    "extract.sources",
    SOURCES,
    "filter.frequency.path",
    "split.pin",
    "extract.errata",
    "annotate.controls",
    "annotate.stage1",
    "annotate.stage2",
    "annotate.votes",
    "audit.likely_label_error.model",
)
# The families whose inputs are always private (errata may name hidden test rows and say
# what they hide): only a salted folder is taken (``rucola-salt``).
PRIVATE = {"extract.errata"}


def check_not_inside_salted(path: Path) -> None:
    """A path below a salted folder is no input: DVC would record its own, unsalted hash."""
    inside = salted_ancestor(path)
    if inside is not None:
        raise RucolaError(
            f"lies inside the salted folder {inside.as_posix()}",
            path,
            hint=f"name the folder {inside.as_posix()} itself, so that DVC records its "
            "salted hash and not this path's own",
        )


def fingerprint(path: str | Path) -> dict[str, Any]:
    """Content of a file, or of a folder's files (relative names, sha256, size; sorted,
    hidden files and folders skipped). A salted folder (``rucola-salt``) is private: its
    fingerprint is one HMAC under its salt, no file's hash or size; a path inside one is
    refused, since DVC would record that path's own hash, unsalted."""
    path = Path(path)
    check_not_inside_salted(path)
    content = _plain_fingerprint(path)
    if path.is_dir() and is_salted(path):
        text = json.dumps(content, sort_keys=True)
        return {"kind": "salted_folder", "keyed": keyed(read_salt(path), text)}
    return content


def _plain_fingerprint(path: Path) -> dict[str, Any]:
    if path.is_file():
        return {"kind": "file", "sha256": file_sha256(path), "size": path.stat().st_size}
    if not path.is_dir():
        raise RucolaError("no such file or folder", path)
    files = []
    for folder, dirs, names in os.walk(path, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(n for n in names if not n.startswith(".")):
            file = Path(folder) / name
            if file.is_file():
                files.append(_file_entry(file, file.relative_to(path).as_posix()))
    files.sort(key=lambda f: f["name"])
    return {"kind": "folder", **_combined(files)}


PAIR_SUFFIXES = ((".rus", ".eng"), (".ru", ".en"))


def _pair_files(path: str) -> list[Path]:
    """Both sides of a line-aligned pair source (``X.rus`` + ``X.eng``, ``X.ru`` + ``X.en``)."""
    pure = Path(path)
    suffixes = {s for pair in PAIR_SUFFIXES for s in pair}
    stem = pure.with_suffix("") if pure.suffix.lower() in suffixes else pure
    for pair in PAIR_SUFFIXES:
        files = [Path(f"{stem}{suffix}") for suffix in pair]
        if any(f.is_file() for f in files):
            return [f for f in files if f.is_file()]
    return [pure]


def _files_fingerprint(files: list[Path]) -> dict[str, Any]:
    """Several files read as one input (both sides of a pair)."""
    entries = []
    for file in files:
        check_not_inside_salted(file)
        if not file.is_file():
            raise RucolaError("no such file", file)
        entries.append(_file_entry(file, file.as_posix()))
    return {"kind": "files", **_combined(entries)}


def _file_entry(file: Path, name: str) -> dict[str, Any]:
    return {"name": name, "sha256": file_sha256(file), "size": file.stat().st_size}


def _combined(files: list[dict[str, Any]]) -> dict[str, Any]:
    digest = hashlib.sha256()
    for f in files:
        digest.update(f"{f['name']}\0{f['sha256']}\0{f['size']}\n".encode())
    return {"sha256": digest.hexdigest(), "size": sum(f["size"] for f in files), "files": files}


def fingerprint_file(family: str, name: str) -> Path:
    """Where a fingerprint goes: named by the input's path (already checked to lie inside
    the repository), or by its id for generators and generation sources, which must be a
    plain name (``rucola.names``)."""
    if family in (SOURCES, GENERATORS):
        return child(ROOT / family, name, ".json", f"{family}[{name!r}]")
    return ROOT / family / f"{name}.json"


def index_entries(family: str) -> list[dict[str, Any]]:
    """The inputs ``family`` names, as ``track_index`` recorded them: one mapping each,
    with its ``name`` and ``path`` (and ``pairs`` for a generation source)."""
    file = ROOT / family / INDEX
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RucolaError(
            f"no index of the inputs {family} names",
            file,
            hint="run `rucola track-index` first (`dvc repro` runs it before the trackers)",
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RucolaError(f"cannot read the index of {family}: {exc}", file) from None
    entries = data.get("inputs") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("family") != family
        or not isinstance(entries, list)
        or not all(
            isinstance(e, dict)
            and isinstance(e.get("name"), str)
            and isinstance(e.get("path"), str)
            for e in entries
        )
    ):
        raise RucolaError(
            f"is no index of {family} as `rucola track-index` writes it",
            file,
            hint="run `rucola track-index` to write it again",
        )
    return entries


def track(family: str, path: str | Path, name: str | None = None) -> Path:
    """Write the fingerprint of one input ``family`` names (``track_index`` prunes the
    family's stale ones); the input must be in the family's index."""
    if family not in FAMILY_NAMES:
        raise RucolaError(
            f"unknown input family {family!r}", hint=f"one of {', '.join(FAMILY_NAMES)}"
        )
    normal = inside_repository(path, family)
    wanted = name if name is not None else normal
    target = fingerprint_file(family, wanted)  # a generation source's id: a plain name, checked
    if wanted == INDEX[: -len(".json")]:
        raise RucolaError(f"{wanted!r} is reserved for the index of {family}", normal)
    entries = index_entries(family)
    entry = next((e for e in entries if (e["name"], e["path"]) == (wanted, normal)), None)
    if entry is None:
        shown = ", ".join(
            e["path"] if e["name"] == e["path"] else f"{e['name']}: {e['path']}" for e in entries
        )
        raise RucolaError(
            f"{family} in params does not name {wanted if name else normal!r}",
            normal,
            hint=f"it names {shown or 'nothing'}; if params changed, run `rucola track-index`",
        )
    check_not_inside_salted(Path(normal))
    if family in PRIVATE and not is_salted(normal):
        raise RucolaError(
            f"{family} names private files (they may say what hidden test rows are), and "
            "this is no salted folder: its hash in dvc.lock could be tested against a guess",
            normal,
            hint="keep them in a folder, run `rucola salt FOLDER`, `dvc add FOLDER` and "
            f"name the folder in {family}",
        )
    # a pair's reader reads both sides
    pairs = entry.get("pairs") is True
    content = _files_fingerprint(_pair_files(normal)) if pairs else fingerprint(normal)
    write_json({"family": family, "name": wanted, "path": normal, **content}, target)
    return target


def main(argv: list[str]) -> None:
    """``rucola track FAMILY PATH [--as NAME]`` as a tracker stage runs it: started by
    ``rucola.__main__`` before the command line framework loads (Typer, which checks each
    argument with pydantic, and Rich took 0.35 s of a tracker's 0.43; DVC runs one per
    input). The same arguments as the ``track`` command of ``rucola.cli``, which ``rucola
    track --help`` shows and a test holds this to; a usage error exits 2, a failure prints
    ``rucola.failure``'s line and exits 1, as every command does."""
    import argparse

    parser = argparse.ArgumentParser(prog="rucola track", add_help=False)
    parser.add_argument("family", metavar="FAMILY")
    parser.add_argument("path", metavar="PATH")
    parser.add_argument("--as", dest="name", metavar="NAME")
    args = parser.parse_args(argv)
    from rucola.failure import USER_FAILURES, failure_text

    try:
        from rucola.tool_record import check_installed_code

        check_installed_code()
        target = track(args.family, args.path, args.name)
    except USER_FAILURES as exc:
        text = failure_text(exc)
        if text is None:
            raise
        sys.stderr.write("".join(f"error: {line}\n" for line in text.split("\n")))
        raise SystemExit(1) from None
    print(f"track: {args.path} -> {target}")
