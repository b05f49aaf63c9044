"""`rucola release keep`: the published release kept whole under data/releases/vX.Y.Z/,
never replaced, written all at once, and pinnable: every row keeps its split and id."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from corpora import split_settings
from identity import identity_yaml
from release_params import RELEASE_PARAMS as PARAMS
from test_build import split_frame, tree, write_input

import rucola.release.keep
from rucola.corpus.split import run_split
from rucola.io import write_parquet
from rucola.ownership import ATTRIBUTE, BOOKKEEPING
from rucola.params import load_settings
from rucola.release.keep import keep_release

KEPT = Path("data/releases/v1.0.0")


@pytest.fixture
def project(tmp_path: Path, run_cli) -> Path:
    """A built release (public folder, CSV layout, private gold) from a validated split."""
    write_input(tmp_path / "data", split_frame())
    (tmp_path / "params.yaml").write_text(identity_yaml(PARAMS), encoding="utf-8")
    code, _, stderr = run_cli("release", "build", cwd=tmp_path)
    assert code == 0, stderr
    return tmp_path


def published(folder: Path) -> dict[str, bytes]:
    """A release folder's files but rucola's bookkeeping: what was published."""
    return {k: v for k, v in tree(folder).items() if Path(k).name not in BOOKKEEPING}


def test_keep_copies_the_three_folders_side_by_side(project, run_cli):
    code, stdout, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=project)
    assert code == 0, stderr
    assert f"kept v1.0.0 in {KEPT}" in stdout and "dvc add data/releases/v1.0.0" in stdout
    kept = project / KEPT
    assert sorted(p.name for p in kept.iterdir()) == ["private", "rucola", "rucola_csv"]
    for name in ("rucola", "rucola_csv"):
        assert tree(kept / name) == published(project / "out" / name), name
    # the private folder, salted (issue 32): `dvc add`'s hash of it covers the salt
    private = tree(kept / "private")
    assert len(private.pop("rucola-salt")) >= 32
    assert private == published(project / "out/private")
    assert (kept / "private/test_gold.parquet").is_file()
    assert (kept / "rucola/release_manifest.json").is_file()
    # no ownership record: no rucola command may ever replace or delete a kept version
    for path in kept.rglob("*"):
        assert path.name not in BOOKKEEPING
        if path.is_file() and hasattr(os, "getxattr"):
            with pytest.raises(OSError):
                os.getxattr(path, ATTRIBUTE)
    assert oct((kept / "private").stat().st_mode & 0o777) == oct(
        (project / "out/private").stat().st_mode & 0o777
    )
    assert list(kept.parent.iterdir()) == [kept]  # no temporary left beside it


def test_a_kept_version_is_never_replaced(project, run_cli):
    assert run_cli("release", "keep", "--version", "1.0.0", cwd=project)[0] == 0
    before = tree(project / "data/releases")
    frame = split_frame()
    frame.loc[0, "sentence"] = "Совсем другое предложение следующей сборки."
    write_input(project / "data", frame)
    assert run_cli("release", "build", cwd=project)[0] == 0
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=project)
    assert code == 1
    assert f"error: {KEPT}: v1.0.0 is already kept; a published version is never replaced" in (
        stderr
    )
    assert tree(project / "data/releases") == before


@pytest.mark.parametrize("version", ["01.0.0", "1.0", "v1.0.0", "../1.0.0"])
def test_a_version_that_is_not_semantic_is_refused(project, run_cli, version):
    code, _, stderr = run_cli("release", "keep", "--version", version, cwd=project)
    assert code == 1 and "is not semantic" in stderr
    assert not (project / "data/releases").exists()


@pytest.mark.parametrize("version", ["1.0.0\n", "1.0.0\n\n", "1\u0661.0.0", "1.0.0 "])
def test_a_version_with_a_trailing_newline_or_other_digits_is_refused(project, run_cli, version):
    """``$`` matched before a final newline: ``--version '1.0.0\\n'`` kept the release in a
    folder ``v1.0.0\\n`` beside the real ``v1.0.0``; ``\\d`` took other digits
    (``1\\u0661.0.0``). One line (the newline shown escaped), nothing written."""
    code, _, stderr = run_cli("release", "keep", "--version", version, cwd=project)
    lines = stderr.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Traceback" not in stderr, stderr
    assert lines[0] == (
        f"error: --version: {version!r} is not semantic (X.Y.Z, numbers without leading zeros)"
    )
    assert not (project / "data/releases").exists()


# A keep killed (SIGKILL) at the third file it copies, as the OOM killer or a closed
# terminal leaves it: 191 MB of half-copied folders with the real gold.
KILLED_KEEP = """\
import os, shutil, signal, sys
from pathlib import Path
from rucola.params import load_settings
from rucola.release.keep import keep_release

copied = []
copy = shutil.copyfile
def dying(source, target, *args, **kwargs):
    copied.append(source)
    if len(copied) == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return copy(source, target, *args, **kwargs)
shutil.copyfile = dying
os.chdir(sys.argv[1])
keep_release(load_settings(Path("params.yaml")), "1.0.0")
"""


@pytest.mark.slow
def test_the_next_keep_removes_what_a_killed_keep_left(project, run_cli, tmp_path_factory):
    """A keep killed while copying left ``.v1.0.0.XXXXXXXX.rucola-tmp`` (public folder and
    gold, half copied) in data/releases, and every later run left it there. The next run
    removes keep's own leftovers, of any version, and nothing else there."""
    script = tmp_path_factory.mktemp("script") / "killed.py"
    script.write_text(KILLED_KEEP, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(script), str(project)], capture_output=True, text=True
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    releases = project / "data/releases"
    leftovers = [p.name for p in releases.iterdir()]
    assert len(leftovers) == 1 and leftovers[0].startswith(".v1.0.0."), leftovers
    assert leftovers[0].endswith(".rucola-tmp") and (releases / leftovers[0]).is_dir()
    # an older run's leftover of another version, and what only looks like one
    (releases / ".v0.9.0.a1b2c3d4.rucola-tmp/rucola").mkdir(parents=True)
    (releases / ".v0.9.0.a1b2c3d4.rucola-tmp/rucola/README.md").write_text("old", "utf-8")
    mine = {
        "notes": "a person's folder",
        ".v1.0.0.rucola-tmp": "no random part: not keep's",
        ".v1.0.0.abcdefgh.rucola-tmp.bak": "not keep's suffix",
    }
    for name, text in mine.items():
        (releases / name).mkdir()
        (releases / name / "keep.txt").write_text(text, encoding="utf-8")
    (releases / ".v1.1.0.abcdefgh.rucola-tmp").write_text("a file, not keep's", "utf-8")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "thesis.tex").write_text("years of work", encoding="utf-8")
    (releases / ".v1.2.0.abcdefgh.rucola-tmp").symlink_to(outside)

    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=project)
    assert code == 0, stderr
    assert sorted(p.name for p in releases.iterdir()) == sorted(
        [*mine, ".v1.1.0.abcdefgh.rucola-tmp", ".v1.2.0.abcdefgh.rucola-tmp", "v1.0.0"]
    )
    for name, text in mine.items():
        assert (releases / name / "keep.txt").read_text(encoding="utf-8") == text
    assert (outside / "thesis.tex").is_file()
    kept = {k: v for k, v in tree(releases / "v1.0.0/private").items() if k != "rucola-salt"}
    assert kept == published(project / "out/private")


def test_a_release_changed_since_the_build_is_not_kept(project, run_cli):
    test_csv = project / "out/rucola_csv/test.csv"
    test_csv.write_text(test_csv.read_text(encoding="utf-8") + "9999,Лишнее.\n", encoding="utf-8")
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=project)
    assert code == 1 and "out/rucola_csv/test.csv" in stderr and "publish manifest" in stderr
    assert not (project / KEPT).exists()


def test_a_release_not_built_from_the_validated_data_is_not_kept(project, run_cli):
    write_input(project / "data", split_frame().iloc[1:])  # validated, but not built
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=project)
    assert code == 1 and "not built from the validated data" in stderr
    assert not (project / KEPT).exists()


def test_a_keep_failing_half_way_leaves_nothing(project, monkeypatch):
    calls = []
    copy = rucola.release.keep.shutil.copyfile

    def failing(source, target, *args, **kwargs):
        calls.append(source)
        if len(calls) == 5:
            raise OSError(28, "No space left on device", str(target))
        return copy(source, target, *args, **kwargs)

    monkeypatch.setattr(rucola.release.keep.shutil, "copyfile", failing)
    monkeypatch.chdir(project)
    with pytest.raises(OSError, match="No space left"):
        keep_release(load_settings(Path("params.yaml")), "1.0.0")
    assert len(calls) == 5
    assert list((project / "data/releases").iterdir()) == []


def test_pinning_a_kept_release_keeps_every_split_and_id(project, run_cli, tmp_path_factory):
    """The next version pins the kept public folder: its test rows show no domain there,
    and are matched by their text; a new row gets an id after the largest of its split (and,
    in train and validation, its domain)."""
    assert run_cli("release", "keep", "--version", "1.0.0", cwd=project)[0] == 0
    before = split_frame()
    grown = before.drop(columns=["split", "id"])
    new = grown.iloc[[0]].assign(sentence="Совсем новое предложение для версии 1.1.", group="n")
    write_parquet(pd.concat([grown, new], ignore_index=True), project / "in.parquet")
    work = tmp_path_factory.mktemp("split")
    settings = split_settings(work, pin=[str(project / KEPT / "rucola")])
    report = run_split(settings, project / "in.parquet")
    after = pd.read_parquet(work / "split.parquet").set_index("sentence")
    for sentence, split, id_ in zip(before["sentence"], before["split"], before["id"], strict=True):
        assert (after.at[sentence, "split"], after.at[sentence, "id"]) == (split, id_), sentence
    assert report["pin"]["matched_by_pin"] == len(before) and report["pin"]["removed"] == 0
    row = after.loc["Совсем новое предложение для версии 1.1."]
    assert pd.isna(row["pinned_split"])
    same = before["split"] == row["split"]
    if row["split"] != "test":  # train and validation are numbered per domain
        same &= before["domain"] == row["domain"]
    largest = before.loc[same, "id"].max()
    assert row["id"] == largest + 1
    # and the diff reads the kept folder like any release folder
    code, stdout, stderr = run_cli(
        "release", "diff", str(KEPT / "rucola"), "out/rucola", cwd=project
    )
    assert code == 0, stderr
    assert "| added | 0 |" in stdout and "| removed | 0 |" in stdout
