"""Code fingerprints (``rucola fingerprint``, ``reports/code/``): each command's covers
exactly the code it runs and the settings models it reads, so that a code change reruns
exactly the stages whose code it touches (docs/extending.md, "Code fingerprints")."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
import yaml
from dvc_project import ROOT, ran, sh

from rucola.cli import app
from rucola.code_fingerprint import (
    INPUT_DATA,
    OUT_DIR,
    PACKAGE_DATA,
    commands,
    fingerprint,
    fingerprints,
    stale,
    write,
)
from rucola.import_graph import package_dirs


def code_copy(target: Path) -> Path:
    """The code folders and pyproject.toml copied under ``target``: a checkout, whose code
    the fingerprints read when run in it (``rucola.import_graph.code_root``), not the
    installed package's."""
    for folder in package_dirs().values():
        relative = folder.relative_to(ROOT)
        shutil.copytree(folder, target / relative, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", target / "pyproject.toml")
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def changed(before: dict[str, dict], after: dict[str, dict]) -> set[str]:
    return {name for name in before if before[name]["sha256"] != after[name]["sha256"]}


@pytest.fixture(scope="module")
def original() -> dict[str, dict]:
    return fingerprints(app, ROOT)


@pytest.mark.slow
def test_every_command_has_one_and_the_committed_ones_are_current():
    names = set(fingerprints(app, ROOT))
    assert {"filter.json", "annotate/merge.json", "release/build.json", "audit.json"} <= names
    assert stale(app, ROOT) == ({}, []), "run `rucola fingerprint` (make generate)"


def test_a_command_covers_its_own_code_not_its_neighbours():
    code = fingerprint("filter", commands(app)["filter"], ROOT)["code"]
    own = {"rucola.cli.corpus", "rucola.corpus.filters.stage", "rucola.corpus.filters.length"}
    assert own <= set(code)
    # rucola/cli/__init__.py imports every command module to register it: none of them runs
    assert "rucola.cli.annotate" not in code and "rucola.release.build" not in code
    # the settings section modules are covered model by model, not file by file
    assert not [f for f in code if f.startswith("rucola.settings.corpus")]
    assert "rucola.settings.types" in code  # shared settings code: every command's


def test_settings_are_the_models_a_command_reads():
    """measure reads filter.frequency (a model) and filter.workers (a plain key), not the
    filter's thresholds; validate hands the whole Filter to its token check."""
    measure = fingerprint("measure", commands(app)["measure"], ROOT)["settings"]
    assert "rucola.settings.corpus.Frequency" in measure and "filter.workers" in measure
    assert "rucola.settings.corpus.Measure" in measure
    assert "rucola.settings.corpus.Filter" not in measure
    validate = fingerprint("validate", commands(app)["validate"], ROOT)["settings"]
    assert "rucola.settings.corpus.Filter" in validate
    summarize = fingerprint("summarize", commands(app)["summarize"], ROOT)["settings"]
    assert "filter.report" in summarize and "rucola.settings.corpus.Filter" not in summarize


@pytest.mark.slow
def test_a_new_filter_key_changes_exactly_the_filter_and_validate(tmp_path: Path, original):
    root = code_copy(tmp_path)
    edit(
        root / "rucola/settings/corpus.py",
        "class Filter(Thresholds):\n",
        'class Filter(Thresholds):\n    max_digits: int | None = _key(None, "a new rule")\n',
    )
    assert changed(original, fingerprints(app, root)) == {"filter.json", "validate.json"}


@pytest.mark.slow
def test_a_module_one_stage_uses_changes_that_stage_only(tmp_path: Path, original):
    root = code_copy(tmp_path)
    edit(root / "corpus/split.py", '"""', '"""A comment. ')
    assert changed(original, fingerprints(app, root)) == {
        name for name, record in original.items() if "rucola.corpus.split" in record["code"]
    }
    assert "split.json" in changed(original, fingerprints(app, root))
    assert "filter.json" not in changed(original, fingerprints(app, root))


def test_package_data_is_covered_by_the_command_that_reads_it(original):
    assert "rucola.release/templates/card.md.j2" in original["release/build.json"]["code"]
    assert "rucola.release/templates/card.md.j2" not in original["filter.json"]["code"]


def test_every_package_data_pattern_has_its_reader():
    """pyproject.toml's package-data (what the wheel carries besides code) is read at run
    time; each pattern must be covered by the fingerprint of the commands that read it
    (named by its package: the same pattern in a checkout and installed)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    named = {
        pattern
        for table in (PACKAGE_DATA, INPUT_DATA)  # INPUT_DATA: the sample, an input
        for patterns in table.values()
        for pattern in patterns
    }
    for package, patterns in config["tool"]["setuptools"]["package-data"].items():
        for pattern in patterns:
            assert f"{package}/{pattern}" in named, (package, pattern)


@pytest.mark.slow
def test_write_replaces_what_changed_and_removes_what_no_command_has(tmp_path: Path):
    root = code_copy(tmp_path)
    folder = root / OUT_DIR
    written, removed = write(app, root)
    assert "filter.json" in written and removed == []
    # a command that is gone left its fingerprint
    gone = (
        (folder / "filter.json").read_text(encoding="utf-8").replace("rucola filter", "rucola gone")
    )
    (folder / "gone.json").write_text(gone, encoding="utf-8")
    (folder / "README.md").write_text("a person's note", encoding="utf-8")
    before = (folder / "filter.json").stat().st_mtime_ns
    assert write(app, root) == ([], ["gone.json"])
    assert not (folder / "gone.json").exists() and (folder / "README.md").exists()
    assert (folder / "filter.json").stat().st_mtime_ns == before  # unchanged: not rewritten


@pytest.mark.slow
def test_check_names_each_stale_file_and_writes_nothing(tmp_path: Path):
    from dvc_project import run

    root = code_copy(tmp_path)
    write(app, root)
    edit(root / "corpus/split.py", '"""', '"""A comment. ')
    result = run("rucola", "fingerprint", "--check", cwd=root)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ") and "reports/code/split.json" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2  # the line and its hint
    assert run("rucola", "fingerprint", cwd=root).returncode == 0
    assert run("rucola", "fingerprint", "--check", cwd=root).returncode == 0


@pytest.mark.slow
def test_dvc_reruns_exactly_the_stages_a_change_touches(built_sample_copy: Path):
    """In a real DVC repository with the sample built: a new key in the filter's settings
    model reruns filter and validate (and nothing their unchanged outputs feed); an edit to
    the split's module reruns the split and what its outputs feed."""
    root = built_sample_copy
    edit(
        root / "rucola/settings/corpus.py",
        "class Filter(Thresholds):\n",
        'class Filter(Thresholds):\n    max_digits: int | None = _key(None, "a new rule")\n',
    )
    assert ran(sh("dvc", "repro", cwd=root)) == ["fingerprint_code", "filter", "validate"]
    assert "up to date" in sh("dvc", "status", cwd=root)
    edit(root / "release/baseline.py", '"""', '"""A comment. ')  # baseline's alone
    assert ran(sh("dvc", "repro", cwd=root)) == ["fingerprint_code", "baseline"]
    # issue 43: a comment is no code; a language profile is code its lookers-up run
    prints = {p: p.read_bytes() for p in sorted((root / "reports/code").rglob("*.json"))}
    edit(root / "rucola/settings/corpus.py", "class Filter(Thresholds):\n", "# a comment\n\n&")
    edit(root / "rucola/settings/corpus.py", "&", "class Filter(Thresholds):  # and one\n")
    assert ran(sh("dvc", "repro", cwd=root)) == ["fingerprint_code"]
    assert {p: p.read_bytes() for p in prints} == prints
    edit(root / "corpus/languages/russian.py", '"""', '"""Changed. ')
    lock = yaml.safe_load((root / "dvc.lock").read_text(encoding="utf-8"))["stages"]
    changed = {p.relative_to(root).as_posix() for p in prints if p.read_bytes() != prints[p]}
    assert not changed  # not yet: the fingerprint stage writes them
    stages = ran(sh("dvc", "repro", cwd=root))
    changed = {p.relative_to(root).as_posix() for p in prints if p.read_bytes() != prints[p]}
    assert "reports/code/extract.json" in changed
    lookers = {name for name, stage in lock.items() if {d["path"] for d in stage["deps"]} & changed}
    assert stages[0] == "fingerprint_code" and set(stages[1:]) == lookers


@pytest.mark.slow
def test_a_fresh_clones_fingerprints_are_replaced_and_a_persons_file_is_not(tmp_path: Path):
    """A clone's files carry no record of their writer (git restores bytes only), and
    dvc.lock hashes the folder: a file holding a fingerprint is rucola's to replace; a
    person's file there is refused with one line, nothing removed."""
    from dvc_project import run

    root = code_copy(tmp_path)
    write(app, root)
    old = root / OUT_DIR / "split.json"
    text = old.read_text(encoding="utf-8")
    old.unlink()
    old.write_text(text.replace('"sha256": "', '"sha256": "0'), encoding="utf-8")  # no xattr
    assert run("rucola", "fingerprint", cwd=root).returncode == 0
    assert old.read_text(encoding="utf-8") == text
    foreign = root / OUT_DIR / "notes.json"
    foreign.write_text('{"mine": true}\n', encoding="utf-8")
    result = run("rucola", "fingerprint", cwd=root)
    assert result.returncode == 1 and "notes.json" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and foreign.exists()
