"""Issue 43, item 4: a version is its commit. ``release publish`` and ``release keep``
refuse while an input params name, its ``.dvc`` file or the ``.gitignore`` rule that hides
it from git is not committed, naming each file and the ``git add`` to run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rucola.errors import RucolaError
from rucola.release.committed import check_committed, input_paths, uncommitted
from rucola.settings import Params


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def params() -> Params:
    return Params.model_validate(
        {
            "extract": {
                "sources": [{"path": "data/raw/rucola_v1"}, {"path": "data/raw/sheets"}],
                "errata": ["data/raw/errata"],
            },
        }
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """What the docs' steps leave after `dvc add` of three folders (their .dvc files and
    data/raw/.gitignore, as DVC writes them) and a sheet kept in git, all committed."""
    root = tmp_path / "corpus"
    for folder in ("rucola_v1", "errata", "sheets"):
        (root / "data/raw" / folder).mkdir(parents=True)
    (root / "data/raw/rucola_v1/in_domain_train.csv").write_text("id,sentence\n")
    (root / "data/raw/errata/e.csv").write_text("split,domain,id\n")
    (root / "data/raw/sheets/new.tsv").write_text("sentence\n")
    (root / "data/raw/.gitignore").write_text("/rucola_v1\n/errata\n")
    for folder in ("rucola_v1", "errata"):
        (root / f"data/raw/{folder}.dvc").write_text(f"outs:\n- path: {folder}\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "inputs")
    return root


def test_the_inputs_are_every_path_params_name():
    assert input_paths(params()) == ["data/raw/rucola_v1", "data/raw/sheets", "data/raw/errata"]


def test_a_committed_tree_passes(repo):
    assert uncommitted(repo, input_paths(params())) == ([], [])
    check_committed(repo, params(), "release publish")


def test_what_the_old_docs_left_untracked_is_named_with_its_git_add(repo):
    """The release manager's case: only rucola_v1.dvc added; data/raw/.gitignore and
    errata.dvc never committed, a new sheet never added."""
    git(repo, "rm", "-q", "--cached", "data/raw/.gitignore", "data/raw/errata.dvc")
    git(repo, "commit", "-qm", "as the docs left it")
    (repo / "data/raw/sheets/more.tsv").write_text("sentence\n")
    with pytest.raises(RucolaError) as caught:
        check_committed(repo, params(), "release publish")
    message = caught.value.message
    names = ["data/raw/.gitignore", "data/raw/errata.dvc", "data/raw/sheets/more.tsv"]
    assert message.startswith("release publish: not committed: " + ", ".join(names))
    assert caught.value.hint.startswith("git add " + " ".join(names) + " && git commit")


IGNORE = "/rucola_v1\n/errata\n/another\n"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda r: (r / "data/raw/errata.dvc").write_text("outs: []\n"), "data/raw/errata.dvc"),
        (lambda r: (r / "data/raw/.gitignore").write_text(IGNORE), "data/raw/.gitignore"),
        (lambda r: (r / "data/raw/sheets/new.tsv").write_text("x\n"), "data/raw/sheets/new.tsv"),
    ],
    ids=["changed .dvc file", "changed .gitignore", "changed input in git"],
)
def test_a_changed_file_is_named(repo, change, named):
    change(repo)
    assert uncommitted(repo, input_paths(params()))[0] == [named]


def test_an_added_but_uncommitted_dvc_file_is_named(repo):
    (repo / "data/raw/errata.dvc").write_text("outs:\n- path: errata\n  md5: x\n")
    git(repo, "add", "data/raw/errata.dvc")
    assert uncommitted(repo, input_paths(params()))[0] == ["data/raw/errata.dvc"]


def test_an_ignored_input_no_dvc_file_tracks_is_refused(repo):
    (repo / "data/raw/errata.dvc").unlink()
    with pytest.raises(RucolaError, match="neither git nor a .dvc file holds: data/raw/errata"):
        check_committed(repo, params(), "release keep")


def test_an_input_hidden_by_a_rule_no_commit_holds_is_refused(repo):
    """A rule in .git/info/exclude hides the sheets from git in this clone only."""
    git(repo, "rm", "-rq", "--cached", "data/raw/sheets")
    (repo / ".git/info/exclude").write_text("/data/raw/sheets\n")
    (repo / "data/raw/sheets.dvc").write_text("outs:\n- path: sheets\n")
    git(repo, "add", "data/raw/sheets.dvc")
    git(repo, "commit", "-qm", "sheets by dvc")
    with pytest.raises(RucolaError, match=r"ignored by \.git/info/exclude, which no commit"):
        check_committed(repo, params(), "release publish")


def test_a_cyrillic_file_name_is_named_as_git_add_takes_it(repo):
    """``git status --porcelain`` quotes a non-ASCII name as octal escapes; the name and
    the ``git add`` line show it as it is, and that line commits it."""
    import shlex

    (repo / "data/raw/sheets/новые листы.tsv").write_text("sentence\n")
    with pytest.raises(RucolaError) as caught:
        check_committed(repo, params(), "release publish")
    assert "data/raw/sheets/новые листы.tsv" in caught.value.message
    add = caught.value.hint.split(" && ")[0]
    assert add == "git add 'data/raw/sheets/новые листы.tsv'"
    git(repo, *shlex.split(add)[1:])
    git(repo, "commit", "-qm", "a new sheet")
    assert uncommitted(repo, input_paths(params())) == ([], [])


def test_a_dvc_input_in_a_folder_of_another_script_names_its_gitignore(tmp_path):
    """``git check-ignore -v`` quotes the rule's file too: read NUL-separated, the
    .gitignore of a folder named in Arabic is named as it is."""
    root = tmp_path / "corpus"
    folder = root / "data/بيانات/ورقة"
    folder.mkdir(parents=True)
    (folder / "a.tsv").write_text("sentence\n")
    (folder.parent / ".gitignore").write_text("/ورقة\n")
    (folder.parent / "ورقة.dvc").write_text("outs:\n- path: ورقة\n")
    git(root, "init", "-q")
    git(root, "add", "data/بيانات/ورقة.dvc")
    git(root, "commit", "-qm", "the .dvc file only")
    assert uncommitted(root, ["data/بيانات/ورقة"]) == (["data/بيانات/.gitignore"], [])


def test_a_renamed_input_names_its_new_path(repo):
    git(repo, "mv", "data/raw/sheets/new.tsv", "data/raw/sheets/renamed.tsv")
    assert uncommitted(repo, input_paths(params()))[0] == ["data/raw/sheets/renamed.tsv"]
