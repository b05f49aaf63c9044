"""``rucola generate NAME``: sources in, one candidates file out, resumable by shards.

The stage reads and samples the generator's sources, cuts the inputs into shards, runs the
worker (locally or through Ray) on every shard that is not already on disk, and
assembles the shards into ``<out_dir>/<name>.parquet``. Each shard's seed depends only on
its number, so a resumed run writes the same candidates as an uninterrupted one.

Accounting (``rucola.stage``): the row of this stage is the source sentence.

- ``read``: the sentences read from the generator's sources;
- ``kept``: those that gave at least one candidate (one sentence may give several: the
  candidates file holds ``candidates`` rows);
- ``set_aside``: the others, by reason: skipped when the source was read (``empty``,
  ``duplicate``, ``not_sampled``, ``control_character``, ``non_printing_character``;
  see ``generation.sources``), ``no_output`` (the generator returned nothing for it, e.g.
  no perturbation rule applies), or ``no_usable_output`` (every output was dropped).

What happened to the model's outputs is counted apart, in ``outputs``: ``total`` outputs,
of which ``dropped`` by reason (``same_as_source``, ``empty_output``, ``duplicate``,
``control_character``, ``non_printing_character``) and the rest became candidates.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from rucola.corpus.dedup import exact_duplicates
from rucola.corpus.normalize import normalize_text, text_fault
from rucola.corpus.schema import SET_ASIDE_SCHEMA
from rucola.errors import RucolaError
from rucola.generation.config import GeneratorConfig, generator_config
from rucola.generation.ray_engine import run_ray
from rucola.generation.schema import CANDIDATE_SCHEMA
from rucola.generation.shards import ShardStore, shard_seed
from rucola.generation.sources import Skipped, read_source
from rucola.io import stable_hash, write_parquet
from rucola.names import child
from rucola.ownership import file_sha256
from rucola.settings import Generate
from rucola.stage import StageRun

STAGE = "generate"
NO_OUTPUT = "no_output"
NO_USABLE_OUTPUT = "no_usable_output"
# Bumped when what a shard records changes, so shards of an older run are not trusted.
SHARD_FORMAT = "2"

__all__ = ["Item", "generate", "read_items", "shard_seed"]


@dataclass(frozen=True)
class Item:
    """One input: what the model reads and what the candidate records as its source."""

    source: str
    text: str
    source_sentence: str
    origin: str = ""  # file:line of the source sentence


def input_language(cfg: GeneratorConfig) -> str:
    """The language its method reads (translation: the source language)."""
    from rucola.generation.methods import method_of

    return method_of(cfg.method).input_language(cfg.settings)


def output_language(cfg: GeneratorConfig) -> str:
    """The language its method writes (translation: the target language)."""
    from rucola.generation.methods import method_of

    return method_of(cfg.method).output_language(cfg.settings)


def read_items(
    cfg: GeneratorConfig, generate: Generate, skipped: list[Skipped] | None = None
) -> tuple[list[Item], dict[str, Any]]:
    """The inputs of every source, and per source its counts; the sentences skipped on
    the way are appended to ``skipped`` when given."""
    lang = input_language(cfg)
    items: list[Item] = []
    counts: dict[str, Any] = {}
    for source_id in cfg.sources:
        try:
            read = read_source(source_id, generate.sources[source_id], cfg.seed, lang)
        except RucolaError as exc:
            exc.message = f"generator '{cfg.name}': {exc.message}"
            raise
        counts[source_id] = {"read": read.read, "used": len(read.sentences), **read.skipped}
        items += [Item(source_id, s.texts[lang], s.texts[lang], s.origin) for s in read.sentences]
        if skipped is not None:
            skipped += read.skipped_rows
    return items, counts


def _fingerprint(cfg: GeneratorConfig, items: list[Item], shard_size: int) -> str:
    settings = json.dumps(cfg.settings.model_dump(), sort_keys=True, default=str)
    texts = stable_hash(*(f"{i.source}\t{i.text}" for i in items), length=32)
    return stable_hash(
        SHARD_FORMAT, cfg.name, cfg.method, settings, str(cfg.seed), str(shard_size), texts
    )


def _rows(
    cfg: GeneratorConfig, items: list[Item], outputs: list[list[tuple[str, str]]]
) -> tuple[pa.Table, Counter[str]]:
    """The candidates of one shard and the outputs dropped, by reason."""
    table, stats = _shard(cfg, items, outputs)
    return table, Counter(stats["dropped"])


def _shard(
    cfg: GeneratorConfig, items: list[Item], outputs: list[list[tuple[str, str]]]
) -> tuple[pa.Table, dict[str, Any]]:
    """The candidates of one shard and what its manifest records: the model's outputs
    (``outputs``), those dropped by reason (``dropped``), and the inputs that gave no
    candidate (``unused``: position -> [reason, detail])."""
    dropped: Counter[str] = Counter()
    unused: dict[str, list[str | None]] = {}
    rows: dict[str, list[Any]] = {name: [] for name in CANDIDATE_SCHEMA.names}
    n_outputs = 0
    language = output_language(cfg)  # a candidate's text is in the language it writes
    for position, (item, outs) in enumerate(zip(items, outputs, strict=True)):
        n_outputs += len(outs)
        mine: Counter[str] = Counter()
        made = 0
        for generator, text in outs:
            fault = text_fault(text, language)  # a model can emit control characters too
            sentence = normalize_text(text, language) if fault is None else ""
            reason = (
                fault[0]
                if fault
                else "empty_output"
                if not sentence
                else "same_as_source"
                if sentence == item.source_sentence
                else None
            )
            if reason is not None:
                mine[reason] += 1
                continue
            made += 1
            rows["sentence"].append(sentence)
            rows["detailed_source"].append(item.source)
            rows["generator"].append(generator)
            rows["method"].append(cfg.method)
            rows["source_sentence"].append(item.source_sentence)
            rows["seed"].append(cfg.seed)
            rows["candidate_id"].append(stable_hash(sentence, generator, item.source_sentence))
        dropped.update(mine)
        if not outs:
            unused[str(position)] = [NO_OUTPUT, None]
        elif not made:
            unused[str(position)] = [NO_USABLE_OUTPUT, _detail(mine)]
    stats = {"outputs": n_outputs, "dropped": dict(sorted(dropped.items())), "unused": unused}
    return pa.table(rows, schema=CANDIDATE_SCHEMA), stats


def _detail(reasons: Counter[str]) -> str:
    return ", ".join(f"{reason}: {n}" for reason, n in sorted(reasons.items()))


def _run_local(
    worker: Any, shards: list[list[Item]], pending: list[int], seed: int, write: Callable
) -> None:
    for index in pending:
        texts = [item.text for item in shards[index]]
        write(index, worker(texts, shard_seed(seed, index)))


def _source_rows(skipped: list[Skipped], language: str) -> pa.Table:
    """Skipped source sentences as set-aside rows (no ``sentence`` for unprintable text);
    ``language``: the one they are read in (the method's input language)."""
    return pa.table(
        {
            "origin": [s.row.origin for s in skipped],
            "raw": [s.raw for s in skipped],
            "sentence": [
                None if text_fault(s.raw, language) else normalize_text(s.raw, language)
                for s in skipped
            ],
            "detailed_source": [s.row.source for s in skipped],
        }
    )


def _item_rows(items: list[Item]) -> pa.Table:
    return pa.table(
        {
            "origin": [i.origin for i in items],
            "raw": [i.text for i in items],
            "sentence": [i.source_sentence for i in items],
            "detailed_source": [i.source for i in items],
        }
    )


def _deduplicate(table: pa.Table) -> tuple[pa.Table, int]:
    """The first of every candidate id (shards in order); how many repeats were dropped."""
    first, _ = exact_duplicates(table.column("candidate_id").to_pylist())
    keep = (first == np.arange(len(first))).nonzero()[0]
    return table.take(pa.array(keep, type=pa.int64())), table.num_rows - len(keep)


def generate(
    name: str,
    settings: Generate,
    params_path: str | Path | None = None,
    progress: bool = False,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """Run generator ``name`` of ``settings``; return its report. ``stop_after`` shards
    simulates a kill; ``params_path`` is the file an unknown generator's error names
    (None: the one the command loaded).

    The candidates file, the report and the set-aside source sentences (in
    ``generate.rejected_dir``) appear together, after every shard is done; the shards are removed
    only then, so a run that fails at the end resumes from them."""
    g = settings
    cfg = generator_config(g, name, params_path)
    key = f"generate.generators[{name!r}]"
    out = child(g.out_dir, name, ".parquet", key)
    report_path = child(g.report_dir, name, ".json", key)
    rejected = child(g.rejected_dir, name, ".parquet", key)
    engine = g.engine
    run = StageRun(
        STAGE, report=report_path, out=out, rejected=rejected, set_aside_schema=SET_ASIDE_SCHEMA
    )
    if not cfg.enabled:
        with run:
            write_parquet(CANDIDATE_SCHEMA.empty_table(), run.path(out))
            return run.finish(
                generator=name,
                enabled=False,
                candidates=0,
                candidates_sha256=file_sha256(run.path(out)),
            )

    started = time.perf_counter()
    skipped: list[Skipped] = []
    items, source_counts = read_items(cfg, g, skipped)
    shard_size = g.shard_size
    shards = [items[i : i + shard_size] for i in range(0, len(items), shard_size)]
    store = ShardStore(
        child(g.work_dir, name, "", key), _fingerprint(cfg, items, shard_size), len(shards)
    )
    pending = [i for i in range(len(shards)) if not store.is_done(i)]
    resumed = len(shards) - len(pending)
    if stop_after is not None:
        pending = pending[:stop_after]

    bar = _progress_bar(progress, len(items), name, sum(len(shards[i]) for i in pending))

    def write(index: int, outputs: list[list[tuple[str, str]]]) -> None:
        table, stats = _shard(cfg, shards[index], outputs)
        store.write(index, table, stats)
        bar(len(shards[index]))

    if pending:
        if engine == "ray":
            run_ray(cfg, g.ray, g.cache_dir, shards, pending, write)
        else:
            from rucola.generation.methods import make_worker  # loads torch: only when used

            worker = make_worker(cfg, g.cache_dir)
            _run_local(worker, shards, pending, cfg.seed, write)
    bar(None)
    if stop_after is not None and store.completed < len(shards):
        return {"generator": name, "complete": False, "shards_done": store.completed}

    with run:
        run.count_read(sum(c["read"] for c in source_counts.values()))
        for reason in dict.fromkeys(s.reason for s in skipped):
            mine = [s for s in skipped if s.reason == reason]
            run.set_aside(_source_rows(mine, input_language(cfg)), reason, [s.detail for s in mine])
        table = store.read_all() if shards else CANDIDATE_SCHEMA.empty_table()
        table, repeats = _deduplicate(table)
        report = _account(run, shards, store, table, repeats)
        write_parquet(table, run.path(out))
        # merge_candidates depends on the reports, not on the folder of candidates, which
        # other configurations fill: this hash is how it sees the candidates change
        report["candidates_sha256"] = file_sha256(run.path(out))
        report = run.finish(
            generator=name,
            enabled=True,
            method=cfg.method,
            engine=engine,
            sources=source_counts,
            inputs=len(items),
            shards=len(shards),
            shards_resumed=resumed,
            **report,
        )
    store.remove()
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report


def _account(
    run: StageRun,
    shards: list[list[Item]],
    store: ShardStore,
    table: pa.Table,
    repeats: int,
) -> dict[str, Any]:
    """Count every input as kept or set aside; the report's figures on the outputs."""
    produced = set(
        zip(
            table.column("detailed_source").to_pylist(),
            table.column("source_sentence").to_pylist(),
            strict=True,
        )
    )
    outputs = 0
    dropped: Counter[str] = Counter()
    aside: dict[str, list[tuple[Item, str | None]]] = {}
    kept = 0
    for index, stats in enumerate(store.stats()):
        outputs += int(stats["outputs"])
        dropped.update(stats["dropped"])
        for position, item in enumerate(shards[index]):
            if (item.source, item.source_sentence) in produced:
                kept += 1
                continue
            # no candidate in its shard, or only candidates that repeat earlier ones
            reason, detail = stats["unused"].get(str(position), [NO_USABLE_OUTPUT, "duplicate"])
            aside.setdefault(reason, []).append((item, detail))
    if repeats:
        dropped["duplicate"] += repeats
    run.count_kept(kept)
    for reason, entries in aside.items():
        run.set_aside(_item_rows([i for i, _ in entries]), reason, [d for _, d in entries])
    return {
        "candidates": table.num_rows,
        "outputs": {"total": outputs, "dropped": dict(sorted(dropped.items()))},
        "by_generator": dict(sorted(Counter(table.column("generator").to_pylist()).items())),
    }


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
