"""The merge step: every enabled generator's candidates in one file for the next stages.

Only generators named in params are read, so a stale file from a generator that was
removed from ``params.yaml`` cannot slip into the corpus.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rucola.errors import RucolaError
from rucola.generation.config import generator_config
from rucola.generation.schema import CANDIDATE_SCHEMA
from rucola.io import write_json, write_parquet
from rucola.names import child


def merge_candidates(
    generate: dict[str, Any], params_path: str | Path = "params.yaml"
) -> dict[str, Any]:
    tables = []
    per_generator: dict[str, int] = {}
    for name in sorted(generate.get("generators") or {}):
        cfg = generator_config(generate, name, params_path)
        if not cfg.enabled:
            continue
        path = child(generate["out_dir"], name, ".parquet", f"generate.generators[{name!r}]")
        if not path.is_file():
            raise RucolaError(
                f"no candidates for generator '{name}'", path, hint=f"run `rucola generate {name}`"
            )
        table = pq.read_table(path)
        if table.schema.names != CANDIDATE_SCHEMA.names:
            raise RucolaError(
                f"not a candidates file (columns {', '.join(table.schema.names)})", path
            )
        tables.append(table.cast(CANDIDATE_SCHEMA))
        per_generator[name] = table.num_rows
    table = pa.concat_tables(tables) if tables else CANDIDATE_SCHEMA.empty_table()
    merge = generate["merge"]
    write_parquet(table, merge["out"])
    sentences = Counter(table.column("sentence").to_pylist())
    report = {
        "candidates": table.num_rows,
        "by_generator_config": per_generator,
        "by_method": dict(sorted(Counter(table.column("method").to_pylist()).items())),
        "by_source": dict(sorted(Counter(table.column("detailed_source").to_pylist()).items())),
        "sentences_from_several_generators": sum(1 for n in sentences.values() if n > 1),
    }
    write_json(report, merge["report"])
    return report
