"""Code fingerprints of an installed package (issue 46): a corpus repository has no
``pyproject.toml`` and runs a wheel, whose modules lie under ``rucola/corpus/...`` where
this checkout has ``corpus/...``. A record names modules and package data, not paths, so
the same code gives the same bytes in both layouts (docs/extending.md, "Code
fingerprints"), and ``rucola fingerprint`` reads the installed code there."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dvc_project import ROOT, build_wheel, installed_copy

from rucola.cli import app
from rucola.code_fingerprint import (
    INPUT_DATA,
    OUT_DIR,
    PACKAGE_DATA,
    VERSION_FILE,
    commands,
    fingerprint,
    fingerprints,
)
from rucola.import_graph import ROOT as PACKAGE_ROOT
from rucola.import_graph import (
    code_root,
    is_checkout,
    modules,
    package_dirs,
    package_folder,
)

# A key that names a file by its path (``corpus/extract.py``): never one in a record.
PATH_KEY = re.compile(r"/.*\.py\b")


def test_code_keys_are_module_names_and_package_data_keys_are_package_relative():
    record = fingerprint("release build", commands(app)["release build"], ROOT)
    known = modules(ROOT)
    data = [key for key in record["code"] if key not in known]
    assert "rucola.release.card" in record["code"] and "rucola.corpus" in record["code"]
    assert "rucola.release/templates/card.md.j2" in data
    for key in data:
        package, _, relative = key.partition("/")
        assert package in known and known[package].is_package, key
        assert (package_folder(package, ROOT) / relative).is_file(), key
    assert not [key for key in [*record["code"], *record["settings"]] if PATH_KEY.search(key)]


def test_every_package_data_pattern_names_a_package():
    for patterns in [*PACKAGE_DATA.values(), *INPUT_DATA.values()]:
        for pattern in patterns:
            package, _, glob = pattern.partition("/")
            assert glob and package_folder(package, ROOT).is_dir(), pattern
            known = modules(ROOT).get(package)
            # a package of modules, or one of data only (the sample) that pyproject maps
            assert (known and known.is_package) or package in package_dirs(ROOT), pattern


def test_the_installed_layout_gives_the_checkouts_records(tmp_path: Path):
    site = installed_copy(tmp_path / "site")
    assert not is_checkout(site)
    assert package_dirs(site) == {"rucola": site / "rucola"}
    assert package_folder("rucola.release", site) == site / "rucola/release"
    assert set(modules(site)) == set(modules(ROOT))
    assert fingerprints(app, site) == fingerprints(app, ROOT)


def test_the_code_root_is_a_checkout_run_in_else_the_running_package(tmp_path: Path):
    assert code_root(ROOT) == ROOT and is_checkout(ROOT)
    assert code_root(tmp_path) == PACKAGE_ROOT  # no pyproject.toml: the installed code
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "my-corpus"\n', "utf-8")
    assert not is_checkout(tmp_path) and code_root(tmp_path) == PACKAGE_ROOT
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", checkout / "pyproject.toml")
    assert code_root(checkout) == checkout


@pytest.mark.slow
def test_a_corpus_repository_with_the_wheel_writes_the_committed_records(tmp_path: Path):
    """``rucola fingerprint`` in a folder with no ``pyproject.toml``, the wheel installed
    apart (PYTHONPATH before this venv's editable install): every file it writes is this
    checkout's committed file, byte for byte, and names modules, never paths."""
    site = tmp_path / "site"
    install = ["-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
    subprocess.run([sys.executable, *install, str(build_wheel(tmp_path))], check=True)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "COLUMNS": "200"}

    def python(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], cwd=corpus, env=env, capture_output=True, text=True
        )

    where = python("-c", "import rucola; print(rucola.__file__)")
    assert Path(where.stdout.strip()).resolve() == (site / "rucola/__init__.py").resolve()
    result = python("-m", "rucola", "fingerprint")
    assert result.returncode == 0, result.stderr
    written = sorted(p.relative_to(corpus).as_posix() for p in (corpus / OUT_DIR).rglob("*"))
    committed = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / OUT_DIR).rglob("*"))
    assert written == committed
    for name in (n for n in written if n.endswith(".json")):
        assert (corpus / name).read_bytes() == (ROOT / name).read_bytes(), name
        record = json.loads((corpus / name).read_text(encoding="utf-8"))
        if name.endswith(VERSION_FILE):
            continue  # {"rucola": version}: no code
        assert not [k for k in [*record["code"], *record["settings"]] if PATH_KEY.search(k)]
    assert python("-m", "rucola", "fingerprint", "--check").returncode == 0
    assert not (corpus / "pyproject.toml").exists()
    # and `rucola init` works from the wheel alone: the presets, the templates and the
    # sample are package data (issue 46, item 5)
    made = tmp_path / "made"
    result = subprocess.run(
        [sys.executable, "-m", "rucola", "init", str(made), "--preset", "sample"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    for name in ("corpus.yaml", "params.yaml", "dvc.yaml", ".rucola/tool.json"):
        assert (made / name).is_file(), name
    assert (made / "data/sample/README.md").read_bytes() == (
        ROOT / "data/sample/README.md"
    ).read_bytes()
    for name in (n for n in committed if n.endswith(".json")):
        assert (made / name).read_bytes() == (ROOT / name).read_bytes(), name
