"""Installing the project adds one import name, ``rucola``, and nothing else.

The stage folders (``corpus/``, ``annotation/``, ``generation/``, ``validation/``,
``release/``) stay at the top of the repository and are mapped into the package by
``pyproject.toml``; a wheel built from a copy of the sources must hold them under
``rucola/`` only, with the dataset card's template beside ``rucola/release/`` and the
offline Data Docs' vendored scripts beside ``rucola/validation/``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from dvc_project import build_wheel

from rucola.import_graph import package_dirs

ROOT = Path(__file__).resolve().parents[1]
# The folders pyproject's package-dir maps into rucola (corpus/, curation/, ...).
FOLDERS = sorted({path.relative_to(ROOT).as_posix() for path in package_dirs().values()})


@pytest.mark.slow
def test_wheel_exposes_only_rucola(tmp_path):
    wheel = build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"rucola", next(t for t in top if t.endswith(".dist-info"))}
    modules = {name for name in names if name.endswith(".py")}
    for folder in (f for f in FOLDERS if f != "rucola"):
        expected = {
            f"rucola/{path.relative_to(ROOT).as_posix()}"
            for path in (ROOT / folder).rglob("*.py")
            if "__pycache__" not in path.parts
        }
        assert expected <= modules, sorted(expected - modules)[:5]
    assert "rucola/release/templates/card.md.j2" in names
    # what `rucola init` lays out with no checkout of this repository (issue 46): the
    # presets, the corpus repository's templates, and the sample the sample preset reads
    for preset in sorted((ROOT / "rucola/presets").glob("*.yaml")):
        assert f"rucola/presets/{preset.name}" in names, preset.name
    for template in sorted((ROOT / "rucola/corpus_template").iterdir()):
        assert f"rucola/corpus_template/{template.name}" in names, template.name
    sample = {
        f"rucola/sample/{path.relative_to(ROOT / 'data/sample').as_posix()}"
        for path in (ROOT / "data/sample").rglob("*")
        if path.is_file()
    }
    assert sample <= set(names), sorted(sample - set(names))
    # the offline Data Docs' bootstrap-table (validation/vendor/), which no wheel ships
    vendor = "rucola/validation/vendor/bootstrap-table"
    for name in ("bootstrap-table.min.js", "LICENSE", "extensions/filter-control/"):
        assert any(n.startswith(f"{vendor}/{name}") for n in names), name
    (dist_info,) = {t for t in top if t.endswith(".dist-info")}
    assert "rucola" in zipfile.ZipFile(wheel).read(f"{dist_info}/entry_points.txt").decode()
