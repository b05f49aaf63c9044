"""The one rule of what rucola may replace or delete (``rucola.ownership``), piece by
piece: its own record (an attribute of the file, or the folder's ledger where the file
system keeps none), ``dvc.lock``, a folder's ``.rucola-output.json``, and a store's claim."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from rucola import ownership
from rucola.errors import RucolaError
from rucola.io import atomic_dir, write_text


def test_what_rucola_wrote_is_replaced_and_an_edit_makes_it_the_persons(tmp_path):
    target = tmp_path / "out.txt"
    write_text("one", target)
    write_text("two", target)
    assert target.read_text(encoding="utf-8") == "two"
    target.write_text("two, and my note", encoding="utf-8")
    with pytest.raises(RucolaError, match="changed since"):
        write_text("three", target)
    with pytest.raises(RucolaError, match="refusing to delete"):
        ownership.remove(target)
    assert target.read_text(encoding="utf-8") == "two, and my note"


def test_without_file_attributes_the_folder_ledger_keeps_the_record(tmp_path, monkeypatch):
    """Where the file system has no user attributes (macOS, some mounts), the record is
    the folder's ``.rucola-written`` ledger; removing the file removes its entry."""
    monkeypatch.setattr(ownership, "_set_attribute", lambda path, digest: False)
    monkeypatch.setattr(ownership, "_attribute", lambda path: None)
    target = tmp_path / "out.txt"
    write_text("one", target)
    ledger = json.loads((tmp_path / ownership.LEDGER).read_text(encoding="utf-8"))
    assert ledger == {"out.txt": hashlib.sha256(b"one").hexdigest()}
    write_text("two", target)
    target.write_text("mine", encoding="utf-8")
    with pytest.raises(RucolaError, match="out.txt"):
        write_text("three", target)
    target.write_text("two", encoding="utf-8")  # back to what rucola wrote
    assert ownership.remove(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # the empty ledger goes too


LOCKED_MD5 = hashlib.md5(b"locked").hexdigest()


def test_dvc_lock_outputs_count_as_written(tmp_path):
    (tmp_path / "data").mkdir()
    out = tmp_path / "data" / "out.txt"
    out.write_text("locked", encoding="utf-8")  # as dvc checkout leaves it: no record
    lock = {
        "schema": "2.0",
        "stages": {
            "s": {
                "cmd": "x",
                "deps": [{"path": "data/other.txt", "md5": hashlib.md5(b"other").hexdigest()}],
                "outs": [
                    {
                        "path": "data/out.txt",
                        "hash": "md5",
                        "md5": hashlib.md5(b"locked").hexdigest(),
                    }
                ],
            }
        },
    }
    (tmp_path / "dvc.lock").write_text(json.dumps(lock), encoding="utf-8")
    dep = tmp_path / "data" / "other.txt"
    dep.write_text("other", encoding="utf-8")
    with pytest.raises(RucolaError, match="other.txt"):  # a dependency is no output
        write_text("x", dep)
    write_text("replaced", out)
    assert out.read_text(encoding="utf-8") == "replaced"


def test_a_folder_with_an_edited_file_is_refused(tmp_path):
    target = tmp_path / "docs"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("a", encoding="utf-8")
    record = json.loads((target / ownership.OWNER_FILE).read_text(encoding="utf-8"))
    assert record["sha256"] == {"a.txt": hashlib.sha256(b"a").hexdigest()}
    (target / "a.txt").write_text("edited", encoding="utf-8")
    with pytest.raises(RucolaError, match="changed since"), atomic_dir(target):
        pass
    assert (target / "a.txt").read_text(encoding="utf-8") == "edited"


def test_links_are_never_replaced(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("mine", encoding="utf-8")
    link = tmp_path / "link.txt"
    os.symlink(real, link)
    with pytest.raises(RucolaError, match="link"):
        write_text("x", link)
    assert real.read_text(encoding="utf-8") == "mine" and link.is_symlink()


def test_scratch_names(tmp_path):
    assert ownership.in_scratch(Path("data/.rucola.abcd1234.rucola-tmp/default/x.parquet"))
    assert ownership.in_scratch(Path("data/interim/.x.csv.rucola-staged"))
    assert not ownership.in_scratch(Path("data/interim/x.rucola-staged"))
    assert not ownership.in_scratch(Path(".git/config"))


def test_a_write_removes_what_a_killed_write_of_the_same_file_left(tmp_path):
    stale = tmp_path / ".out.txt.k3j_x9a2.rucola-tmp"
    stale.write_text("half", encoding="utf-8")
    other = tmp_path / ".other.txt.k3j_x9a2.rucola-tmp"
    other.write_text("half", encoding="utf-8")
    write_text("done", tmp_path / "out.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "out.txt"]


@pytest.mark.slow
def test_a_persistent_output_of_the_stage_dvc_runs_may_be_replaced(tmp_path, monkeypatch):
    """``persist: true`` keeps a committed report in place through a failed ``dvc repro``;
    it must not make the stage refuse its own report (DVC would have deleted it)."""
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["dvc", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  s:\n    cmd: 'true'\n    outs:\n"
        "      - r.json: {cache: false, persist: true}\n      - o.json: {cache: false}\n"
    )
    for name in ("r.json", "o.json", "x.json"):
        (tmp_path / name).write_text("{}\n")  # a checkout's copy: nothing says rucola wrote it
    monkeypatch.chdir(tmp_path)
    ownership._PERSISTENT.clear()
    with pytest.raises(RucolaError):  # outside dvc repro: the usual rule
        ownership.check_may_replace(tmp_path / "r.json")
    monkeypatch.setenv("DVC_STAGE", "s")
    ownership.check_may_replace(tmp_path / "r.json")
    for name in ("o.json", "x.json"):  # not persistent, or no output of the stage
        with pytest.raises(RucolaError):
            ownership.check_may_replace(tmp_path / name)
    monkeypatch.setenv("DVC_STAGE", "other")
    with pytest.raises(RucolaError):
        ownership.check_may_replace(tmp_path / "r.json")
