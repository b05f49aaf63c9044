"""rucola.remotes (``rucola pull``) on a tiny real DVC repository with two local remotes:
an input ``dvc add`` tracks goes to the default (private) remote, a stage output naming
``remote: public`` to the public one; a clone pulls both, and without the private remote
gets the public output and one line naming what is missing (exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from dvc_project import git, run, sh

pytestmark = pytest.mark.slow

DVC_YAML = """\
stages:
  publish:
    cmd: mkdir -p out && wc -l < data/raw/input/secret.txt > out/n && echo public > out/readme.txt
    deps: [data/raw/input]
    outs:
      - out:
          remote: public
"""


def set_remotes(root: Path, remotes: Path, private: str = "private") -> None:
    for name, folder in (("public", "public"), ("private", private)):
        sh("dvc", "remote", "modify", "--local", name, "url", str(remotes / folder), cwd=root)


@pytest.fixture(scope="module")
def pushed(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("remotes")
    root, remotes = base / "a", base / "remotes"
    root.mkdir()
    git("init", "-q", cwd=root)
    sh("dvc", "init", "-q", cwd=root)
    sh("dvc", "remote", "add", "-d", "private", "unset", cwd=root)
    sh("dvc", "remote", "add", "public", "unset", cwd=root)
    set_remotes(root, remotes)
    (root / "data/raw/input").mkdir(parents=True)
    (root / "data/raw/input/secret.txt").write_text("hidden label\n")
    sh("dvc", "add", "-q", "data/raw/input", cwd=root)
    (root / "dvc.yaml").write_text(DVC_YAML)
    sh("dvc", "repro", "-q", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "x", cwd=root)
    sh("dvc", "push", "-q", cwd=root)
    return root, remotes


def clone(pushed: tuple[Path, Path], name: str, private: str) -> Path:
    root, remotes = pushed
    target = root.parent / name
    git("clone", "-q", str(root), str(target), cwd=root.parent)
    set_remotes(target, remotes, private)
    return target


def test_a_clone_pulls_every_output_from_its_own_remote(pushed):
    target = clone(pushed, "b", "private")
    printed = sh("rucola", "pull", cwd=target)
    assert "pull: 1 outputs from remote 'private'" in printed
    assert "pull: 1 outputs from remote 'public'" in printed
    assert (target / "data/raw/input/secret.txt").read_text() == "hidden label\n"
    assert (target / "out/readme.txt").read_text() == "public\n"


def test_without_the_private_remote_one_line_names_it_and_what_is_missing(pushed):
    target = clone(pushed, "c", "nowhere")
    result = run("rucola", "pull", cwd=target)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: remote 'private' ("), result.stderr
    assert "out of reach: 1 outputs not pulled (data/raw/input)" in lines[0]
    assert "dvc remote modify --local" in lines[0]
    assert (target / "out/readme.txt").is_file()  # the public remote's output came
    assert not (target / "data/raw/input").exists()


def test_the_public_remote_holds_the_public_output_only(pushed):
    _, remotes = pushed
    public = {p.name for p in (remotes / "public").rglob("*") if p.is_file()}
    private = {p.name for p in (remotes / "private").rglob("*") if p.is_file()}
    assert public and private and not public & private
