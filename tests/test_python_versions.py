"""Python 3.11 to 3.13: the pieces that let each version install the pinned set and pick its
own venv stay honest.

The pipeline itself runs on 3.13 in CI (``.ci/python313``: ``pip install .`` and ``dvc repro``
of the sample, outputs checked against ``dvc.lock``); these fast tests cover what that step
and ``make`` rely on: no upper bound on ``requires-python``, every dependency pinned (an
unpinned one resolves differently per version: setuptools, needed by pymorphy3 on 3.12+,
was), a venv of another version refused, and the CI step failing rather than skipping.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_requires_python_admits_311_to_313_with_no_upper_bound():
    spec = SpecifierSet(PROJECT["requires-python"])
    assert [v for v in ("3.11", "3.12", "3.13", "3.99") if v in spec] == [
        "3.11",
        "3.12",
        "3.13",
        "3.99",
    ]
    assert "3.10" not in spec
    tested = {c.rsplit(" ", 1)[-1] for c in PROJECT["classifiers"] if c.count(".") == 1}
    assert tested == {"3.11", "3.12", "3.13"}


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (ROOT / "requirements/constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", line
            assert canonicalize_name(req.name) not in pins, f"pinned twice: {line}"
            pins[canonicalize_name(req.name)] = spec.version
    return pins


def _installed_closure() -> dict[str, str]:
    """Every installed distribution rucola (with its extras) pulls in, by this Python's
    markers: name -> version. Extras that are not installed here are skipped."""
    found: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [("rucola", frozenset(PROJECT["optional-dependencies"]))]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if (key, extras) in seen:
            continue
        seen.add((key, extras))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found[key] = dist.version
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is None or any(
                req.marker.evaluate({"extra": extra}) for extra in extras | {""}
            ):
                todo.append((req.name, frozenset(req.extras)))
    found.pop("rucola")
    return found


def test_every_installed_dependency_is_pinned_at_its_version():
    pins = _pins()
    installed = _installed_closure()
    assert len(installed) > 100  # the walk found the tree, not just the direct pins
    unpinned = sorted(name for name in installed if name not in pins)
    assert not unpinned, f"add to requirements/constraints.txt: {unpinned}"
    wrong = {
        name: (version, pins[name])
        for name, version in installed.items()
        if Version(version).public != Version(pins[name]).public  # 2.13.0+cpu is 2.13.0
    }
    assert not wrong, f"installed != pinned: {wrong}"


def _fake_venv(tmp_path: Path, version: str) -> Path:
    """A folder whose bin/python answers the version query with ``version``."""
    venv = tmp_path / f"venv-{version}"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f"#!/bin/sh\necho {version}\n", encoding="utf-8")
    python.chmod(0o755)
    return venv


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "VENV", "MAKEFLAGS")}
    return subprocess.run(
        ["make", "-s", "-C", str(ROOT), "venv-python", *args],
        env=env,
        capture_output=True,
        text=True,
    )


def test_make_refuses_a_venv_made_by_another_python(tmp_path):
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    other = _fake_venv(tmp_path, "3.99")
    refused = _make(f"VENV={other}", f"PYTHON={sys.executable}")
    assert refused.returncode != 0
    assert f"has Python 3.99, PYTHON={sys.executable} is {here}" in refused.stderr
    # the same venv without PYTHON named is used as it is; a matching one is fine
    assert _make(f"VENV={other}").returncode == 0
    same = _fake_venv(tmp_path, here)
    assert _make(f"VENV={same}", f"PYTHON={sys.executable}").returncode == 0
    # a PYTHON that does not run is an error too, not a venv made by python3
    broken = _make(f"VENV={tmp_path / 'none'}", f"PYTHON={tmp_path / 'no-python'}")
    assert broken.returncode != 0 and "does not run" in broken.stderr


def test_ci_runs_the_313_step_which_fails_without_python_313(tmp_path):
    steps = (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
    assert steps[-2:] == ["make test PYTHON=python3.11", ".ci/python313"]
    not_313 = tmp_path / "python3.13"  # a Python that fails the version check
    not_313.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    not_313.chmod(0o755)
    result = subprocess.run(
        [str(ROOT / ".ci/python313")],
        env=dict(os.environ, PYTHON313=str(not_313)),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert f"error: .ci/python313: PYTHON313={not_313} is not a working Python 3.13" in (
        result.stderr
    )
