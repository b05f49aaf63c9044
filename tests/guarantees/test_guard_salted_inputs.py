"""Guarantee: no hash git tracks of a private input can be tested against a guess (issue
32, 2).

Private inputs (errata, review exports, a kept release with its gold) live in a folder
salted once by ``rucola salt`` (``rucola-salt``: random bytes of random length). The
tracker's fingerprint of a salted folder is one HMAC under the salt; DVC's hash of the
folder covers the salt. Errata outside a salted folder, or a path inside one, are refused,
since DVC would record that path's own hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from guards import one_error_line, snapshot
from identity import with_identity

ERRATA = "split,domain,id,field,new,reason\ntrain,in_domain,1,label,1,reported by a user\n"


def project(root: Path, errata: list[str], run_cli) -> Path:
    """Errata under ``data/raw/errata``, params naming ``errata``, and the index of what
    params name that the tracker reads (``rucola track-index``, as ``dvc repro`` runs it)."""
    (root / "data/raw/errata").mkdir(parents=True)
    (root / "data/raw/errata/v1.1.csv").write_text(ERRATA, encoding="utf-8")
    params = {"extract": {"errata": errata}}
    (root / "params.yaml").write_text(yaml.safe_dump(with_identity(params)), encoding="utf-8")
    code, _, err = run_cli("track-index", cwd=root)
    assert code == 0, err
    return root


def test_salt_writes_random_bytes_once_and_never_replaces_them(run_cli, tmp_path):
    code, out, err = run_cli("salt", "data/raw/errata", cwd=tmp_path)
    assert code == 0, err
    salt = tmp_path / "data/raw/errata/rucola-salt"
    first = salt.read_bytes()
    assert 32 <= len(first) <= 1056 and "salted" in out
    assert run_cli("salt", "data/raw/errata", cwd=tmp_path)[0] == 0
    assert salt.read_bytes() == first
    code, _, err = run_cli("salt", "other", cwd=tmp_path)
    assert code == 0 and (tmp_path / "other/rucola-salt").read_bytes() != first


def test_salt_refuses_paths_outside_the_repository_and_a_false_salt(run_cli, tmp_path):
    for folder, needle in (("../elsewhere", "outside the repository"), (".git/x", ".git")):
        code, _, err = run_cli("salt", folder, cwd=tmp_path)
        assert code == 1
        one_error_line(err, needle)
    (tmp_path / "f").mkdir()
    (tmp_path / "f/rucola-salt").write_text("x")
    code, _, err = run_cli("salt", "f", cwd=tmp_path)
    assert code == 1
    one_error_line(err, "f/rucola-salt", "not a salt")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.mark.parametrize("name", ["err[1]", "errata ", "*"])
def test_salt_ignores_a_folder_whose_name_git_reads_as_a_pattern(run_cli, tmp_path, name):
    """The entry was written unescaped: git ignored ``err1``, ``errata`` or every file of
    data/raw (``.dvc`` files included), and the salt itself showed as untracked."""
    git(tmp_path, "init", "-q")
    (tmp_path / "data/raw").mkdir(parents=True)
    (tmp_path / "data/raw/sheets.dvc").write_text("outs: []\n")
    code, out, err = run_cli("salt", f"data/raw/{name}", cwd=tmp_path)
    assert code == 0, err
    status = subprocess.run(
        ["git", "status", "--porcelain", "-uall"], cwd=tmp_path, capture_output=True, text=True
    ).stdout
    assert "rucola-salt" not in status
    assert "data/raw/sheets.dvc" in status and "data/raw/.gitignore" in status
    assert f"`dvc add {shlex.quote(f'data/raw/{name}')}`" in out  # a command the shell keeps


def test_salt_refuses_a_rule_that_hides_the_dvc_files_and_writes_nothing(run_cli, tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "data/raw").mkdir(parents=True)
    (tmp_path / "data/raw/.gitignore").write_text("/*\n")
    before = snapshot(tmp_path)
    code, _, err = run_cli("salt", "data/raw/errata", cwd=tmp_path)
    assert code == 1
    one_error_line(err, "data/raw/.gitignore:1: /*", "data/raw/errata.dvc")
    assert snapshot(tmp_path) == before and not (tmp_path / "data/raw/errata").exists()


def test_a_salt_git_tracks_is_refused_wherever_it_is_read_or_written(run_cli, tmp_path):
    """Force-added, the salt is public: nothing may be fingerprinted under it."""
    root = project(tmp_path, ["data/raw/errata"], run_cli)
    git(root, "init", "-q")
    assert run_cli("salt", "data/raw/errata", cwd=root)[0] == 0
    git(root, "add", "-f", "data/raw/errata/rucola-salt")
    before = snapshot(root)
    for command in (["salt", "data/raw/errata"], ["track", "extract.errata", "data/raw/errata"]):
        code, _, err = run_cli(*command, cwd=root)
        assert code == 1
        line = one_error_line(err, "data/raw/errata/rucola-salt", "git tracks this salt")
        assert "git rm --cached data/raw/errata/rucola-salt" in line and "rucola salt" in line
        assert snapshot(root) == before
    git(root, "rm", "-q", "--cached", "data/raw/errata/rucola-salt")
    assert run_cli("track", "extract.errata", "data/raw/errata", cwd=root)[0] == 0


def test_a_salt_hard_linked_to_a_tracked_file_is_refused(run_cli, tmp_path):
    root = project(tmp_path, ["data/raw/errata"], run_cli)
    git(root, "init", "-q")
    (root / "public.bin").write_bytes(b"k" * 64)
    git(root, "add", "public.bin")
    os.link(root / "public.bin", root / "data/raw/errata/rucola-salt")
    before = snapshot(root)
    code, _, err = run_cli("track", "extract.errata", "data/raw/errata", cwd=root)
    assert code == 1
    one_error_line(err, "data/raw/errata/rucola-salt", "a hard link to", "public.bin")
    assert snapshot(root) == before


def test_errata_outside_a_salted_folder_are_refused(run_cli, tmp_path):
    root = project(tmp_path, ["data/raw/errata"], run_cli)
    before = snapshot(root)
    code, _, err = run_cli("track", "extract.errata", "data/raw/errata", cwd=root)
    assert code == 1
    one_error_line(err, "data/raw/errata", "no salted folder")
    assert snapshot(root) == before


def test_a_file_inside_a_salted_folder_is_refused(run_cli, tmp_path):
    root = project(tmp_path, ["data/raw/errata/v1.1.csv"], run_cli)
    assert run_cli("salt", "data/raw/errata", cwd=root)[0] == 0
    before = snapshot(root)
    code, _, err = run_cli("track", "extract.errata", "data/raw/errata/v1.1.csv", cwd=root)
    assert code == 1
    one_error_line(err, "data/raw/errata/v1.1.csv", "inside the salted folder data/raw/errata")
    assert snapshot(root) == before


def test_a_salted_folder_is_fingerprinted_by_one_keyed_hash(run_cli, tmp_path):
    root = project(tmp_path, ["data/raw/errata"], run_cli)
    assert run_cli("salt", "data/raw/errata", cwd=root)[0] == 0
    code, _, err = run_cli("track", "extract.errata", "data/raw/errata", cwd=root)
    assert code == 0, err
    record = root / "reports/inputs/extract.errata/data/raw/errata.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    assert set(data) == {"family", "name", "path", "kind", "keyed"}
    assert data["kind"] == "salted_folder"
    errata = (root / "data/raw/errata/v1.1.csv").read_bytes()
    text = record.read_text(encoding="utf-8")
    for digest in (hashlib.sha256(errata).hexdigest(), hashlib.md5(errata).hexdigest()):  # noqa: S324
        assert digest not in text
    # the size as a number of its own (inside the hex of the HMAC its digits may occur)
    assert not re.search(rf"(?<![0-9a-f]){len(errata)}(?![0-9a-f])", text)
    # the same files, another salt: another fingerprint; a changed file: another one too
    first = data["keyed"]
    (root / "data/raw/errata/v1.1.csv").write_text(ERRATA + "\n", encoding="utf-8")
    assert run_cli("track", "extract.errata", "data/raw/errata", cwd=root)[0] == 0
    assert json.loads(record.read_text(encoding="utf-8"))["keyed"] != first


def test_the_brute_force_of_issue_32_has_nothing_to_work_on(run_cli, tmp_path):
    """Finding 2: an errata file from the fixed template of `audit import`, guessed right,
    matches no hash git would track: not the fingerprint, not the folder's DVC hash."""
    root = project(tmp_path, ["data/raw/errata"], run_cli)
    assert run_cli("salt", "data/raw/errata", cwd=root)[0] == 0
    assert run_cli("track", "extract.errata", "data/raw/errata", cwd=root)[0] == 0
    tracked = (root / "reports/inputs/extract.errata/data/raw/errata.json").read_text()
    guess = ERRATA.encode()  # the attacker's guess is exactly right...
    candidates = {
        hashlib.sha256(guess).hexdigest(),
        hashlib.md5(guess).hexdigest(),  # noqa: S324
        hashlib.sha256(b"v1.1.csv\0" + guess).hexdigest(),
    }
    assert not any(c in tracked for c in candidates)  # ...and matches nothing tracked


def _guess_script(root: Path) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).parents[2] / "scripts/guess_private_hashes.py"
    command = [sys.executable, str(script), "--root", str(root), "--errata", "errata"]
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_the_brute_force_script_finds_an_unsalted_errata_file_and_no_salted_one(run_cli, tmp_path):
    """scripts/guess_private_hashes.py (the closing note's figures) finds a one-row errata
    file of `audit import`'s template by its md5 in a tracked file, and nothing once the
    same file's only tracked hash is its salted folder's keyed fingerprint."""
    root = tmp_path
    (root / "data/release/rucola/default").mkdir(parents=True)
    test = pd.DataFrame({"id": [7, 8, 9], "sentence": ["Раз.", "Два.", "Три."]})
    test.to_parquet(root / "data/release/rucola/default/test.parquet", index=False)
    (root / "errata").mkdir()
    guessable = (
        b"split,domain,id,field,new,reason,old\n"
        b"test,in_domain,8,label,0,review: relabel by 2 of 3,1\n"
        b"test,in_domain,8,error_type,Syntax,review: relabel by 2 of 3,\n"
    )
    (root / "errata/review.csv").write_bytes(guessable)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    # what `dvc add errata/review.csv` would commit: the file's own md5
    digest = hashlib.md5(guessable).hexdigest()  # noqa: S324
    (root / "review.csv.dvc").write_text(f"outs:\n- md5: {digest}\n  path: review.csv\n")
    subprocess.run(["git", "add", "review.csv.dvc"], cwd=root, check=True)
    found = _guess_script(root)
    assert found.returncode == 1, found.stdout + found.stderr
    assert "among the guesses: 1" in found.stdout and "hits: 1 among the guesses" in found.stdout
    # salted instead: the tracked record is the keyed fingerprint
    subprocess.run(["git", "rm", "-q", "--cached", "review.csv.dvc"], cwd=root, check=True)
    (root / "params.yaml").write_text(
        yaml.safe_dump(with_identity({"extract": {"errata": ["errata"]}}))
    )
    assert run_cli("salt", "errata", cwd=root)[0] == 0
    assert run_cli("track-index", cwd=root)[0] == 0
    assert run_cli("track", "extract.errata", "errata", cwd=root)[0] == 0
    subprocess.run(["git", "add", "reports"], cwd=root, check=True)
    clean = _guess_script(root)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "among the guesses: 1" in clean.stdout and "hits: 0 among the guesses, 0" in clean.stdout
