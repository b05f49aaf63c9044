"""The merge step: every enabled generator's candidates in one file for the next stages.

Only generators named in params are read, so a stale file from a generator that was
removed from ``params.yaml`` cannot slip into the corpus.

Accounting (``rucola.stage``): ``read`` is the candidates of every enabled generator,
``kept`` those written, ``set_aside`` the ``duplicate`` candidates: a candidate id that an
earlier generator (in name order) already gave, e.g. two generators with the same rule or
model on the same source. The next stages key candidates by id (``annotate corpus``
refuses a repeated one), so only the first is kept; its generator is the detail. The same
sentence from two different generators has two ids and is kept twice (screening handles
near and exact repeats with the in-domain set).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from rucola.corpus.dedup import exact_duplicates
from rucola.corpus.schema import SET_ASIDE_SCHEMA
from rucola.errors import RucolaError
from rucola.generation.schema import CANDIDATE_SCHEMA
from rucola.names import child
from rucola.settings import Generate, Merge
from rucola.stage import StageRun, read_table

STAGE = "merge_candidates"
DUPLICATE = "duplicate"


def read_candidates(path: Path, name: str) -> pa.Table:
    """One generator's candidates, exactly in the candidate schema."""
    hint = f"run `rucola generate {name}`"
    if not path.is_file():
        raise RucolaError(f"no candidates for generator '{name}'", path, hint=hint)
    table = read_table(path, f"candidates of generator '{name}'", hint=hint)
    if table.schema.names != CANDIDATE_SCHEMA.names:
        raise RucolaError(f"not a candidates file (columns {', '.join(table.schema.names)})", path)
    return table.cast(CANDIDATE_SCHEMA)


def merge_candidates(generate: Generate, merge: Merge | None = None) -> dict[str, Any]:
    """Merge the candidates of every enabled generator of ``generate`` into ``merge.out``
    (``merge``: where to write, by default ``generate.merge``); return the report."""
    merge = merge if merge is not None else generate.merge
    run = StageRun(
        STAGE,
        report=merge.report,
        out=merge.out,
        rejected=merge.rejected,
        set_aside_schema=SET_ASIDE_SCHEMA,
    )
    tables = []
    names: list[str] = []
    per_generator: dict[str, int] = {}
    for name in sorted(generate.generators):
        if not generate.generators[name].enabled:
            continue
        path = child(generate.out_dir, name, ".parquet", f"generate.generators[{name!r}]")
        table = read_candidates(path, name)
        tables.append(table)
        names += [name] * table.num_rows
        per_generator[name] = table.num_rows
    table = pa.concat_tables(tables) if tables else CANDIDATE_SCHEMA.empty_table()
    with run:
        run.count_read(table.num_rows)
        table = _set_aside_duplicates(run, table, names)
        sentences = Counter(table.column("sentence").to_pylist())
        return run.finish(
            table,
            CANDIDATE_SCHEMA,
            candidates=table.num_rows,
            by_generator_config=per_generator,
            by_method=_counts(table, "method"),
            by_source=_counts(table, "detailed_source"),
            sentences_from_several_generators=sum(1 for n in sentences.values() if n > 1),
        )


def _counts(table: pa.Table, column: str) -> dict[str, int]:
    return dict(sorted(Counter(table.column(column).to_pylist()).items()))


def _set_aside_duplicates(run: StageRun, table: pa.Table, names: list[str]) -> pa.Table:
    """The table without repeated candidate ids (the first is kept); repeats set aside,
    each naming the generator of the first."""
    first, _ = exact_duplicates(table.column("candidate_id").to_pylist())
    keep = first == np.arange(len(first))
    details = [f"of generator {names[root]}" for root in first[~keep].tolist()]
    mask = pa.array(keep, pa.bool_())
    repeats = table.filter(pa.array(~keep, pa.bool_()))
    if repeats.num_rows:
        rows = pa.table(
            {
                "origin": [f"candidates:{c}" for c in repeats.column("candidate_id").to_pylist()],
                "sentence": repeats.column("sentence"),
                "detailed_source": repeats.column("detailed_source"),
            }
        )
        run.set_aside(rows, DUPLICATE, details)
    return table.filter(mask)
