"""The published RuCoLA files (``id,sentence,acceptable,error_type,detailed_source``).

They carry labels instead of marks, so users can extend the published corpus with new
sheets and lists and rebuild it with the same pipeline.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpus.sources import RawExample
from corpus.sources.text import read_text
from rucola.errors import RucolaError

REQUIRED = ("sentence", "acceptable", "error_type", "detailed_source")


def read_rucola_csv(path: Path, options: dict[str, Any], encoding: str) -> Iterator[RawExample]:
    text = read_text(path, encoding)
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise RucolaError(
            f"missing column(s) {', '.join(missing)} of the RuCoLA layout",
            path,
            1,
            hint="expected id,sentence,acceptable,error_type,detailed_source",
        )
    domain = options.get("domain") or (
        "out_of_domain" if path.name.startswith("out_of_domain") else "in_domain"
    )
    line = reader.line_num
    for record in reader:
        start, line = line + 1, reader.line_num
        acceptable = (record["acceptable"] or "").strip()
        if acceptable not in {"0", "1"}:
            raise RucolaError(f"'acceptable' must be 0 or 1, not '{acceptable}'", path, start)
        label = int(acceptable)
        error_type = (record["error_type"] or "").strip()
        error_type = None if error_type in {"", "0"} else error_type
        yield RawExample(
            origin=f"{path}:{start}",
            raw=",".join(record.get(k) or "" for k in reader.fieldnames or []),
            text=record["sentence"],
            mark="" if label == 1 else "*",
            error_type=error_type,
            source=(record["detailed_source"] or "").strip() or path.stem,
            domain=domain,
            label=label,
            expand=False,
            provenance={"id": record["id"]} if record.get("id") else {},
        )
