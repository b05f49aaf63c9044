"""Who may replace or delete a file: rucola touches only what it wrote.

Every writer in the project ends in :func:`commit` (``rucola.io.atomic_path``,
``rucola.stage.StageRun``) and every deletion in :func:`remove`, so a new output cannot
forget the rule. A path may be replaced or deleted when

* it is absent;
* it is a file whose SHA-256 equals the one rucola recorded when it wrote it: in an
  extended attribute of the file itself (``user.rucola.sha256``, set on the staged file
  before it moves into place, so the record and the bytes land together and a copy keeps
  it), or, where the file system has no user attributes, in the folder's ledger
  ``.rucola-written`` (``{name: sha256}``, git-ignored, DVC-ignored);
* it is a file whose MD5 equals the one the repository's ``dvc.lock`` records for that
  path as a stage output, so outputs restored by ``dvc checkout``/``dvc pull`` or committed
  with their lock count as written (DVC 3 hashes the bytes as they are);
* it is a persistent output (``persist: true``) of the stage DVC is running now, or a file
  inside such a folder output (``DVC_STAGE``, set by DVC for every stage command: the
  folder is the stage's as a whole, ``reports/code``): without ``persist`` DVC would have
  deleted it before the stage ran; ``persist`` only keeps a committed report in place
  through a failed run (git holds it too), it gives rucola no less right to replace it;
* it is a folder holding only the files its ``.rucola-output.json`` lists, each with the
  SHA-256 recorded there (the record travels inside the folder, through DVC and git);
* or the caller's ``claim`` proves it (a store whose own manifest names its files).

Anything else, a file a person put there or edited after rucola wrote it, is refused with
one line naming it. Staging and temporary names all end in ``.rucola-staged`` or
``.rucola-tmp`` (git- and DVC-ignored), so what a killed run leaves is never committed;
writes inside such a scratch path need no proof and leave no ledger.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rucola.errors import RucolaError

ATTRIBUTE = "user.rucola.sha256"
LEDGER = ".rucola-written"  # no suffix: no reader's "*.json" or "*.tsv" picks it up
OWNER_FILE = ".rucola-output.json"
STAGED = "rucola-staged"
TEMPORARY = "rucola-tmp"
BOOKKEEPING = frozenset({LEDGER, OWNER_FILE})

Claim = Callable[[Path], bool]

_UMASK = os.umask(0)
os.umask(_UMASK)


def _digest(path: str | Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def file_sha256(path: str | Path) -> str:
    return _digest(path, "sha256")


def _file_md5(path: Path) -> str:
    """What DVC 3 records of a file in ``dvc.lock``: the MD5 of its bytes as they are."""
    return _digest(path, "md5")


# -- scratch names ----------------------------------------------------------------------
def is_scratch_name(name: str) -> bool:
    """A staging or temporary name only rucola gives (``.NAME.rucola-staged``,
    ``.NAME.XXXXXXXX.rucola-tmp``)."""
    return name.startswith(".") and (name.endswith(f".{STAGED}") or name.endswith(f".{TEMPORARY}"))


def in_scratch(path: str | Path) -> bool:
    """Whether ``path`` is, or lies inside, a staging or temporary path of rucola's."""
    return any(is_scratch_name(part) for part in Path(path).parts)


def staged_name(target: Path) -> Path:
    """Where ``StageRun`` stages ``target`` until the run commits."""
    return target.parent / f".{target.name}.{STAGED}"


def temporary_file(target: Path, old: bool = False) -> Path:
    """A new empty temporary file beside ``target`` (``.NAME.[old.]XXXXXXXX.rucola-tmp``;
    ``old``: a copy of the file being replaced, which :func:`remove_stale_temporaries`
    leaves alone while a commit may still put it back)."""
    prefix = f".{target.name}.old." if old else f".{target.name}."
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=f".{TEMPORARY}", dir=target.parent)
    os.close(fd)
    return Path(tmp)


def temporary_folder(target: Path, old: bool = False) -> Path:
    """A new temporary folder beside ``target`` (``.NAME.[old.]XXXXXXXX.rucola-tmp``)."""
    prefix = f".{target.name}.old." if old else f".{target.name}."
    return Path(tempfile.mkdtemp(prefix=prefix, suffix=f".{TEMPORARY}", dir=target.parent))


# -- the ledger of a folder ---------------------------------------------------------------
def _read_ledger(folder: Path) -> dict[str, str]:
    try:
        data = json.loads((folder / LEDGER).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def _write_ledger(folder: Path, entries: dict[str, str]) -> None:
    ledger = folder / LEDGER
    if not entries:
        ledger.unlink(missing_ok=True)
        return
    tmp = temporary_file(ledger)
    try:
        tmp.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, ledger)
    finally:
        tmp.unlink(missing_ok=True)


def _set_attribute(path: Path, digest: str) -> bool:
    """Attach the record to the file itself; False where the file system cannot."""
    try:
        os.setxattr(path, ATTRIBUTE, digest.encode("ascii"), follow_symlinks=False)
    except (AttributeError, OSError):  # no os.setxattr (macOS), or ENOTSUP
        return False
    return True


def _attribute(path: Path) -> str | None:
    try:
        return os.getxattr(path, ATTRIBUTE, follow_symlinks=False).decode("ascii", "replace")
    except (AttributeError, OSError):
        return None


def record(target: Path, digest: str) -> None:
    """Note in the folder's ledger that rucola wrote ``target`` with this SHA-256 (where
    the file system keeps no attribute of the file itself)."""
    entries = _read_ledger(target.parent)
    entries[target.name] = digest
    _write_ledger(target.parent, entries)


def forget(target: Path) -> None:
    if not (target.parent / LEDGER).exists():
        return
    entries = _read_ledger(target.parent)
    if entries.pop(target.name, None) is not None:
        _write_ledger(target.parent, entries)


# -- dvc.lock -------------------------------------------------------------------------------
_LOCKS: dict[Path, tuple[tuple[int, int], dict[str, str]]] = {}


def _lock_outs(lock: Path) -> dict[str, str]:
    """``{path: md5}`` of every file output in ``lock`` (folder outputs left out: their
    ``.rucola-output.json`` travels inside them)."""
    stat = lock.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    cached = _LOCKS.get(lock)
    if cached is not None and cached[0] == key:
        return cached[1]
    import yaml

    outs: dict[str, str] = {}
    try:
        data = yaml.load(lock.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        data = None
    stages = data.get("stages") if isinstance(data, dict) else None
    for stage in (stages or {}).values():
        for out in (stage.get("outs") or []) if isinstance(stage, dict) else []:
            md5 = out.get("md5") if isinstance(out, dict) else None
            if (
                isinstance(md5, str)
                and not md5.endswith(".dir")
                and isinstance(out.get("path"), str)
            ):
                outs[Path(out["path"]).as_posix()] = md5
    _LOCKS[lock] = (key, outs)
    return outs


def _locked_md5(target: Path) -> str | None:
    """The MD5 the nearest ``dvc.lock`` above ``target`` records for it as an output."""
    resolved = target.parent.resolve() / target.name
    for folder in resolved.parents:
        lock = folder / "dvc.lock"
        if lock.is_file():
            return _lock_outs(lock).get(resolved.relative_to(folder).as_posix())
    return None


# -- the rule ------------------------------------------------------------------------------
def listed_files(folder: Path) -> list[str]:
    """Every file and link under ``folder`` but its bookkeeping, as sorted POSIX paths."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        base = Path(root)
        for name in [*names, *(d for d in dirs if (base / d).is_symlink())]:
            relative = (base / name).relative_to(folder).as_posix()
            if relative not in BOOKKEEPING:
                found.append(relative)
    return sorted(found)


def folder_record(folder: Path) -> dict[str, Any]:
    """What ``.rucola-output.json`` says of a folder rucola is about to seal: its files
    and their SHA-256, so an edited file is not taken for rucola's."""
    files = listed_files(folder)
    hashes = {f: file_sha256(folder / f) for f in files if (folder / f).is_file()}
    return {"files": files, "sha256": hashes, "written_by": "rucola"}


def check_folder(target: Path) -> None:
    """Refuse to replace a folder unless it is empty or holds only the files its
    ``.rucola-output.json`` lists, unchanged."""
    if not any(target.iterdir()):
        return
    files = listed_files(target)
    try:
        manifest = json.loads((target / OWNER_FILE).read_text(encoding="utf-8"))
        listed = set(manifest["files"])
        hashes = manifest.get("sha256") or {}
        if not isinstance(hashes, dict):
            raise TypeError
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        raise RucolaError(
            f"this folder was not written by rucola (no {OWNER_FILE}); refusing to replace it",
            target,
            hint="choose another output folder, or remove this one yourself",
        ) from None
    for name in files:
        if name not in listed:
            raise RucolaError(
                f"this folder holds {name!r}, which rucola did not write; refusing to replace it",
                target,
                hint="move that file elsewhere first",
            )
        recorded = hashes.get(name)
        if recorded is not None and file_sha256(target / name) != recorded:
            raise RucolaError(
                f"this folder holds {name!r}, changed since rucola wrote it; "
                "refusing to replace it",
                target,
                hint="move that file elsewhere first",
            )


# -- the stage DVC runs now -----------------------------------------------------------------

_PERSISTENT: dict[tuple[str, str], frozenset[Path]] = {}


def _running_stage_persistent_outputs() -> frozenset[Path]:
    """The persistent outputs of the stage DVC runs now (``DVC_STAGE``), resolved; empty
    outside ``dvc repro``. Read once per command, through DVC's own reading of dvc.yaml
    (foreach and ``${...}`` resolved as DVC resolves them)."""
    name = os.environ.get("DVC_STAGE")
    if not name:
        return frozenset()
    key = (name, os.getcwd())
    if key not in _PERSISTENT:
        from dvc.repo import Repo

        found: set[Path] = set()
        try:
            with Repo() as repo:
                for stage in repo.stage.collect(name):
                    found.update(Path(o.fs_path).resolve() for o in stage.outs if o.persist)
        except Exception:  # noqa: BLE001 (no readable stage: the other rules decide)
            found = set()
        _PERSISTENT[key] = frozenset(found)
    return _PERSISTENT[key]


def is_owned_file(target: Path, claim: Claim | None = None) -> bool:
    """Whether the existing file ``target`` is provably rucola's (see the module doc)."""
    recorded = {_attribute(target), _read_ledger(target.parent).get(target.name)} - {None}
    if recorded and file_sha256(target) in recorded:
        return True
    locked = _locked_md5(target)
    if locked is not None and _file_md5(target) == locked:
        return True
    if claim is not None and claim(target):
        return True
    resolved = target.resolve()
    return any(
        out == resolved or out in resolved.parents for out in _running_stage_persistent_outputs()
    )


def check_may_replace(
    target: str | Path, claim: Claim | None = None, action: str = "replace"
) -> None:
    """Raise unless rucola may replace (or delete) ``target``: one line naming it."""
    target = Path(target)
    if in_scratch(target) or (not target.exists() and not target.is_symlink()):
        return
    if target.is_symlink():
        raise RucolaError(
            f"is a link rucola did not write; refusing to {action} it",
            target,
            hint="move it away, or choose another output path",
        )
    if target.is_dir():
        if claim is not None and claim(target):
            return
        check_folder(target)
        return
    if not is_owned_file(target, claim):
        raise RucolaError(
            f"exists and was not written by rucola (or was changed since); refusing to {action} it",
            target,
            hint="move it away first, or choose another output path",
        )


def commit(staged: Path, target: Path, claim: Claim | None = None) -> None:
    """Move the finished file ``staged`` onto ``target`` if rucola may replace it, and
    record what it wrote. Inside a scratch path neither check nor record is needed: the
    whole scratch folder is sealed or discarded later."""
    if in_scratch(target):
        os.replace(staged, target)
        return
    check_may_replace(target, claim)
    digest = file_sha256(staged)
    attached = _set_attribute(staged, digest)
    os.replace(staged, target)
    if attached:
        forget(target)  # an older ledger entry must not outlive the file it described
    else:
        record(target, digest)
    if claim is None:  # a store (claim) has its own clean-up, and many files in one folder
        remove_stale_temporaries(target)


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporaries an earlier killed write of ``target`` left beside it
    (``.NAME.XXXXXXXX.rucola-tmp`` files); returns them."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[A-Za-z0-9_]{{8}}\.{TEMPORARY}")
    removed = []
    for name in sorted(os.listdir(target.parent)):
        entry = target.parent / name
        if pattern.fullmatch(name) and entry.is_file() and not entry.is_symlink():
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def remove(target: str | Path, claim: Claim | None = None) -> bool:
    """Delete the file ``target`` if rucola may (refusing otherwise); whether it existed."""
    target = Path(target)
    if not target.exists() and not target.is_symlink():
        return False
    check_may_replace(target, claim, action="delete")
    target.unlink()
    forget(target)
    return True


def remove_empty_folder(folder: str | Path) -> bool:
    """Remove ``folder`` if nothing but its ledger is left in it (the ledger then names
    only files that are gone); whether it was removed."""
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return False
    if set(os.listdir(folder)) - {LEDGER}:
        return False
    (folder / LEDGER).unlink(missing_ok=True)
    folder.rmdir()
    return True
