"""Run the validate stage: the GX suites over the split data, the report, the Data Docs.

``validate_split`` never raises for a failed expectation: it returns a
:class:`ValidationResult` (the CLI prints its summary and exits 1) and records the outcome in
the JSON reports: the public one (git) says which expectations held; the private one adds
the offending rows and the SHA-256 of the validated file, which the release stage checks
before it builds anything. The report holds no timestamps and keeps the suite's
order, so identical inputs give a byte-identical report. The Data Docs are GX's own HTML
site, built with a run id that depends on the data only (``_run_id``), so identical inputs
give the same pages at the same paths; their scripts, stylesheets and images are local copies
(``offline_docs``), so they read offline.
"""

from __future__ import annotations

import os

os.environ["GX_ANALYTICS_ENABLED"] = "False"  # before great_expectations is imported

import logging  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

import pandas as pd  # noqa: E402

from rucola.corpus.dedup import sentence_key  # noqa: E402
from rucola.corpus.pin import id_scopes  # noqa: E402
from rucola.errors import RucolaError  # noqa: E402
from rucola.io import atomic_dir, file_sha256, write_json  # noqa: E402
from rucola.stage import read_frame  # noqa: E402
from rucola.validation.balance import (  # noqa: E402
    BALANCE,
    BALANCE_ID_COLUMNS,
    NEW_ROWS,
    balance_table,
    placed_new,
)
from rucola.validation.offline_docs import make_offline  # noqa: E402
from rucola.validation.properties import row_properties  # noqa: E402
from rucola.validation.suite import (  # noqa: E402
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    ROW_ID_COLUMNS,
    ROWS,
    Check,
    all_checks,
    build_suite,
)

if TYPE_CHECKING:
    from rucola.settings import Params

REPORT_ROWS = 50  # offending rows per expectation kept in the report
SUMMARY_ROWS = 10  # ... and printed by ValidationResult.summary()
DOCS_SITE = "rucola"
FIXED_RUN_TIME = datetime(2000, 1, 1, tzinfo=UTC)  # see _run_id
_BUILD_STAMP = re.compile(r"\?d=\d{8}T\d{6}\.\d{6}Z")
_TIME = re.compile(r"\d{8}T\d{6}\.\d{6}Z")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True)
class Failure:
    """A failed expectation: its name, what was observed, and the rows that broke it."""

    expectation: str
    details: str
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ValidationResult:
    success: bool
    failures: list[Failure] = field(default_factory=list)

    def summary(self) -> str:
        """One line per failed expectation, then up to ten of its offending rows."""
        if self.success:
            return "all expectations met"
        lines = [f"{len(self.failures)} expectation(s) failed:"]
        for failure in self.failures:
            lines.append(f"- {failure.expectation}: {failure.details}")
            for row in failure.rows[:SUMMARY_ROWS]:
                lines.append("  " + _row_line(row))
            if len(failure.rows) > SUMMARY_ROWS:
                lines.append(f"  ... and {len(failure.rows) - SUMMARY_ROWS} more")
        return "\n".join(lines)


def _row_line(row: dict[str, Any]) -> str:
    if "sentence" in row:
        return f"{row.get('origin')} | {row.get('split')}/{row.get('id')} | {row.get('sentence')}"
    return _balance_line(row)


def _balance_line(row: dict[str, Any]) -> str:
    """``in_domain/test (new rows): 3 rows, share 0.075 (target 0.1, off by 0.025,
    tolerance 0.05)``: one row of the balance table."""
    where = f"{row['domain']}/{row['split']}"
    if row.get("rows_of") == NEW_ROWS:
        where += " (new rows)"
    if row.get("check") == "split_size":
        return (
            f"{where}: {row['rows']} rows, share {row['observed']} "
            f"(target {row['target']}, off by {row['deviation']}, "
            f"tolerance {row.get('tolerance')})"
        )
    return (
        f"{where}: acceptable share {row['observed']} of {row['rows']} rows "
        f"(domain {row['target']}, off by {row['deviation']}, tolerance {row.get('tolerance')})"
    )


def _plain(value: Any) -> Any:
    """A JSON-safe Python value (numpy scalars unwrapped, NaN as None)."""
    if value is None or value is pd.NA:
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _quiet_gx() -> None:
    """Errors only from GX's loggers (some modules set their own level to INFO)."""
    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if (
            name.startswith("great_expectations.")
            and isinstance(logger, logging.Logger)
            and logger.level != logging.NOTSET
        ):
            logger.setLevel(logging.ERROR)


def _context():
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    _quiet_gx()
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    return context


def _read(input_path: Path, language: str = "ru") -> pd.DataFrame:
    frame = read_frame(input_path, hint="run 'rucola split' first")
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise RucolaError(
            f"missing column(s) {', '.join(missing)}",
            input_path,
            hint="validate the output of 'rucola split'",
        )
    frame = frame.reset_index(drop=True)
    if "published_id" not in frame.columns:
        frame["published_id"] = pd.array([None] * len(frame), dtype="Int64")
    if "pinned_split" not in frame.columns:
        frame["pinned_split"] = pd.Series([None] * len(frame), dtype=object)
    frame["id_scope"] = id_scopes(frame)
    frame["placed_new"] = placed_new(frame)
    # "unique" as every stage means it: equal text after normalisation and homoglyph repair
    # in the corpus's language (corpus.language)
    frame["sentence_key"] = [
        sentence_key(s, language) if isinstance(s, str) else s for s in frame["sentence"]
    ]
    # the text checks' columns, computed by extract's own rule functions
    for column, values in row_properties(frame).items():
        frame[column] = pd.Series(values, dtype=object)
    return frame[[*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS]]


def _exception(result: Any) -> str | None:
    info = result.exception_info or {}
    entries = [info] if "raised_exception" in info else list(info.values())
    for entry in entries:
        if isinstance(entry, dict) and entry.get("raised_exception"):
            return str(entry.get("exception_message") or "an exception")
    return None


def _offending_rows(
    check: Check, result: dict[str, Any], balance: pd.DataFrame
) -> list[dict[str, Any]]:
    index_list = result.get("unexpected_index_list") or []
    if check.table == ROWS:
        return [{c: _plain(entry.get(c)) for c in ROW_ID_COLUMNS} for entry in index_list]
    by_key = {
        tuple(row[c] for c in BALANCE_ID_COLUMNS): row for row in balance.to_dict(orient="records")
    }
    rows = []
    for entry in index_list:
        row = by_key.get(tuple(entry.get(c) for c in BALANCE_ID_COLUMNS), entry)
        rows.append({k: _plain(v) for k, v in row.items()})
    return rows


def _outcome(check: Check, result: Any, balance: pd.DataFrame) -> dict[str, Any]:
    """Name, success, counts, details and offending rows of one expectation's result."""
    if result is None:
        return {
            "name": check.name,
            "success": False,
            "unexpected_count": None,
            "details": "no result from Great Expectations",
            "rows": [],
        }
    raised = _exception(result)
    values = result.result or {}
    rows = _offending_rows(check, values, balance) if check.row_level else []
    count = values.get("unexpected_count")
    if raised is not None:
        details = f"could not be evaluated: {raised}"
    elif check.row_level and check.table == BALANCE:
        # the splits themselves are the offending rows, listed once under this line (the
        # details used to repeat them, so the summary printed every split twice)
        details = f"{count} of {values.get('element_count')} splits"
    elif check.row_level:
        details = f"{count} of {values.get('element_count')} rows"
    else:
        details = f"observed {_plain(values.get('observed_value'))}"
    return {
        "name": check.name,
        "success": bool(result.success) and raised is None,
        "unexpected_count": None if count is None else int(count),
        "details": details,
        "rows": rows,
    }


def _run_id(digest: str):
    """A run id that depends on the data only: GX names the Data Docs pages of a run by
    its name and time, so a run time of now would give new paths (and bytes) every run.
    The name carries the data's hash; the time is fixed and means nothing."""
    from great_expectations.core.run_identifier import RunIdentifier

    return RunIdentifier(run_name=f"data-{digest[:16]}", run_time=FIXED_RUN_TIME)


def _run(
    context, checks: list[Check], frames: dict[str, pd.DataFrame], digest: str
) -> dict[str, Any]:
    """Run one suite per table through GX; results keyed by check name."""
    import great_expectations as gx

    source = context.data_sources.add_pandas("rucola")
    results: dict[str, Any] = {}
    for table, id_columns in ((ROWS, ROW_ID_COLUMNS), (BALANCE, BALANCE_ID_COLUMNS)):
        table_checks = [c for c in checks if c.table == table]
        batch = source.add_dataframe_asset(table).add_batch_definition_whole_dataframe(table)
        suite = context.suites.add(build_suite(f"rucola_{table}", table_checks))
        definition = context.validation_definitions.add(
            gx.ValidationDefinition(name=f"rucola_{table}", data=batch, suite=suite)
        )
        run = definition.run(
            run_id=_run_id(digest),
            batch_parameters={"dataframe": frames[table]},
            result_format={
                "result_format": "COMPLETE",
                "unexpected_index_column_names": id_columns,
                "return_unexpected_index_query": False,
            },
        )
        for result in run.results:
            results[(result.expectation_config.meta or {}).get("name")] = result
    return results


def _steady(page: str) -> str:
    """A Data Docs page without what changes from run to run: the build time GX appends
    to its logo's URL, the load time of the batch (shown as "not recorded"), and the
    random ids of collapsible blocks (numbered in order of appearance instead)."""
    page = _BUILD_STAMP.sub("", page)
    fixed = FIXED_RUN_TIME.strftime("%Y%m%dT%H%M%S.%fZ")
    page = _TIME.sub(lambda m: m.group() if m.group() == fixed else "not recorded", page)
    numbers: dict[str, str] = {}
    return _UUID.sub(lambda m: numbers.setdefault(m.group(), f"block-{len(numbers) + 1}"), page)


def _build_docs(context, docs_dir: Path) -> None:
    with atomic_dir(docs_dir) as tmp:
        context.add_data_docs_site(
            DOCS_SITE,
            {
                "class_name": "SiteBuilder",
                "show_how_to_buttons": False,
                "store_backend": {
                    "class_name": "TupleFilesystemStoreBackend",
                    "base_directory": str(tmp.resolve()),  # GX wants it absolute
                },
                "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            },
        )
        context.build_data_docs(site_names=[DOCS_SITE])
        if not (tmp / "index.html").is_file():
            raise RuntimeError(f"Great Expectations built no index.html under {tmp}")
        for page in sorted(tmp.rglob("*.html")):
            page.write_text(_steady(page.read_text(encoding="utf-8")), encoding="utf-8")
        make_offline(tmp)


def validate_split(
    input_path: str | Path,
    params: Params,
    report_path: str | Path,
    docs_dir: str | Path | None,
    private_path: str | Path | None = None,
) -> ValidationResult:
    """Validate the split stage's parquet; write the JSON reports and (optionally) Data Docs.

    The report (``report_path``, git-tracked) says which expectations held and how many
    rows were checked; what failed where (rows naming test rows, their sources), the
    details and the data's SHA-256 (a hash of every hidden label) go to the private report
    (``private_path``, ``validate.private_report``), which the release checks.

    ``params``: the whole typed params, since the checks hold the data to the bounds of
    three stages (``validate``, ``split.ratios`` and ``split.new_rows``, the filter's token
    bounds) and ``corpus.language`` (what the same sentence is, which characters are text)."""
    input_path = Path(input_path)
    frame = _read(input_path, params.corpus.language)
    digest = file_sha256(input_path)
    checks = all_checks(params)
    balance = balance_table(frame, params.validate, params.split)

    context = _context()
    results = _run(context, checks, {ROWS: frame, BALANCE: balance}, digest)
    outcomes = [_outcome(c, results.get(c.name), balance) for c in checks]
    if docs_dir is not None:
        _build_docs(context, Path(docs_dir))

    failed = [o for o in outcomes if not o["success"]]
    report = {
        "success": not failed,
        "data_sha256": digest,
        "rows": int(len(frame)),
        "expectations": [{**o, "rows": o["rows"][:REPORT_ROWS]} for o in outcomes],
        "failed": len(failed),
        "evaluated": len(outcomes),
    }
    public = {
        "success": report["success"],
        "rows": report["rows"],
        "expectations": [{"name": o["name"], "success": o["success"]} for o in outcomes],
        "failed": report["failed"],
        "evaluated": report["evaluated"],
    }
    if private_path is not None:
        write_json(report, private_path)
    write_json(public, report_path)
    return ValidationResult(
        success=not failed,
        failures=[Failure(o["name"], o["details"], o["rows"]) for o in failed],
    )
