"""Names and paths from params or the command line never reach outside the repository, and
nothing is deleted that rucola did not write (a generator named ``../../..`` once deleted
the repository)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from rucola.errors import RucolaError
from rucola.generation.shards import ShardStore
from rucola.io import OWNER_FILE, atomic_dir
from rucola.names import check_name, check_output_path

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
    (root / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), "utf-8")


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
    for args in (["generate", name], ["track-index"], ["track-generator", name], ["split"]):
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


@pytest.mark.parametrize("name", ["perturbations", "opus_mt", "m2m-100", "v1.1", "A9"])
def test_plain_names_pass(name):
    assert check_name(name, "key") == name


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
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json"]
    assert fresh.completed == 0
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="notes.txt"):
        ShardStore(folder, "newer", 1)
    assert (folder / "notes.txt").is_file() and (folder / "manifest.json").is_file()


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
