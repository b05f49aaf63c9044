"""What git tracks of a DVC project, and what its dvc.yaml declares public or private: the
helpers of the guarantee that every git-tracked file is public (tests/guarantees/
test_guard_tracked_files.py and test_guard_hidden_tracked.py)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Output:
    path: str  # as dvc.yaml names it after interpolation, relative to the project
    stage: str
    access: str | None  # meta: {access: public|private}
    cache: bool


def declared_outputs(root: Path) -> list[Output]:
    """Every output of every stage instance of dvc.yaml, with its declared access, read by
    DVC itself (params interpolated, foreach expanded); not the folders ``dvc add`` tracks
    (a ``.dvc`` file's stage has no name: they are inputs)."""
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        return [
            Output(
                PurePosixPath(out.def_path).as_posix(),
                out.stage.name,
                (out.annot.meta or {}).get("access"),
                bool(out.use_cache),
            )
            for out in repo.index.outs
            if hasattr(out.stage, "name")
        ]


def tracked_files(root: Path) -> list[str]:
    """The files git tracks in ``root`` (its index)."""
    result = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True, text=True
    )
    return sorted(name for name in result.stdout.split("\0") if name)


def ignored(root: Path, paths: list[str]) -> set[str]:
    """Which of ``paths`` git ignores (``git check-ignore``; a folder's path as given)."""
    if not paths:
        return set()
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin", "-z"],
        cwd=root,
        input="\0".join(paths) + "\0",
        capture_output=True,
        text=True,
    )
    return {name for name in result.stdout.split("\0") if name}


def owner(outputs: list[Output], file: str) -> Output | None:
    """The output ``file`` is, or lies in."""
    for out in outputs:
        if file == out.path or file.startswith(out.path.rstrip("/") + "/"):
            return out
    return None


def problems(root: Path) -> list[str]:
    """Every breach of the rule, one line each: an output declared neither public nor
    private; a private output git tracks, does not ignore, or keeps out of the DVC cache;
    a git-tracked file inside a private output."""
    outputs = declared_outputs(root)
    found = []
    for out in outputs:
        if out.access not in ("public", "private"):
            found.append(f"{out.stage}: {out.path} is declared neither public nor private")
        elif out.access == "private" and not out.cache:
            found.append(f"{out.stage}: private {out.path} is kept out of the DVC cache (git)")
    private = [o.path for o in outputs if o.access == "private"]
    not_ignored = sorted(set(private) - ignored(root, private))
    found += [f"private output {path} is not ignored by git" for path in not_ignored]
    for file in tracked_files(root):
        out = owner(outputs, file)
        if out is not None and out.access != "public":
            found.append(f"git tracks {file}, of the {out.access} output {out.path}")
    return found


HASH_KEYS = {"md5", "size", "nfiles", "hash"}


def hash_free(entry: object) -> object:
    """A dvc.lock entry with every hash left out (md5, size, nfiles)."""
    if isinstance(entry, dict):
        return {k: hash_free(v) for k, v in entry.items() if k not in HASH_KEYS}
    if isinstance(entry, list):
        return [hash_free(v) for v in entry]
    return entry


def lock_differences(a: Path, b: Path, allowed: set[str]) -> list[str]:
    """Where the dvc.lock files of two builds differ other than in the hash of a private
    output (declared in ``a``'s dvc.yaml) or of a path in ``allowed`` (salted folders and
    their keyed fingerprints), each named by stage and path."""
    import yaml

    allowed = allowed | {o.path for o in declared_outputs(a) if o.access == "private"}
    first = yaml.safe_load((a / "dvc.lock").read_text(encoding="utf-8"))["stages"]
    second = yaml.safe_load((b / "dvc.lock").read_text(encoding="utf-8"))["stages"]
    if sorted(first) != sorted(second):
        return [f"stages {sorted(set(first) ^ set(second))}"]
    found = []
    for stage in sorted(first):
        if hash_free(first[stage]) != hash_free(second[stage]):
            found.append(f"{stage}: more than hashes")
            continue
        for kind in ("deps", "outs"):
            pairs = zip(first[stage].get(kind, []), second[stage].get(kind, []), strict=True)
            found += [
                f"{stage}: {kind} {one['path']}"
                for one, two in pairs
                if one != two and one["path"] not in allowed
            ]
    return found
