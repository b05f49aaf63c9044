"""The Ray engine on a local Ray instance (CPU): same candidates as the local engine."""

from __future__ import annotations

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
