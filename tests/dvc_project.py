"""A copy of this project's pipeline in another folder, for tests and benchmarks that run
``dvc repro`` in a real DVC repository of their own (the ``rucola`` code they run is the
installed one; the copied code is what DVC hashes as stage dependencies)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPY = [
    "dvc.yaml",
    ".dvcignore",
    "pyproject.toml",  # the code fingerprints read its package-dir mapping
    "params.yaml",
    "configs",
    "data/sample",
    "reports/inputs",
    "reports/code",
    "reports/generate/README.md",  # merge_candidates depends on the folder, generators or not
    # and every folder pyproject's package-dir maps into rucola (see copy_project)
    ".dvc/config",
    ".dvc/.gitignore",
    ".gitignore",
]


def copy_project(target: Path, root: Path = ROOT) -> Path:
    """Copy what ``dvc repro`` needs from ``root`` (this project, or a checkout of another
    commit of it) into ``target`` (created); returns ``target``."""
    from rucola.import_graph import package_dirs

    folders = sorted({p.relative_to(root).as_posix() for p in package_dirs(root).values()})
    for name in dict.fromkeys([*COPY, *folders]):  # data/sample is both
        source, copy = root / name, target / name
        if not source.exists():
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy)
    return target


def installed_copy(target: Path, root: Path = ROOT) -> Path:
    """The package laid out as a wheel installs it (``target/rucola/corpus/...``, no
    ``pyproject.toml``), without building one: each folder pyproject maps, copied to its
    place. On ``PYTHONPATH``, an editable install of the package as installed."""
    from rucola.import_graph import package_dirs

    for package, folder in package_dirs(root).items():
        place = target.joinpath(*package.split("."))
        shutil.copytree(folder, place, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def build_wheel(tmp_path: Path, root: Path = ROOT) -> Path:
    """A wheel built from a copy of the sources (pyproject, README and every folder its
    package-dir maps), as a user's ``pip wheel`` builds it; its path."""
    from rucola.import_graph import package_dirs

    project = tmp_path / "project"
    project.mkdir()
    folders = {p.relative_to(root).as_posix() for p in package_dirs(root).values()}
    for name in ["pyproject.toml", "README.md", *sorted(folders)]:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, project / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, project / name)
    pip = ["-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, *pip, str(project), "-w", str(dist)],
        check=True,
        cwd=tmp_path,
        capture_output=True,
    )
    (wheel,) = dist.glob("rucola-*.whl")
    return wheel


def run(*args: str, cwd: Path, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    """A command in ``cwd`` with this interpreter's venv first on PATH (its ``dvc`` and
    ``rucola``); ``columns`` sets the terminal width DVC's tables are drawn for."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)


def checked(*args: str, cwd: Path, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    """:func:`run`, asserting exit 0 (the failure shows the command and its output)."""
    result = run(*args, cwd=cwd, columns=columns)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result


def sh(*args: str, cwd: Path) -> str:
    """:func:`checked`'s stdout and stderr together (DVC logs its stages on either)."""
    result = checked(*args, cwd=cwd)
    return result.stdout + result.stderr


def git(*args: str, cwd: Path) -> str:
    """git with a fixed author, so commits work on a machine without a git identity."""
    return checked("git", "-c", "user.email=t@t", "-c", "user.name=t", *args, cwd=cwd).stdout


def ran(output: str) -> list[str]:
    """The stages a ``dvc repro`` or ``dvc exp run`` output says it ran, in order."""
    return [line.split("'")[1] for line in output.splitlines() if line.startswith("Running stage")]


def copy_of_built(built: Path, target: Path) -> Path:
    """A copy of a built repository (``conftest.built_sample``: git, DVC cache, outputs)
    at ``target``, for a module that changes what it builds on."""
    return Path(shutil.copytree(built, target, symlinks=True))


def restore(root: Path) -> None:
    """``root`` back at its last commit without building anything, as a user undoes an
    edit: git's files (``git reset --hard``, untracked files removed), then every output
    ``dvc.lock`` records from the DVC cache (``dvc checkout``), and ``dvc status`` clean.
    For a module whose next test builds on the committed state: rebuilding it would run
    every stage the edit touched again, and what DVC restores are the bytes those runs
    wrote."""
    git("reset", "-q", "--hard", cwd=root)
    git("clean", "-fdq", cwd=root)
    sh("dvc", "checkout", "-q", cwd=root)
    status = sh("dvc", "status", cwd=root)
    assert "up to date" in status, status
