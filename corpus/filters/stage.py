"""The filter and screen stages: thresholds over measured attributes, then duplicates.

``filter`` runs over the measured corpus rows (``measure.out``) with the ``filter``
section, ``screen`` (the same code) over the measured candidates before annotation with the
``screen`` section alone: its own thresholds, near-duplicate settings and paths (its
reference set is always the in-domain rows, ``extract.out``), so that an experiment on the
corpus filter never reruns screening nor invalidates answers. The threshold rules the
section turns on (``registry.THRESHOLDS``, in their order: ``too_few_tokens`` /
``too_many_tokens``, ``low_frequency_words``, then any rule registered later) run first,
each on the rows the earlier ones kept (``rucola.rules.apply_rules``), then ``duplicate`` /
``near_duplicate`` (``detail`` names the row repeated). Before any rule runs, the input is
checked to hold every measured attribute the stage and its rules need (``FilterRule.needs``,
``corpus.attributes``): a stale input is one line naming the file and the attribute, and
nothing is written. Measured columns no rule reads pass through to the kept rows (the split
keeps them too; validation and the release read only their own columns). Kept rows,
set-aside rows, the token-length plot and the report are written together
(``rucola.stage.StageRun``): a run that fails at the plot leaves the previous outputs as
they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from rucola.corpus import attributes, schema
from rucola.corpus.filters.duplicates import DuplicateRule
from rucola.corpus.filters.frequency import high_freq_share
from rucola.corpus.measured import MEASURED_ATTRIBUTES, attribute_fields
from rucola.corpus.plots import token_length_histogram
from rucola.corpus.thresholds import THRESHOLDS
from rucola.errors import RucolaError
from rucola.registry import LANGUAGES
from rucola.rules import FilterRule, apply_rules
from rucola.stage import StageRun, open_parquet, read_table, reading

if TYPE_CHECKING:
    import pyarrow.parquet as pq

    from rucola.settings import Filter, Screen

# Imported for what it does: it registers every attribute, whose columns the input is
# checked for (an import the code fingerprints of `filter` and `screen` see).
del attributes


def build_rules(settings: Filter | Screen) -> list[FilterRule]:
    """The threshold rules the section turns on (``registry.THRESHOLDS``, in order); a
    threshold set to null is off (rebuilding a published release keeps every row it has)."""
    return THRESHOLDS.build(settings)


# the screen stage's candidate plot: what it shows, and what it says when screening kept none
CANDIDATE_TITLE = "Screened candidates: sentence length per domain"
NO_CANDIDATES = "No candidates kept by screening (no generator ran, or every one was set aside)."

# The measured attributes the stage reads whatever its rules: the token count (its report,
# the candidates' plot) and the word frequencies (the derived share the split row carries).
STAGE_NEEDS = ("n_tokens", "word_ipm")
MEASURE_HINT = "run 'rucola measure' first: it writes every registered attribute"


def input_types() -> pa.Schema:
    """The columns filter and screen compute with, as ``open_parquet`` checks them: a count
    or label stored as text is one line naming the file and column, not a TypeError
    mid-rule."""
    return pa.schema(
        [
            schema.BASE_SCHEMA.field("sentence"),
            schema.BASE_SCHEMA.field("label"),
            schema.BASE_SCHEMA.field("origin"),
            *attribute_fields(list(MEASURED_ATTRIBUTES)),
        ]
    )


def check_needs(
    columns: Sequence[str],
    rules: Sequence[FilterRule | type[FilterRule]],
    path: str | Path,
    stage: str = "filter",
) -> None:
    """Every measured attribute the stage and ``rules`` need is among ``columns`` (the
    input's), or one line naming the file, the attribute and who needs it."""
    needed = [(name, f"the {stage} stage") for name in STAGE_NEEDS]
    needed += [(name, f"rule {rule.name}") for rule in rules for name in rule.needs]
    for name, who in needed:
        missing = [f.name for f in MEASURED_ATTRIBUTES[name].fields if f.name not in columns]
        if missing:
            raise RucolaError(
                f"no measured attribute '{name}' (column {', '.join(missing)}), which {who} needs",
                path,
                hint=MEASURE_HINT,
            )


REFERENCE_TYPES = pa.schema(
    [schema.BASE_SCHEMA.field("sentence"), schema.BASE_SCHEMA.field("origin")]
)


def _column(table: pa.Table, name: str, default: Any) -> pa.ChunkedArray | pa.Array:
    if name in table.column_names:
        return table.column(name)
    return pa.array([default] * table.num_rows, pa.string())


def _read_reference(paths: Sequence[str] | None) -> pd.DataFrame | None:
    if not paths:
        return None
    frames = []
    for path in paths:
        table = read_table(path, "reference file", types=REFERENCE_TYPES)
        if "sentence" not in table.column_names:
            raise RucolaError("no 'sentence' column in the reference file", path)
        frame = pd.DataFrame({"sentence": table.column("sentence").to_pylist()})
        frame["origin"] = (
            table.column("origin").to_pylist() if "origin" in table.column_names else path
        )
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _measured(source: pq.ParquetFile, input_path: str | Path, min_ipm: float) -> pa.Table:
    """The measured rows with ``word_ipm`` turned into ``high_freq_share``."""
    with reading(input_path, "input"):
        table = source.read()
    share = high_freq_share(table.column("word_ipm"), min_ipm)
    return table.drop_columns("word_ipm").append_column(
        schema.FILTER_FIELDS[0], pa.array(share, pa.float64())
    )


def _origins(table: pa.Table) -> pa.Table:
    """A candidate's id stands for the origin of a set-aside candidate."""
    if "origin" in table.column_names or "candidate_id" not in table.column_names:
        return table
    return table.append_column("origin", table.column("candidate_id").cast(pa.string()))


def run_filter(
    settings: Filter | Screen,
    source: str | Path,
    reference: Sequence[str] | None = None,
    stage: str = "filter",
    language: str = "ru",
) -> dict[str, Any]:
    """Thresholds, then duplicates; columns stay in Arrow so a million rows fit in memory.

    ``source``: the measured rows (``measure.out``, or ``screen.input`` for candidates);
    ``reference``: parquet files whose rows rank first and are never set aside
    (``filter.reference``; for screen, the in-domain rows ``extract.out``); ``stage``
    names the run in the set-aside rows (``filter`` or ``screen``); ``language``
    (``corpus.language``) names the tokens on the length plot's axis and says when two
    sentences are the same (``corpus.dedup.sentence_key``)."""
    thresholds = build_rules(settings)
    measured = open_parquet(source, "input", hint=MEASURE_HINT, types=input_types())
    check_needs(measured.schema_arrow.names, [*thresholds, DuplicateRule], source, stage)
    duplicates = DuplicateRule(settings.near_duplicates, _read_reference(reference), language)
    # Screening draws its candidates' lengths; the corpus's lengths are drawn after the
    # split (``split.plot``), where a test row can be counted without its domain.
    plots = (Path(settings.plot), Path(settings.plot_png)) if hasattr(settings, "plot") else ()
    with StageRun(
        stage,
        report=settings.report,
        out=settings.out,
        rejected=settings.rejected,
        outputs=plots,
    ) as run:
        # Passed on, not held: the rules free the full table once the first has split it.
        outcome = apply_rules(
            _measured(measured, source, float(settings.min_ipm)), [*thresholds, duplicates]
        )
        kept = outcome.kept
        parts = [kept, *(part.rows for part in outcome.set_aside)]
        read = sum(part.num_rows for part in parts)
        n_tokens = np.concatenate([p.column("n_tokens").to_numpy() for p in parts])
        share = np.concatenate([p.column("high_freq_share").to_numpy() for p in parts])
        run.count_read(read)
        row_schema = _origins(kept).schema
        run.set_aside_schema = schema.set_aside_schema(row_schema)
        for part in outcome.set_aside:
            run.set_aside(_origins(part.rows), part.reason, part.detail)
        counts = outcome.counts
        if plots:
            histogram = pd.DataFrame(
                {
                    "domain": _column(kept, "domain", schema.OUT_OF_DOMAIN).to_pylist(),
                    "n_tokens": kept.column("n_tokens").to_numpy(),
                }
            )
            token_length_histogram(
                histogram,
                *(run.path(p) for p in plots),
                title=CANDIDATE_TITLE,
                empty=NO_CANDIDATES,
                tokens_named=LANGUAGES[language].tokens_named,
            )
        report = run.finish(
            kept,
            kept_share=round(kept.num_rows / read, 4) if read else None,
            mean_high_freq_share=round(float(share.mean()), 4) if read else None,
            mean_tokens=round(float(n_tokens.mean()), 2) if read else None,
            rules={rule.name: rule.params() for rule in thresholds}
            | {"frequency": {"min_ipm": float(settings.min_ipm)}},
            duplicates={
                "clusters": duplicates.clusters,
                "duplicate": int(counts["duplicate"]),
                "near_duplicate": int(counts["near_duplicate"]),
                "settings": duplicates.params(),
            },
        )
    return report
