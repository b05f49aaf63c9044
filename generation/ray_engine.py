"""``generate.engine: ray``: the same worker in a Ray Data actor pool, one actor per GPU.

Ray Data streams the inputs through ``map_batches`` with a pool of actors, each holding
one loaded model (``generate.ray.gpus_per_actor`` GPUs each, ``generate.ray.actors`` of
them), and streams results back in input order. Finished shards are written as they
complete, so a killed Ray run resumes like a local one. ``generate.ray.address`` joins an
existing cluster (whose nodes have this package installed); without it a local Ray
instance is started. With greedy or beam decoding the candidates equal the local
engine's; sampled output depends on how inputs fall into batches.

Ray puts the driver's working directory first on every worker's ``sys.path`` (so that a
script's own modules import there), and ``rucola`` runs from the repository root, whose
``rucola/`` folder is only part of the package (``pyproject.toml`` maps ``generation/``,
``corpus/`` and the others into it). With a non-editable install (``pip install .``) the
workers imported that folder instead of the installed package and died with ``No module
named 'rucola.generation'``. So this module travels to the workers by value (Ray's
cloudpickle, :func:`_by_value`), the actor class imports nothing of ``rucola`` before
:func:`_installed_package_first` has taken such a folder off the worker's ``sys.path``,
and only then imports the worker's code, from wherever the worker's Python has the package
installed (site-packages, or the editable install's own finder).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rucola.generation.config import GeneratorConfig
    from rucola.settings import Ray

PACKAGE = "rucola"
# A part of the package only the mapping in pyproject.toml puts inside it: a ``rucola/``
# folder without it (the repository's) is not the package.
MAPPED_PART = "generation"


def _shadows_package(entry: str) -> bool:
    """Whether ``sys.path`` entry ``entry`` holds a ``rucola/`` folder that is not the
    whole package (the repository root: ``rucola/`` without ``generation/``)."""
    folder = os.path.join(entry or os.curdir, PACKAGE)
    return os.path.isdir(folder) and not os.path.isdir(os.path.join(folder, MAPPED_PART))


def _installed_package_first() -> list[str]:
    """Take every ``sys.path`` entry that would import a partial ``rucola`` off this
    process's path (and forget such a ``rucola`` if one was imported); returns them.
    Runs in a Ray worker before it imports anything of the package."""
    shadowing = [entry for entry in sys.path if _shadows_package(entry)]
    if not shadowing:
        return []
    sys.path[:] = [entry for entry in sys.path if entry not in shadowing]
    loaded = sys.modules.get(PACKAGE)
    origin = getattr(loaded, "__file__", None) or ""
    roots = [os.path.abspath(entry or os.curdir) + os.sep for entry in shadowing]
    if origin and os.path.abspath(origin).startswith(tuple(roots)):
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]
    return shadowing


class _GenerateActor:
    """Holds one worker for the actor's lifetime; Ray calls it once per batch.

    The generator's settings cross the process boundary as plain data (``model_dump()``)
    and are rebuilt into the schema's model here, so an actor needs nothing pickled but
    builtins; the class itself travels by value (:func:`_by_value`) and imports the
    package only once the worker's ``sys.path`` finds the installed one."""

    def __init__(self, name: str, settings: dict[str, Any], seed: int, cache_dir: str) -> None:
        _installed_package_first()
        from rucola.generation.config import GeneratorConfig
        from rucola.generation.methods import make_worker, method_of

        model = method_of(settings["method"]).Settings
        cfg = GeneratorConfig(name, model.model_validate(settings), seed)
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

    from rucola.generation.shards import shard_seed

    _by_value(ray)
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


def _by_value(ray: Any) -> None:
    """Pickle this module's functions and classes by value, not as ``rucola.generation.
    ray_engine.NAME``: a worker unpickling a reference would import the package from the
    first ``sys.path`` entry that holds a ``rucola/``, before :func:`_installed_package_first`
    could run (the module's own imports of the package are inside its functions for the
    same reason)."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
