"""rucola.gitignore: a private input folder is out of git before DVC tracks it, with the
very entry ``dvc add`` writes, so DVC still sees the folder's ``.dvc`` file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rucola.errors import RucolaError
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


def untracked(root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "status", "--porcelain", "-z", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return [e[3:] for e in done.stdout.split("\0") if e.startswith("??")]


# A name git's patterns read as syntax: the entry was written as it is, so git ignored
# another path (``err1``, ``errata``, every file of the folder) and not the folder.
SPECIAL_NAMES = {
    "brackets": ("err[1]", "/err\\[1\\]", "err1"),
    "trailing_space": ("errata ", "/errata\\ ", "errata"),
    "star": ("*", "/\\*", "errata.dvc"),
    "question_mark": ("err?", "/err\\?", "errx"),
    "leading_bang_and_hash": ("!#x", "/\\!\\#x", "x"),
    "backslash": ("a\\b", "/a\\\\b", "ab"),
}


@pytest.mark.parametrize("case", SPECIAL_NAMES, ids=list(SPECIAL_NAMES))
def test_a_name_git_reads_as_a_pattern_is_escaped_and_ignores_the_folder_only(tmp_path, case):
    name, entry, beside = SPECIAL_NAMES[case]
    root = repository(tmp_path)
    raw = root / "data/raw"
    (raw / name).mkdir(parents=True)
    (raw / name / "rucola-salt").write_bytes(b"s" * 40)
    (raw / beside).write_text("a sibling\n")
    (raw / f"{name}.dvc").write_text("outs: []\n")
    assert ignore_in_git(raw / name) == raw / ".gitignore"
    assert (raw / ".gitignore").read_text(encoding="utf-8") == f"{entry}\n"
    assert ignored(root, f"data/raw/{name}/rucola-salt")
    shown = set(untracked(root))
    assert f"data/raw/{name}/rucola-salt" not in shown
    assert {f"data/raw/{beside}", f"data/raw/{name}.dvc", "data/raw/.gitignore"} <= shown
    ignore_in_git(raw / name)  # once
    assert (raw / ".gitignore").read_text(encoding="utf-8") == f"{entry}\n"


def test_a_rule_that_covers_the_dvc_file_is_refused_and_nothing_is_written(tmp_path):
    """``/*`` (what ``rucola salt 'data/raw/*'`` used to write) hides every ``.dvc`` file
    beside the folder from DVC and from git."""
    root = repository(tmp_path)
    (root / "data/raw").mkdir(parents=True)
    (root / "data/raw/.gitignore").write_text("/*\n")
    with pytest.raises(RucolaError) as caught:
        ignore_in_git(root / "data/raw/errata")
    message = caught.value.format()
    assert "data/raw/.gitignore:1: /*" in message and "data/raw/errata.dvc" in message
    assert "\n" not in message
    assert (root / "data/raw/.gitignore").read_text() == "/*\n"


def test_a_wider_rule_elsewhere_is_refused_and_a_new_gitignore_taken_back(tmp_path):
    root = repository(tmp_path)
    (root / ".gitignore").write_text("data/\n")
    with pytest.raises(RucolaError, match=r"\.gitignore:1: data/ also ignores"):
        ignore_in_git(root / "data/raw/errata")
    assert not (root / "data").exists()  # neither the .gitignore nor its folders stay


def test_an_old_unescaped_entry_that_ignores_a_sibling_is_refused(tmp_path):
    root = repository(tmp_path)
    (root / "data/raw/err1").mkdir(parents=True)
    (root / "data/raw/.gitignore").write_text("/err[1]\n")
    wrong = r"data/raw/\.gitignore:1: /err\[1\] also ignores data/raw/err1"
    with pytest.raises(RucolaError, match=wrong):
        ignore_in_git(root / "data/raw/err[1]")
    assert (root / "data/raw/.gitignore").read_text() == "/err[1]\n"


def test_a_control_character_in_the_name_is_refused(tmp_path):
    root = repository(tmp_path)
    with pytest.raises(RucolaError, match="control character"):
        ignore_in_git(root / "data/raw/err\nata")
    assert not (root / "data").exists()


@pytest.mark.slow
def test_dvc_add_of_an_escaped_folder_keeps_rucolas_entry(tmp_path):
    """DVC escapes ``[`` and ``]`` itself but not a trailing space (its own entry for
    ``errata `` ignored nothing): it finds rucola's entry and writes none."""
    root = repository(tmp_path)
    subprocess.run(["dvc", "init", "-q"], cwd=root, check=True)
    raw = root / "data/raw"
    names = ["err[1]", "errata ", "*"]
    for name in names:
        (raw / name).mkdir(parents=True)
        (raw / name / "v1.csv").write_text("x\n")
        ignore_in_git(raw / name)
    expected = (raw / ".gitignore").read_text(encoding="utf-8")
    for name in names:
        subprocess.run(["dvc", "add", "-q", f"data/raw/{name}"], cwd=root, check=True)
    assert (raw / ".gitignore").read_text(encoding="utf-8") == expected
    assert sorted(untracked(root)) == sorted(
        ["data/raw/.gitignore", *(f"data/raw/{n}.dvc" for n in names)]
    )
