"""rucola.gitignore: a private input folder is out of git before DVC tracks it, with the
very entry ``dvc add`` writes, so DVC still sees the folder's ``.dvc`` file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rucola.gitignore import ignore_in_git


def repository(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def ignored(root: Path, path: str) -> bool:
    done = subprocess.run(["git", "check-ignore", "-q", path], cwd=root)
    return done.returncode == 0


def test_the_folder_is_ignored_by_its_own_entry_and_nothing_beside_it(tmp_path):
    root = repository(tmp_path)
    folder = root / "data/raw/errata"
    folder.mkdir(parents=True)
    (folder / "v1.csv").write_text("split,domain,id\n")
    gitignore = ignore_in_git(folder)
    assert gitignore == root / "data/raw/.gitignore"
    assert gitignore.read_text() == "/errata\n"
    assert ignored(root, "data/raw/errata/v1.csv")
    assert not ignored(root, "data/raw/errata.dvc") and not ignored(root, "data/raw/sheets")


def test_an_existing_entry_is_kept_once_and_other_lines_stay(tmp_path):
    root = repository(tmp_path)
    (root / "data/raw").mkdir(parents=True)
    (root / "data/raw/.gitignore").write_text("/rucola_v1")  # no final newline, as people write
    ignore_in_git(root / "data/raw/errata")
    ignore_in_git(root / "data/raw/errata")
    assert (root / "data/raw/.gitignore").read_text() == "/rucola_v1\n/errata\n"


def test_outside_a_work_tree_or_at_its_root_nothing_is_written(tmp_path):
    assert ignore_in_git(tmp_path / "errata") is None
    assert not (tmp_path / ".gitignore").exists()
    root = repository(tmp_path / "repo")
    assert ignore_in_git(root) is None


@pytest.mark.slow
def test_dvc_add_writes_no_second_entry(tmp_path):
    root = repository(tmp_path)
    subprocess.run(["dvc", "init", "-q"], cwd=root, check=True)
    folder = root / "data/raw/errata"
    folder.mkdir(parents=True)
    (folder / "v1.csv").write_text("x\n")
    ignore_in_git(folder)
    subprocess.run(["dvc", "add", "-q", "data/raw/errata"], cwd=root, check=True)
    assert (root / "data/raw/.gitignore").read_text() == "/errata\n"
