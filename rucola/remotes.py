"""Pulling a maintained corpus from its two DVC remotes, public and private.

Every cached output names its remote in ``dvc.yaml`` (``remote: public|private``, after
its declared access); what ``dvc add`` tracks (a maintainer's inputs, kept versions) goes
to the default remote, the private one (``.dvc/config``). A collaborator who may read the
public remote only gets, from a plain ``dvc pull``, DVC's own failure for every private
file; :func:`pull` takes what each reachable remote holds and says in one line what the
others would have given.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rucola.errors import RucolaError

SHOWN = 5  # outputs named in the line; the rest are counted


@dataclass
class PullResult:
    pulled: dict[str, list[str]] = field(default_factory=dict)  # remote -> outputs
    unreachable: dict[str, tuple[str, str, list[str]]] = field(default_factory=dict)


def outputs_by_remote(repo: Any) -> dict[str, list[str]]:
    """Every cached output of the repository (stages and ``.dvc`` files) under the name of
    the remote it goes to: its own ``remote``, else the default one. Inputs (``.dvc``
    files) come first: what a person added cannot be rebuilt, stage outputs can."""
    default = repo.config["core"].get("remote")
    found: dict[str, set[tuple[bool, str]]] = defaultdict(set)
    for out in repo.index.outs:
        if not out.use_cache:
            continue
        name = out.remote or default
        if not name:
            raise RucolaError(
                "names no remote and .dvc/config has no default one", Path(out.def_path)
            )
        path = Path(out.fs_path).relative_to(repo.root_dir).as_posix()
        found[name].add((not out.stage.is_data_source, path))
    return {name: [p for _, p in sorted(paths)] for name, paths in sorted(found.items())}


def reachable(repo: Any, name: str) -> tuple[bool, str]:
    """Whether remote ``name`` can be read: ``(ok, where)``; ``where`` is its url."""
    try:
        remote = repo.cloud.get_remote(name)
    except Exception as exc:  # noqa: BLE001 (DVC's config errors: one line, below)
        return False, f"{name} ({exc})"
    where = str(repo.config["remote"].get(name, {}).get("url", remote.path))
    try:
        return bool(remote.fs.exists(remote.path)), where
    except Exception:  # noqa: BLE001 (no credentials, no network: out of reach all the same)
        return False, where


def pull(root: str | Path = ".") -> PullResult:
    """``dvc pull`` of every output whose remote can be read; the others listed, per remote.
    A remote that is reachable but lacks an object is DVC's own error, in one line."""
    from dvc.exceptions import DvcException
    from dvc.repo import Repo

    result = PullResult()
    with Repo(str(root)) as repo:
        for name, paths in outputs_by_remote(repo).items():
            ok, where = reachable(repo, name)
            if not ok:
                result.unreachable[name] = (where, "out of reach", paths)
                continue
            try:
                repo.pull(targets=paths, remote=name)
            except DvcException as exc:
                text = " ".join(str(exc).split())
                raise RucolaError(
                    f"dvc pull from remote '{name}' ({where}) failed: {text}"
                ) from None
            result.pulled[name] = paths
    return result


def missing_line(result: PullResult) -> str | None:
    """One line naming each unreachable remote and the outputs it would have given."""
    if not result.unreachable:
        return None
    parts = []
    for name, (where, why, paths) in result.unreachable.items():
        shown = ", ".join(paths[:SHOWN]) + (
            f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
        )
        parts.append(
            f"remote '{name}' ({where}) is {why}: {len(paths)} outputs not pulled ({shown})"
        )
    names = ", ".join(result.unreachable)
    return "; ".join(parts) + (
        f"; ask for access to {names}, or set its url: dvc remote modify --local NAME url URL"
    )
