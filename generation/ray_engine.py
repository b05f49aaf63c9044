"""``generate.engine: ray``: the same worker in a Ray Data actor pool, one actor per GPU.

Ray Data streams the inputs through ``map_batches`` with a pool of actors, each holding
one loaded model (``generate.ray.gpus_per_actor`` GPUs each, ``generate.ray.actors`` of
them), and streams results back in input order. Finished shards are written as they
complete, so a killed Ray run resumes like a local one. ``generate.ray.address`` joins an
existing cluster (whose nodes have this package installed); without it a local Ray
instance is started. With greedy or beam decoding the candidates equal the local
engine's; sampled output depends on how inputs fall into batches.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rucola.generation.config import GeneratorConfig
from rucola.generation.shards import shard_seed
from rucola.settings import Generator, Ray


class _GenerateActor:
    """Holds one worker for the actor's lifetime; Ray calls it once per batch.

    The generator's settings cross the process boundary as plain data (``model_dump()``)
    and are rebuilt into the schema's model here, so an actor needs nothing pickled but
    builtins."""

    def __init__(self, name: str, settings: dict[str, Any], seed: int, cache_dir: str) -> None:
        from rucola.generation.workers import make_worker

        cfg = GeneratorConfig(name, Generator.model_validate(settings), seed)
        self.worker = make_worker(cfg, cache_dir)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        texts = [str(t) for t in batch["text"]]
        seed = int(batch["seed"][0])
        outputs = self.worker(texts, seed)
        return {
            "shard": batch["shard"],
            "position": batch["position"],
            "outputs": [json.dumps(out, ensure_ascii=False) for out in outputs],
        }


def run_ray(
    cfg: GeneratorConfig,
    settings: Ray,
    cache_dir: str,
    shards: list[list[Any]],
    pending: list[int],
    write: Callable[[int, list[list[tuple[str, str]]]], None],
) -> None:
    """Run ``cfg``'s worker on the ``pending`` shards in a Ray actor pool sized by
    ``settings`` (``generate.ray``); ``write`` receives each shard once it is complete."""
    import ray

    if not ray.is_initialized():
        ray.init(
            address=settings.address,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    rows = [
        {
            "shard": index,
            "position": position,
            "text": item.text,
            "seed": shard_seed(cfg.seed, index),
        }
        for index in pending
        for position, item in enumerate(shards[index])
    ]
    dataset = ray.data.from_items(rows).map_batches(
        _GenerateActor,
        fn_constructor_args=(cfg.name, cfg.settings.model_dump(), cfg.seed, cache_dir),
        batch_size=settings.batch_size,
        batch_format="numpy",
        concurrency=settings.actors,
        num_gpus=float(settings.gpus_per_actor) or None,
    )
    collected: dict[int, dict[int, list[tuple[str, str]]]] = {}
    for row in dataset.iter_rows():
        shard = int(row["shard"])
        outs = [tuple(pair) for pair in json.loads(row["outputs"])]
        collected.setdefault(shard, {})[int(row["position"])] = outs  # type: ignore[assignment]
        if len(collected[shard]) == len(shards[shard]):
            done = collected.pop(shard)
            write(shard, [done[i] for i in range(len(done))])
