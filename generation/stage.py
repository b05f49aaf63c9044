"""``rucola generate NAME``: sources in, one candidates file out, resumable by shards.

The stage reads and samples the generator's sources, cuts the inputs into shards, runs the
worker (locally or through Ray) on every shard that is not already on disk, and
assembles the shards into ``<out_dir>/<name>.parquet``. Each shard's seed depends only on
its number, so a resumed run writes the same candidates as an uninterrupted one.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from rucola.corpus.normalize import normalize_text, text_fault
from rucola.errors import RucolaError
from rucola.generation.config import GeneratorConfig, generator_config
from rucola.generation.schema import CANDIDATE_SCHEMA
from rucola.generation.shards import ShardStore
from rucola.generation.sources import read_source
from rucola.io import stable_hash, write_json, write_parquet
from rucola.names import child

ENGINES = ["local", "ray"]


@dataclass(frozen=True)
class Item:
    """One input: what the model reads and what the candidate records as its source."""

    source: str
    text: str
    source_sentence: str


def input_language(cfg: GeneratorConfig) -> str:
    """Translation reads the source language; every other method reads Russian."""
    return cfg["src_lang"] if cfg.method == "translation" else cfg["tgt_lang"]


def read_items(
    cfg: GeneratorConfig, generate: dict[str, Any], params_path: str | Path
) -> tuple[list[Item], dict[str, Any]]:
    lang = input_language(cfg)
    items: list[Item] = []
    counts: dict[str, Any] = {}
    for source_id in cfg.sources:
        try:
            read = read_source(
                source_id, generate["sources"][source_id], cfg.seed, lang, params_path
            )
        except RucolaError as exc:
            exc.message = f"generator '{cfg.name}': {exc.message}"
            raise
        counts[source_id] = {"read": read.read, "used": len(read.sentences), **read.skipped}
        items += [Item(source_id, s.texts[lang], s.texts[lang]) for s in read.sentences]
    return items, counts


def shard_seed(seed: int, index: int) -> int:
    return int(stable_hash(str(seed), str(index), length=8), 16)


def _fingerprint(cfg: GeneratorConfig, items: list[Item], shard_size: int) -> str:
    settings = json.dumps(cfg.settings, sort_keys=True, default=str)
    texts = stable_hash(*(f"{i.source}\t{i.text}" for i in items), length=32)
    return stable_hash(cfg.name, cfg.method, settings, str(cfg.seed), str(shard_size), texts)


def _rows(
    cfg: GeneratorConfig, items: list[Item], outputs: list[list[tuple[str, str]]]
) -> tuple[pa.Table, Counter[str]]:
    dropped: Counter[str] = Counter()
    rows: dict[str, list[Any]] = {name: [] for name in CANDIDATE_SCHEMA.names}
    for item, outs in zip(items, outputs, strict=True):
        if not outs:
            dropped["no_output"] += 1
        for generator, text in outs:
            fault = text_fault(text)  # a model can emit control characters too
            if fault:
                dropped[fault[0]] += 1
                continue
            sentence = normalize_text(text)
            if not sentence:
                dropped["empty_output"] += 1
                continue
            if sentence == item.source_sentence:
                dropped["same_as_source"] += 1
                continue
            rows["sentence"].append(sentence)
            rows["detailed_source"].append(item.source)
            rows["generator"].append(generator)
            rows["method"].append(cfg.method)
            rows["source_sentence"].append(item.source_sentence)
            rows["seed"].append(cfg.seed)
            rows["candidate_id"].append(stable_hash(sentence, generator, item.source_sentence))
    return pa.table(rows, schema=CANDIDATE_SCHEMA), dropped


def _run_local(
    worker: Any, shards: list[list[Item]], pending: list[int], seed: int, write: Callable
) -> None:
    for index in pending:
        texts = [item.text for item in shards[index]]
        write(index, worker(texts, shard_seed(seed, index)))


def generate(
    name: str,
    generate_params: dict[str, Any],
    params_path: str | Path = "params.yaml",
    progress: bool = False,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """Run generator ``name``; return its report. ``stop_after`` shards simulates a kill."""
    g = generate_params
    cfg = generator_config(g, name, params_path)
    key = f"generate.generators[{name!r}]"
    out = child(g["out_dir"], name, ".parquet", key)
    report_path = child(g["report_dir"], name, ".json", key)
    engine = g["engine"]
    if engine not in ENGINES:
        raise RucolaError(f"generate.engine must be one of {', '.join(ENGINES)}", params_path)
    if not cfg.enabled:
        write_parquet(CANDIDATE_SCHEMA.empty_table(), out)
        report = {"generator": name, "enabled": False, "candidates": 0}
        write_json(report, report_path)
        return report

    started = time.perf_counter()
    items, source_counts = read_items(cfg, g, params_path)
    shard_size = int(g["shard_size"])
    shards = [items[i : i + shard_size] for i in range(0, len(items), shard_size)]
    store = ShardStore(
        child(g["work_dir"], name, "", key), _fingerprint(cfg, items, shard_size), len(shards)
    )
    pending = [i for i in range(len(shards)) if not store.is_done(i)]
    resumed = len(shards) - len(pending)
    if stop_after is not None:
        pending = pending[:stop_after]

    dropped: Counter[str] = Counter()
    bar = _progress_bar(progress, len(items), name, sum(len(shards[i]) for i in pending))

    def write(index: int, outputs: list[list[tuple[str, str]]]) -> None:
        table, shard_dropped = _rows(cfg, shards[index], outputs)
        store.write(index, table, dict(shard_dropped))
        bar(len(shards[index]))

    if pending:
        if engine == "ray":
            from rucola.generation.ray_engine import run_ray

            run_ray(cfg, g, shards, pending, write)
        else:
            from rucola.generation.workers import make_worker

            worker = make_worker(cfg, str(g["cache_dir"]))
            _run_local(worker, shards, pending, cfg.seed, write)
    bar(None)
    if stop_after is not None and store.completed < len(shards):
        return {"generator": name, "complete": False, "shards_done": store.completed}

    table = store.read_all() if shards else CANDIDATE_SCHEMA.empty_table()
    for stats in store.stats():
        dropped.update(stats)
    ids = table.column("candidate_id").to_pylist()
    first: dict[str, int] = {}
    keep = []
    for position, cid in enumerate(ids):
        if cid in first:
            dropped["duplicate"] += 1
        else:
            first[cid] = position
            keep.append(position)
    table = table.take(pa.array(keep, type=pa.int64()))
    write_parquet(table, out)
    report = {
        "generator": name,
        "enabled": True,
        "method": cfg.method,
        "engine": engine,
        "sources": source_counts,
        "inputs": len(items),
        "shards": len(shards),
        "shards_resumed": resumed,
        "candidates": table.num_rows,
        "dropped": dict(sorted(dropped.items())),
        "by_generator": dict(sorted(Counter(table.column("generator").to_pylist()).items())),
    }
    write_json(report, report_path)
    store.remove()
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report


def _progress_bar(enabled: bool, total: int, name: str, todo: int) -> Callable[[int | None], None]:
    if not enabled or not todo:
        return lambda n: None
    from rich.progress import Progress

    progress = Progress(transient=True)
    task = progress.add_task(f"generate {name}", total=total, completed=total - todo)
    progress.start()

    def advance(n: int | None) -> None:
        if n is None:
            progress.stop()
        else:
            progress.advance(task, n)

    return advance
