"""Issue 33: a maintained corpus is safe in DVC's own hands, on a second machine too
(needs the published RuCoLA files, ``RUCOLA_SHARED_DATA`` or ``../shared/data``).

In a real git + DVC repository with two local remotes, public and private, a release
manager keeps the sample's build on one branch and, on another, the published files
(``data/raw/rucola_v1``), a salted errata folder and a sheet of new sentences, builds
v1.1, keeps it (``data/releases/v1.1.0``) and pins the next build to it; then ``dvc push``.
What must hold: the public remote holds public objects only; a second clone gets every
file back (``rucola pull``) with nothing left to run and ``dvc status`` clean, and without
the private remote one line says what is missing; ``dvc exp run -S`` on a filter threshold
works in the workspace and with ``--temp`` and deletes no input; a failed ``dvc repro``
leaves every committed report in place; ``git checkout`` between the branches plus ``dvc
checkout`` restores every file of each.
"""

from __future__ import annotations

import csv
import hashlib
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from dvc_project import copy_of_built, git, run, sh
from test_growing_corpus import FIVE, PUBLISHED, write_sheet

pytestmark = pytest.mark.slow

INPUTS = ("data/raw", "data/releases")
# What rucola writes beside outputs (its ledgers, a killed run's leftovers): neither git nor
# DVC carries them, so a clone or a checkout need not bring them back.
LOCAL = (".rucola-written", ".rucola-staged", ".rucola-tmp")
UP_TO_DATE = "Data and pipelines are up to date."
MAINTAINING = (Path(__file__).resolve().parents[1] / "docs/maintaining.md").read_text("utf-8")
PUBLISH = (
    *("rucola", "release", "publish", "--dry-run", "--repo-id", "org/rucola"),
    *("--version", "1.1.0", "--private-repo-id", "org/rucola-private"),
)


def commit(root: Path, message: str) -> None:
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", message, cwd=root)


def files(root: Path, folders: tuple[str, ...] = INPUTS) -> dict[str, str]:
    """Every file under ``folders`` (relative path -> sha256), ledgers and temporaries too."""
    found = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and not path.name.endswith(LOCAL):
                found[path.relative_to(root).as_posix()] = hashlib.sha256(
                    path.read_bytes()
                ).hexdigest()
    return found


def set_remotes(root: Path, remotes: Path, private: str = "private") -> None:
    """Point the project's two remotes at local folders (``--local``: not committed)."""
    for name, folder in (("public", "public"), ("private", private)):
        sh("dvc", "remote", "modify", "--local", name, "url", str(remotes / folder), cwd=root)


def write_params(root: Path, **changes: object) -> None:
    params = yaml.safe_load((root / "configs/rucola-v1.1.yaml").read_text(encoding="utf-8"))
    params["extract"]["sources"].append({"path": "data/raw/sheets", "type": "sheet"})
    params["extract"]["errata"] = ["data/raw/errata"]
    params["split"].update(changes)
    (root / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), "utf-8")


def write_errata(root: Path, shared: Path) -> None:
    """One erratum on a published train row: an unacceptable row relabelled acceptable
    (which clears its category), with the reason; a long one, so that no filter threshold
    of the experiments below sets it aside (an erratum on a missing row is an error)."""
    train = pd.read_csv(shared / "rucola/in_domain_train.csv")
    long = train["sentence"].str.split().str.len() >= 12
    row = train[(train["acceptable"] == 0) & long].iloc[0]
    lines = [
        ["split", "domain", "id", "field", "new", "reason", "old"],
        ["train", "in_domain", int(row["id"]), "label", 1, "test erratum", 0],
    ]
    with (root / "data/raw/errata/v1.1.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(lines)


@pytest.fixture(scope="module")
def maintained(shared_data: Path, built_sample: Path, tmp_path_factory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("second_machine")
    remotes = base / "remotes"
    # the sample built and committed (the session's build, copied) on a branch of its own
    root = copy_of_built(built_sample, base / "a")
    git("branch", "-m", "sample", cwd=root)
    set_remotes(root, remotes)
    sample = files(root, ("data", "reports"))

    git("checkout", "-q", "-b", "maintained", cwd=root)
    published = root / "data/raw/rucola_v1"
    published.mkdir(parents=True)
    for name in [*PUBLISHED, "sample_submission.csv"]:
        shutil.copy2(shared_data / "rucola" / name, published / name)
    (root / "data/raw/sheets").mkdir()
    write_sheet(root / "data/raw/sheets/new.tsv", FIVE)
    sh("rucola", "salt", "data/raw/errata", cwd=root)
    write_errata(root, shared_data)
    for folder in ("rucola_v1", "sheets", "errata"):
        sh("dvc", "add", "-q", f"data/raw/{folder}", cwd=root)
    write_params(root)
    sh("dvc", "repro", cwd=root)
    # docs/maintaining.md's commit, as written (issue 43): it must leave nothing out
    assert "git add data/raw/*.dvc data/raw/.gitignore" in MAINTAINING
    git("add", "-u", cwd=root)
    git("add", "reports", cwd=root)
    git("add", *sorted(p.name for p in (root / "data/raw").glob("*.dvc")), cwd=root / "data/raw")
    git("add", "data/raw/.gitignore", cwd=root)
    # nothing left out: no untracked file, no change unstaged
    assert git("ls-files", "--others", "--exclude-standard", cwd=root) == ""
    assert git("diff", "--name-only", cwd=root) == ""
    git("commit", "-q", "-m", "v1.1: the published files, a sheet, errata", cwd=root)
    sh("dvc", "push", cwd=root)  # as `make release` does before it publishes
    dry_run = sh(*PUBLISH, cwd=root)
    published = git("rev-parse", "HEAD", cwd=root).strip()
    sh("rucola", "release", "keep", "--version", "1.1.0", cwd=root)
    sh("dvc", "add", "-q", "data/releases/v1.1.0", cwd=root)
    write_params(root, pin=["data/raw/rucola_v1", "data/releases/v1.1.0/rucola"])
    sh("dvc", "repro", cwd=root)
    commit(root, "v1.1.0 kept and pinned")
    pushed = sh("dvc", "push", cwd=root)
    return {
        "root": root,
        "remotes": remotes,
        "sample": sample,
        "pushed": pushed,
        "base": base,
        "published": published,
        "dry_run": dry_run,
    }


def test_inputs_and_kept_versions_are_in_dvcs_index(maintained):
    from dvc.repo import Repo

    root = maintained["root"]
    with Repo(str(root)) as repo:
        paths = (Path(s.path).relative_to(root) for s in repo.index.stages)
        tracked = {p.as_posix() for p in paths if p.suffix == ".dvc"}
    expected = {f"data/raw/{f}.dvc" for f in ("rucola_v1", "sheets", "errata")}
    assert tracked == expected | {"data/releases/v1.1.0.dvc"}
    # git ignores each folder by the entry `rucola salt`, `release keep` or `dvc add` wrote
    ignored = (root / "data/raw/.gitignore").read_text(encoding="utf-8").split()
    assert sorted(ignored) == ["/errata", "/rucola_v1", "/sheets"]
    assert git("status", "--porcelain", cwd=root) == ""


def remote_objects(folder: Path) -> set[str]:
    """The hashes a DVC 3 remote holds (``files/md5/ab/cdef...``, ``.dir`` kept)."""
    return {f"{p.parent.name}{p.name}" for p in (folder / "files/md5").rglob("*") if p.is_file()}


def test_the_public_remote_holds_public_objects_only(maintained):
    from dvc.repo import Repo

    root, remotes = maintained["root"], maintained["remotes"]
    public, private = set(), set()
    with Repo(str(root)) as repo:
        for out in repo.index.outs:
            if not out.use_cache:
                continue
            hashes = {out.hash_info.value}
            if out.hash_info.isdir:
                hashes |= {hash_info.value for _, _, hash_info in out.get_obj()}
            (public if out.remote == "public" else private).update(hashes)
    held = remote_objects(remotes / "public")
    assert held and held <= public, sorted(held - public)[:5]
    assert private - public <= remote_objects(remotes / "private")  # every private object
    assert not (held & (private - public))


def test_a_second_clone_pulls_everything_and_has_nothing_to_run(maintained):
    root, remotes, base = maintained["root"], maintained["remotes"], maintained["base"]
    clone = base / "b"
    git("clone", "-q", "-b", "maintained", str(root), str(clone), cwd=base)
    set_remotes(clone, remotes)
    printed = sh("rucola", "pull", cwd=clone)
    assert "from remote 'private'" in printed and "from remote 'public'" in printed
    assert files(clone) == files(root)
    assert files(clone, ("data/release",)) == files(root, ("data/release",))
    assert UP_TO_DATE in sh("dvc", "status", cwd=clone)
    assert "Running stage" not in sh("dvc", "repro", cwd=clone)
    assert git("status", "--porcelain", cwd=clone) == ""
    maintained["clone"] = clone


def test_without_the_private_remote_one_line_says_what_is_missing(maintained):
    root, remotes, base = maintained["root"], maintained["remotes"], maintained["base"]
    clone = base / "c"
    git("clone", "-q", "-b", "maintained", str(root), str(clone), cwd=base)
    set_remotes(clone, remotes, private="no-access")
    result = run("rucola", "pull", cwd=clone)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "remote 'private'" in lines[0] and "out of reach" in lines[0]
    assert "data/raw/rucola_v1" in lines[0] and "Traceback" not in result.stderr
    # what the public remote holds came all the same: the published release
    assert files(clone, ("data/release/rucola",)) == files(root, ("data/release/rucola",))
    assert not (clone / "data/raw/rucola_v1").exists()


def test_the_published_commit_rebuilds_its_release_in_a_fresh_clone(maintained):
    """Issue 43: walked as docs/maintaining.md says, the dry run finds nothing to stop the
    real one; a clone of the commit it would publish pulls every file from the local
    remotes, has nothing to run, and rebuilds the release byte for byte."""
    assert "dry run: nothing was sent" in maintained["dry_run"]
    assert "would stop" not in maintained["dry_run"]
    root, remotes, base = maintained["root"], maintained["remotes"], maintained["base"]
    clone = base / "published"
    git("clone", "-q", str(root), str(clone), cwd=base)
    git("checkout", "-q", maintained["published"], cwd=clone)
    set_remotes(clone, remotes)
    sh("rucola", "pull", cwd=clone)
    assert (clone / "data/raw/errata/v1.1.csv").is_file()  # what the old docs left out
    assert UP_TO_DATE in sh("dvc", "status", cwd=clone)
    assert git("status", "--porcelain", cwd=clone) == ""
    pulled = files(clone, ("data/release",))
    assert pulled and "data/release/rucola/default/train.parquet" in pulled
    ran_stages = sh("dvc", "repro", "--force", "--single-item", "release", cwd=clone)
    assert "Running stage 'release'" in ran_stages
    assert files(clone, ("data/release",)) == pulled
    assert git("status", "--porcelain", cwd=clone) == ""


@pytest.mark.parametrize("where", ["workspace", "temp"])
def test_an_experiment_on_a_threshold_runs_and_deletes_no_input(maintained, where):
    clone = maintained.get("clone")
    if clone is None:
        pytest.skip("needs the second clone")
    before = files(clone)
    value = 6 if where == "workspace" else 7
    args = ["dvc", "exp", "run", "-S", f"filter.min_tokens={value}"]
    result = run(*args, *(["--temp"] if where == "temp" else []), cwd=clone)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Running stage 'filter'" in result.stdout + result.stderr
    assert files(clone) == before


def test_a_failed_repro_leaves_every_committed_report_in_place(maintained):
    root = maintained["root"]
    errata = root / "data/raw/errata/v1.1.csv"
    good = errata.read_bytes()
    errata.write_text("split,domain,id,field,new,reason\ntrain,in_domain,x,label,1,bad\n")
    try:
        result = run("dvc", "repro", cwd=root)
        assert result.returncode != 0
        assert "errata/v1.1.csv" in result.stdout + result.stderr
        changed = git("status", "--porcelain", "--", "reports", cwd=root)
        assert not [line for line in changed.splitlines() if line.startswith(" D")], changed
    finally:
        errata.write_bytes(good)
    git("checkout", "--", ".", cwd=root)  # the stages that ran before the failure, undone
    sh("dvc", "checkout", cwd=root)
    assert UP_TO_DATE in sh("dvc", "status", cwd=root)


def test_switching_branches_restores_every_file_of_each(maintained):
    root = maintained["root"]
    inputs, built = files(root), files(root, ("data", "reports"))
    git("checkout", "-q", "sample", cwd=root)
    sh("dvc", "checkout", cwd=root)
    assert UP_TO_DATE in sh("dvc", "status", cwd=root)
    now = files(root, ("data", "reports"))
    assert {k: v for k, v in now.items() if k in maintained["sample"]} == maintained["sample"]
    git("checkout", "-q", "maintained", cwd=root)
    sh("dvc", "checkout", cwd=root)
    assert UP_TO_DATE in sh("dvc", "status", cwd=root)
    assert files(root) == inputs
    now = files(root, ("data", "reports"))
    assert {k: v for k, v in now.items() if k in built} == built
