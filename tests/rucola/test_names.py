"""Names and paths from params or the command line never reach outside the repository, and
nothing is deleted that rucola did not write (a generator named ``../../..`` once deleted
the repository)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from identity import with_identity

from rucola.errors import RucolaError
from rucola.generation.shards import ShardStore
from rucola.io import OWNER_FILE, atomic_dir
from rucola.names import (
    check_command_line_output,
    check_name,
    check_output_path,
    resolved_inside_repository,
)

BAD_NAMES = ["../../..", "../../escaped", "..", "/tmp/abs", ".hidden", "a/b", "a b", ""]


def listing(folder: Path) -> dict[str, int]:
    """Every path under ``folder`` with its size (folders: -1), to see what changed."""
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_size if p.is_file() else -1)
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A temporary repository inside an outer folder that holds files of its own."""
    outer = tmp_path / "outer"
    (outer / "neighbour").mkdir(parents=True)
    (outer / "neighbour" / "keep.txt").write_text("not ours\n", encoding="utf-8")
    root = outer / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (root / "data").mkdir()
    (root / "data" / "wiki.txt").write_text(
        "Мальчик читает интересную книгу.\nДевочка пишет длинное письмо.\n", encoding="utf-8"
    )
    return root


def write_params(root: Path, params: dict) -> None:
    """``params`` with RuCoLA's identity (the sentences are Russian) as ``params.yaml``."""
    (root / "params.yaml").write_text(
        yaml.safe_dump(with_identity(params), allow_unicode=True), "utf-8"
    )


def generation_params(generator: str = "rules", source: str = "Wiki") -> dict:
    return {
        "generate": {
            "sources": {source: {"path": "data/wiki.txt", "format": "text", "lang": "ru"}},
            "generators": {generator: {"method": "perturbation", "sources": [source]}},
        }
    }


def assert_untouched(run_cli, repo: Path, args: list[str], expected_key: str) -> None:
    outer = repo.parent
    before = listing(outer)
    code, _, stderr = run_cli(*args, cwd=repo)
    assert code == 1, stderr
    assert expected_key in stderr and "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) <= 2
    assert listing(outer) == before


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_generator_name_is_refused_and_touches_nothing(run_cli, repo, name):
    write_params(repo, generation_params(generator=name))
    # the deletion hazard: a folder where the work folder of '../../..' would be
    (repo / ".cache/rucola/generation").mkdir(parents=True)
    for args in (["generate", name], ["track-index"], ["track-generators"], ["split"]):
        assert_untouched(run_cli, repo, args, "generate.generators")


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_source_id_is_refused_and_touches_nothing(run_cli, repo, name):
    write_params(repo, generation_params(source=name))
    for args in (["track-index"], ["track", "generate.sources", "data/wiki.txt", "--as", name]):
        assert_untouched(run_cli, repo, args, "generate.sources")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("annotate.export_dir", "../../round"),  # an annotation round's task folder
        ("annotate.simulate.out_dir", "../round"),
        ("release.out", ".."),
        ("release.out", "."),
        ("release.private", "data/../../private"),
        ("extract.out", ".git/in_domain.parquet"),
        ("split.out", ".dvc/cache/split.parquet"),
    ],
)
def test_an_output_path_outside_the_repository_is_refused(run_cli, repo, key, value):
    section, *rest = key.split(".")
    params: dict = {section: {}}
    node = params[section]
    for part in rest[:-1]:
        node = node.setdefault(part, {})
    node[rest[-1]] = value
    write_params(repo, params)
    for args in (["split"], ["release", "build"], ["annotate", "export"]):
        assert_untouched(run_cli, repo, args, key)


def test_an_output_through_a_symlink_out_of_the_repository_is_refused(repo, monkeypatch):
    (repo / "data" / "link").symlink_to(repo.parent / "neighbour")
    monkeypatch.chdir(repo)
    with pytest.raises(RucolaError, match="outside the repository"):
        check_output_path("data/link/out.parquet", "split.out")
    assert check_output_path("data/out.parquet", "split.out") == "data/out.parquet"


def test_a_command_line_output_is_the_users_choice_but_never_in_git_or_dvc(repo, monkeypatch):
    """Relative or absolute, in the repository or not: the user's choice. Under ``.git``
    or ``.dvc`` (through a link, or another repository's): refused, naming the option."""
    (repo / ".dvc").mkdir()
    (repo / "data" / "git-link").symlink_to(repo / ".git")
    monkeypatch.chdir(repo)
    outside = str(repo.parent / "neighbour" / "out.parquet")
    for fine in ("data/out.parquet", "../trial/out.parquet", outside, None):
        assert check_command_line_output(fine, "--out") == fine
    refused = {
        ".git/out.parquet": ".git/",
        ".dvc/cache/x.parquet": ".dvc/",
        "data/git-link/x.parquet": ".git/",
        str(repo / ".git" / "x.parquet"): ".git/",
        str(repo.parent / "neighbour" / ".git" / "x.parquet"): ".git/",
    }
    for value, folder in refused.items():
        with pytest.raises(RucolaError) as error:
            check_command_line_output(value, "--report")
        assert error.value.format() == f"--report: {value!r} lies inside {folder}"
    for value in ("", "  ", "a\x00b"):
        with pytest.raises(RucolaError, match="--out"):
            check_command_line_output(value, "--out")


def test_a_params_output_in_another_repositorys_git_folder_is_refused(repo, monkeypatch):
    monkeypatch.chdir(repo)
    with pytest.raises(RucolaError, match="lies inside .git/"):
        check_output_path(str(repo.parent / "neighbour" / ".git" / "x.parquet"), "split.out")
    absolute = str(repo.parent / "neighbour" / "x.parquet")
    assert check_output_path(absolute, "split.out") == absolute


def test_a_folder_rucola_keeps_must_resolve_inside_the_repository(repo, monkeypatch):
    """The kept releases: a link out of the repository (or a path) is refused, naming the
    path and where it leads."""
    (repo / "data" / "releases").symlink_to(repo.parent / "neighbour")
    (repo / "data" / "kept").mkdir()
    monkeypatch.chdir(repo)
    assert resolved_inside_repository("data/kept", "kept") == repo.resolve() / "data" / "kept"
    assert resolved_inside_repository("data/new", "kept") == repo.resolve() / "data" / "new"
    with pytest.raises(RucolaError) as error:
        resolved_inside_repository("data/releases", "kept")
    message = error.value.format()
    assert message.startswith("data/releases: kept lies outside the repository")
    assert str((repo.parent / "neighbour").resolve()) in message
    for value in ("..", str(repo.parent / "neighbour"), "data/releases/v1", "."):
        with pytest.raises(RucolaError):
            resolved_inside_repository(value, "kept")
    with pytest.raises(RucolaError, match="lies inside .git/"):
        resolved_inside_repository(".git/kept", "kept")


@pytest.mark.parametrize("name", ["perturbations", "opus_mt", "m2m-100", "v1.1", "A9"])
def test_plain_names_pass(name):
    assert check_name(name, "key") == name


@pytest.mark.parametrize("name", ["rules\n", "rules\n\n", "\nrules", "rules\r"])
def test_a_name_with_a_newline_is_refused(name):
    """Names are matched whole: ``$`` would also match before a final newline."""
    with pytest.raises(RucolaError, match="is not a valid name"):
        check_name(name, "generate.generators")


def test_a_shard_folder_without_our_manifest_is_never_deleted(tmp_path):
    folder = tmp_path / "work" / "gen"
    folder.mkdir(parents=True)
    (folder / "thesis.tex").write_text("years of work\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="no shard manifest"):
        ShardStore(folder, "fingerprint", 2)
    assert (folder / "thesis.tex").is_file()


def test_a_stale_shard_folder_loses_only_its_own_files(tmp_path):
    folder = tmp_path / "gen"
    store = ShardStore(folder, "old", 1)
    store.write(0, pd.DataFrame({"x": [1]}).pipe(_table), {"rows": 1})
    assert json.loads((folder / "manifest.json").read_text())["fingerprint"] == "old"
    fresh = ShardStore(folder, "new", 1)  # another fingerprint: starts afresh
    assert not folder.exists()  # the old run's files gone; the new run's come with a shard
    assert fresh.completed == 0
    fresh.write(0, pd.DataFrame({"x": [2]}).pipe(_table), {"rows": 1})
    assert {"manifest.json", "shard-00000.parquet"} <= {p.name for p in folder.iterdir()}
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="notes.txt"):
        ShardStore(folder, "newer", 1)
    assert (folder / "notes.txt").is_file() and (folder / "manifest.json").is_file()


def test_a_fresh_shard_store_writes_nothing_before_its_first_shard(tmp_path):
    """A generator that fails before a shard is done (its model folder is missing) leaves
    no folder and no manifest behind (issue 33, 10)."""
    folder = tmp_path / "work" / "gen"
    store = ShardStore(folder, "fingerprint", 2)
    assert not (tmp_path / "work").exists()
    store.write(1, pd.DataFrame({"x": [1]}).pipe(_table), {"rows": 1})
    assert json.loads((folder / "manifest.json").read_text())["shards"].keys() == {"1"}
    assert ShardStore(folder, "fingerprint", 2).is_done(1)  # and it resumes from there


def _table(frame: pd.DataFrame):  # noqa: ANN202 - pyarrow.Table
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def test_atomic_dir_replaces_only_a_folder_it_wrote(tmp_path):
    target = tmp_path / "release"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("1", encoding="utf-8")
    assert json.loads((target / OWNER_FILE).read_text())["files"] == ["a.txt"]
    with atomic_dir(target) as tmp:  # ours: replaced
        (tmp / "b.txt").write_text("2", encoding="utf-8")
    assert sorted(p.name for p in target.iterdir()) == [OWNER_FILE, "b.txt"]

    (target / "added-by-hand.md").write_text("mine", encoding="utf-8")
    with pytest.raises(RucolaError, match="added-by-hand.md"), atomic_dir(target) as tmp:
        pass
    assert (target / "added-by-hand.md").is_file() and (target / "b.txt").is_file()

    foreign = tmp_path / "home"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("years of work", encoding="utf-8")
    with pytest.raises(RucolaError, match="not written by rucola"), atomic_dir(foreign):
        pass
    assert (foreign / "thesis.tex").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries


@pytest.mark.parametrize("repo_id", ["../../etc", "/etc/x", ".hidden/x", "org/../x", "org/a b"])
@pytest.mark.parametrize("option", ["--repo-id", "--private-repo-id"])
def test_a_bad_hub_repository_id_is_refused_and_touches_nothing(run_cli, repo, repo_id, option):
    write_params(repo, {})
    other = "--private-repo-id" if option == "--repo-id" else "--repo-id"
    args = ["release", "publish", option, repo_id, other, "org/ok", "--version", "1.0.0"]
    for dry_run in ([], ["--dry-run"]):
        assert_untouched(run_cli, repo, [*args, *dry_run], option)
