"""The Ray engine on a local Ray instance (CPU): same candidates as the local engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rucola.generation.stage import generate
from rucola.settings import Generate

pytestmark = pytest.mark.slow


def typed(g: dict) -> Generate:
    """The ``generate`` section a test wrote, as the stage receives it."""
    return Generate.model_validate(g)


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_engine_matches_local_engine_with_greedy_decoding(
    tmp_path: Path, sources, generate_params, tiny_models, local_ray
):
    generator = {
        "method": "translation",
        "model": str(tiny_models["marian"]),
        "sources": ["Par"],
        "device": "cpu",
        "decoding": {"strategy": "greedy", "max_new_tokens": 8},
    }
    ray_settings = {"address": None, "actors": 2, "gpus_per_actor": 0, "batch_size": 1}
    local = generate_params(tmp_path / "local", sources, {"g": generator}, shard_size=3)
    distributed = generate_params(
        tmp_path / "ray", sources, {"g": generator}, shard_size=3, engine="ray", ray=ray_settings
    )
    generate("g", typed(local))
    report = generate("g", typed(distributed))
    assert report["engine"] == "ray" and report["shards"] == 2
    assert (tmp_path / "ray/candidates/g.parquet").read_bytes() == (
        tmp_path / "local/candidates/g.parquet"
    ).read_bytes()


def test_ray_engine_resumes_from_local_shards(
    tmp_path: Path, sources, generate_params, tiny_models, local_ray
):
    generator = {"method": "perturbation", "sources": ["Wiki"]}
    whole = generate_params(tmp_path / "a", sources, {"p": generator}, shard_size=1)
    generate("p", typed(whole))
    g = generate_params(tmp_path / "b", sources, {"p": generator}, shard_size=1)
    generate("p", typed(g), stop_after=1)
    g["engine"] = "ray"
    report = generate("p", typed(g))
    assert report["shards_resumed"] == 1
    assert (tmp_path / "b/candidates/p.parquet").read_bytes() == (
        tmp_path / "a/candidates/p.parquet"
    ).read_bytes()


# The driver of a real run: `rucola generate` starts Ray itself, from the working directory.
DRIVER = """\
import json, sys
from rucola.generation.stage import generate
from rucola.settings import Generate

report = generate("p", Generate.model_validate(json.loads(sys.argv[1])))
print(json.dumps({"engine": report["engine"], "shards": report["shards"]}))
"""


def test_workers_import_the_installed_package_not_a_rucola_folder_in_the_working_directory(
    tmp_path: Path, sources, generate_params
):
    """Ray puts the driver's working directory first on each worker's sys.path. Run from
    the repository root with a non-editable install (`pip install .`), the workers imported
    the repository's `rucola/` folder, which holds only part of the package, and died with
    "No module named 'rucola.generation'". Here the working directory holds a `rucola/`
    that is not the package (it fails on import), as the repository's is not the installed
    one: the workers must import the package the driver's Python has installed."""
    pytest.importorskip("ray")
    repository = tmp_path / "repository"
    (repository / "rucola").mkdir(parents=True)
    (repository / "rucola/__init__.py").write_text(
        'raise ImportError("a rucola/ folder in the working directory was imported")\n',
        encoding="utf-8",
    )
    script = tmp_path / "driver" / "generate_with_ray.py"
    script.parent.mkdir()
    script.write_text(DRIVER, encoding="utf-8")
    generator = {"method": "perturbation", "sources": ["Wiki"]}
    local = generate_params(tmp_path / "local", sources, {"p": generator}, shard_size=1)
    generate("p", typed(local))
    ray_settings = {"address": None, "actors": 1, "gpus_per_actor": 0, "batch_size": 2}
    g = generate_params(
        tmp_path / "ray", sources, {"p": generator}, shard_size=1, engine="ray", ray=ray_settings
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, str(script), json.dumps(g)],
        cwd=repository,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"engine": "ray", "shards": 3}
    assert (tmp_path / "ray/candidates/p.parquet").read_bytes() == (
        tmp_path / "local/candidates/p.parquet"
    ).read_bytes()


def test_only_a_partial_rucola_folder_is_taken_off_the_path(tmp_path, monkeypatch):
    """The repository root (`rucola/` without `generation/`) leaves a worker's sys.path,
    and the partial package it imported is forgotten; an installed package stays."""
    from rucola.generation import ray_engine

    repository, installed, other = tmp_path / "repository", tmp_path / "site", tmp_path / "o"
    (repository / "rucola").mkdir(parents=True)
    (repository / "rucola/__init__.py").write_text("", encoding="utf-8")
    (installed / "rucola/generation").mkdir(parents=True)
    other.mkdir()
    path = [str(repository), str(installed), str(other)]
    monkeypatch.setattr(sys, "path", list(path))
    partial = type(sys)("rucola")
    partial.__file__ = str(repository / "rucola/__init__.py")
    modules = {"rucola": partial, "rucola.settings": type(sys)("rucola.settings")}
    monkeypatch.setattr(sys, "modules", {**sys.modules, **modules})
    assert ray_engine._installed_package_first() == [str(repository)]
    assert sys.path == [str(installed), str(other)]
    assert "rucola" not in sys.modules and "rucola.settings" not in sys.modules
    assert ray_engine._installed_package_first() == []
