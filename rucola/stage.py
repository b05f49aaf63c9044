"""The contract every row stage follows: read, keep or set aside, report, write all at once.

A stage (extract, generate, merge, measure, screen, filter, annotate, split, release) reads
its inputs through :func:`read_table` (or :func:`open_parquet` to stream them), so a
missing, truncated or foreign file is one line naming it; it counts the rows it read
(:meth:`StageRun.count_read`) and hands every one either to the kept rows
(:meth:`StageRun.finish`, or :meth:`StageRun.count_kept` for a stage that streams its
output through :meth:`StageRun.path`) or to :meth:`StageRun.set_aside` with a reason, so
nothing is lost silently; and its outputs are
written into staging paths that move into place together once everything succeeded, so a
run that fails half-way leaves the previous outputs untouched.

The report of every row stage has the same three keys, ``read``, ``kept`` and
``set_aside`` (reason -> count), and ``read == kept + sum(set_aside)`` is checked before a
byte is written: a mismatch is a bug, not a user error, and keeps its traceback.

Set-aside rows share one schema: ``stage``, ``reason``, ``detail``, ``origin``, then the
row's own columns (the project's row schema, passed in by the caller, so this helper stays
at the bottom of the import graph).
"""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rucola.errors import RucolaError
from rucola.io import (
    check_replaceable,
    plain_folder_mode,
    swap_in_dir,
    write_json,
    write_parquet,
)
from rucola.ownership import (
    STAGED,
    TEMPORARY,
    check_may_replace,
    commit,
    file_sha256,
    forget,
    is_owned_file,
    record,
    staged_name,
    temporary_file,
    temporary_folder,
)

STANDARD_COLUMNS = ["stage", "reason", "detail", "origin"]


def _kind(tp: pa.DataType) -> str:
    """An Arrow type as the family a stage relies on: ``integer``, ``number``, ``text``,
    ``true or false``, ``list of ...``; widths do not matter (int32 is an integer)."""
    if pa.types.is_dictionary(tp):
        return _kind(tp.value_type)
    if pa.types.is_integer(tp):
        return "integer"
    if pa.types.is_floating(tp):
        return "number"
    if pa.types.is_string(tp) or pa.types.is_large_string(tp):
        return "text"
    if pa.types.is_boolean(tp):
        return "true or false"
    if pa.types.is_list(tp) or pa.types.is_large_list(tp) or pa.types.is_fixed_size_list(tp):
        return f"list of {_kind(tp.value_type)}"
    return str(tp)


def _fits(actual: pa.DataType, expected: pa.DataType) -> bool:
    """Whether a column of type ``actual`` can stand where ``expected`` is read: the same
    family (an integer where a number goes, a column of nulls anywhere)."""
    if pa.types.is_null(actual):
        return True
    if pa.types.is_dictionary(actual):
        return _fits(actual.value_type, expected)
    want, got = _kind(expected), _kind(actual)
    if want.startswith("list of ") and got.startswith("list of "):
        return _fits(actual.value_type, expected.value_type)
    return got == want or (want == "number" and got == "integer")


def check_types(schema: pa.Schema, types: pa.Schema, path: str | Path, what: str) -> None:
    """Every column of ``types`` that ``schema`` holds has a type of the same family, or one
    line naming the file, the column, its type and the one expected: a label stored as text
    would otherwise end in a TypeError deep inside the stage. Absent columns are the
    caller's (``columns``) to require."""
    for field in types:
        if field.name not in schema.names:
            continue
        actual = schema.field(field.name).type
        if not _fits(actual, field.type):
            raise RucolaError(
                f"{what} column {field.name!r} holds {_kind(actual)} ({actual}), "
                f"not {_kind(field.type)} ({field.type})",
                path,
                hint="rebuild the file with the stage that writes it",
            )


def read_table(
    path: str | Path,
    what: str = "input",
    columns: Sequence[str] | None = None,
    hint: str | None = None,
    types: pa.Schema | None = None,
) -> pa.Table:
    """A parquet input, or one line naming the file: missing, truncated, not parquet,
    lacking a column the stage needs, or holding one of ``types``' columns with a type of
    another family. ``hint`` is for a missing file or column (e.g. which stage writes
    it); an unreadable file gets its own."""
    source = open_parquet(path, what, columns, hint, types)
    with reading(path, what):
        return source.read(columns=list(columns) if columns is not None else None)


def open_parquet(
    path: str | Path,
    what: str = "input",
    columns: Sequence[str] | None = None,
    hint: str | None = None,
    types: pa.Schema | None = None,
) -> pq.ParquetFile:
    """A parquet input to stream in batches, checked as :func:`read_table` checks it; wrap
    the reading in :func:`reading` so a corrupt page half-way is one line too."""
    file = Path(path)
    if not file.is_file():
        raise RucolaError(f"{what} not found", file, hint=hint)
    with reading(file, what):
        source = pq.ParquetFile(file)
    if columns is not None:
        missing = [c for c in columns if c not in source.schema_arrow.names]
        if missing:
            raise RucolaError(f"{what} has no column {missing[0]!r}", file, hint=hint)
    if types is not None:
        check_types(source.schema_arrow, types, file, what)
    return source


@contextmanager
def reading(path: str | Path, what: str = "input", hint: str | None = None) -> Iterator[None]:
    """Turn an Arrow or OS error raised while reading ``path`` into one line naming it."""
    try:
        yield
    except (pa.ArrowException, OSError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RucolaError(
            f"{what} is not a readable parquet file ({reason})",
            path,
            hint=hint or "the file is truncated or in another format; rebuild it",
        ) from None


def read_frame(
    path: str | Path,
    what: str = "input",
    columns: Sequence[str] | None = None,
    hint: str | None = None,
    types: pa.Schema | None = None,
) -> pd.DataFrame:
    """:func:`read_table` as a pandas frame."""
    return read_table(path, what, columns, hint, types).to_pandas()


def summary_line(report: dict[str, Any]) -> str:
    """``12 read, 10 kept, 2 set aside (duplicate 1, excluded_mark 1)``: what a command
    prints after a row stage."""
    reasons = report["set_aside"]
    total = sum(reasons.values())
    detail = f" ({', '.join(f'{k} {v}' for k, v in reasons.items())})" if reasons else ""
    return f"{report['read']} read, {report['kept']} kept, {total} set aside{detail}"


def _leftover_pattern(name: str) -> re.Pattern[str]:
    """What a killed run leaves beside ``name``: staged files (``.NAME.rucola-staged``, and
    the ``atomic_path`` temporary of one, ``..NAME.rucola-staged.XXXXXXXX.rucola-tmp``),
    ``atomic_path`` temporaries (``.NAME.XXXXXXXX.rucola-tmp``) and ``atomic_dir`` folders
    (``.NAME.XXXXXXXX.rucola-tmp``, ``.NAME.old.XXXXXXXX.rucola-tmp``). All begin with
    ``.NAME.`` and end in a suffix only rucola gives, which ``.gitignore`` and
    ``.dvcignore`` name, so a leftover is never committed."""
    random = r"[A-Za-z0-9_]{8}"
    name = re.escape(name)
    # Earlier versions named temporaries ``.NAME.XXXXXXXX[.tmp]``; a leftover of
    # such a run is still removed.
    legacy = (
        rf"\.{name}\.({random}\.tmp|{random}|old\.{random})|\.\.{name}\.{STAGED}\.{random}\.tmp"
    )
    return re.compile(
        rf"^(\.{name}\.({STAGED}|(old\.)?{random}\.{TEMPORARY})"
        rf"|\.\.{name}\.{STAGED}\.{random}\.{TEMPORARY}|{legacy})\Z"
    )


def remove_leftovers(target: str | Path) -> list[Path]:
    """Remove what an interrupted write of ``target`` left in its folder; returns them."""
    target = Path(target)
    folder = target.parent
    if not folder.is_dir():
        return []
    pattern = _leftover_pattern(target.name)
    removed = []
    for entry in sorted(folder.iterdir()):
        if pattern.match(entry.name):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
    return removed


def _as_table(rows: pa.Table | pd.DataFrame) -> pa.Table:
    if isinstance(rows, pa.Table):
        return rows
    return pa.Table.from_pandas(rows, preserve_index=False).replace_schema_metadata(None)


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with exactly ``schema``'s columns in its order: missing ones null, others
    dropped, types cast (a value that cannot be cast is a bug and raises)."""
    columns = []
    for field in schema:
        if field.name in table.column_names:
            columns.append(table.column(field.name).cast(field.type))
        else:
            columns.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(columns, schema=schema)


# -- committing the outputs all together ---------------------------------------------
# A move into place can fail half-way through a stage's outputs (a full disk when the
# ownership record is written, an I/O error), and the first outputs would then be new and
# the rest old: a report that does not describe its data. So each old output is kept aside
# first (a hard link for a file, the folder itself moved for a folder; both under rucola's
# temporary names, which the next run removes if this one is killed), and a failing move
# puts every output already moved back as it was, with its ownership record.


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _keep_aside(target: Path) -> tuple[Path | None, Path | None]:
    """(where the old ``target`` waits while the new one moves in, what to remove once the
    commit is over); (None, None) if there is no old one. A file stays in place (a hard
    link keeps it), so ``target`` is never missing."""
    if target.is_dir() and not target.is_symlink():
        scratch = temporary_folder(target, old=True)
        os.replace(target, scratch / target.name)
        return scratch / target.name, scratch
    if not target.exists():
        return None, None
    # a leftover the next run removes, but not one of the temporaries that ``commit``
    # clears beside the file it has just written
    aside = temporary_file(target, old=True)
    aside.unlink()
    try:
        os.link(target, aside)
    except OSError:  # no hard links here (some mounts): a copy keeps bytes and attributes
        shutil.copy2(target, aside)
    return aside, aside


def _put_back(target: Path, aside: Path | None) -> None:
    """``target`` as it was before the commit began."""
    if target.exists() or target.is_symlink():
        _remove(target)
    if aside is None:
        forget(target)  # the new output's ledger entry must not outlive it
        return
    os.replace(aside, target)
    if target.is_file() and not is_owned_file(target):
        record(target, file_sha256(target))  # the ledger held the new file's hash


def commit_together(moves: Iterable[tuple[Path, Path]], folders: set[Path]) -> None:
    """Move each ``(staged, target)`` into place (a target in ``folders`` is a folder
    output); if any move fails, every target is put back as it was and the error goes on.
    The caller has checked that rucola may replace every target."""
    undo: list[Callable[[], None]] = []
    scratch: list[Path] = []
    try:
        for staged, target in moves:
            old, leftover = _keep_aside(target)
            if leftover is not None:
                scratch.append(leftover)
            undo.append(lambda target=target, old=old: _put_back(target, old))
            if target in folders:
                swap_in_dir(staged, target)
            else:
                commit(staged, target)
    except BaseException:
        for step in reversed(undo):
            step()
        raise
    finally:
        for path in scratch:
            _remove(path)


def private_report(report: dict[str, Any], data: str | Path | None) -> dict[str, Any]:
    """A private report as written: ``report`` and ``data_sha256``, the SHA-256 of the
    private rows it describes (``data``). DVC records the report's md5 in the git-tracked
    ``dvc.lock``; a small report alone could be guessed and hashed until one matched, but
    not with the hash of every hidden value of those rows inside it."""
    return {**report, "data_sha256": file_sha256(data)} if data is not None else dict(report)


class StageRun:
    """One run of a row stage: counts, set-aside rows, and staged outputs.

    Use as a context manager; outputs written through :meth:`path`, :meth:`folder` and
    :meth:`finish` move into place together when the block ends without an error, and are
    discarded when it raises. Entering removes what an earlier killed run left behind.
    """

    def __init__(
        self,
        stage: str,
        *,
        report: str | Path | None,
        out: str | Path | None = None,
        rejected: str | Path | None = None,
        outputs: Iterable[str | Path] = (),
        set_aside_schema: pa.Schema | None = None,
        private_report: str | Path | None = None,
    ) -> None:
        self.stage = stage
        self.report_path = Path(report) if report is not None else None
        self.private_report = Path(private_report) if private_report is not None else None
        self.out = Path(out) if out is not None else None
        self.rejected = Path(rejected) if rejected is not None else None
        self.set_aside_schema = set_aside_schema
        self.read = 0
        self.kept = 0
        self.counts: Counter[str] = Counter()
        self._set_aside: list[pa.Table] = []
        self._staged: dict[Path, Path] = {}
        self._folders: set[Path] = set()
        targets = [Path(p) for p in outputs]
        named = (self.report_path, self.private_report, self.out, self.rejected)
        targets += [p for p in named if p is not None]
        self.targets = targets

    # -- counting -------------------------------------------------------------------
    def count_read(self, n: int) -> None:
        """Rows read from the stage's main input."""
        self.read += int(n)

    def count_kept(self, n: int) -> None:
        self.kept += int(n)

    def set_aside(
        self,
        rows: pa.Table | pd.DataFrame,
        reason: str | Sequence[str] | np.ndarray,
        detail: str | Sequence[str | None] | np.ndarray | None = None,
    ) -> None:
        """Rows that leave the stream, each with a reason (and a detail, e.g. the origin of
        the row a duplicate repeats); counted per reason and written to the side file."""
        table = _as_table(rows)
        n = table.num_rows
        if n == 0:
            return
        reasons = [reason] * n if isinstance(reason, str) else [str(r) for r in reason]
        if detail is None or isinstance(detail, str):
            details: list[str | None] = [detail] * n
        else:
            details = [None if d is None else str(d) for d in detail]
        if len(reasons) != n or len(details) != n:
            raise ValueError(f"{self.stage}: {n} rows but {len(reasons)} reasons")
        for name in STANDARD_COLUMNS[:3]:
            if name in table.column_names:
                table = table.drop_columns(name)
        table = table.add_column(0, "detail", pa.array(details, pa.string()))
        table = table.add_column(0, "reason", pa.array(reasons, pa.string()))
        table = table.add_column(0, "stage", pa.array([self.stage] * n, pa.string()))
        if "origin" not in table.column_names:
            table = table.add_column(3, "origin", pa.nulls(n, pa.string()))
        self._set_aside.append(table)
        self.counts.update(reasons)

    @property
    def set_aside_total(self) -> int:
        return sum(self.counts.values())

    # -- staged outputs -------------------------------------------------------------
    def path(self, target: str | Path) -> Path:
        """Where to write ``target`` now; it moves into place when the run succeeds, if
        rucola may replace what is there (``rucola.ownership``): asked now, before any
        work, and again at the commit."""
        target = Path(target)
        if target not in self.targets:  # the targets were checked on entering
            check_may_replace(target)
        staged = staged_name(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        self._staged[target] = staged
        return staged

    def folder(self, target: str | Path) -> Path:
        """A staging folder for a folder output; it replaces ``target`` (only a folder
        rucola wrote, see ``rucola.io.check_replaceable``) when the run succeeds."""
        target = Path(target)
        check_replaceable(target)
        staged = self.path(target)
        if staged.exists():
            shutil.rmtree(staged)
        staged.mkdir()
        plain_folder_mode(staged)
        self._folders.add(target)
        return staged

    def report(self, **extra: Any) -> dict[str, Any]:
        """The standard keys, checked to add up, then the stage's own figures."""
        total = self.set_aside_total
        if self.read != self.kept + total:  # a bug in the stage, not a user error
            raise AssertionError(
                f"{self.stage} lost rows: {self.read} read, {self.kept} kept, {total} set aside"
            )
        return {
            "read": self.read,
            "kept": self.kept,
            "set_aside": dict(sorted(self.counts.items())),
        } | extra

    def finish(
        self,
        kept: pa.Table | pd.DataFrame | None = None,
        kept_schema: pa.Schema | None = None,
        private: dict[str, Any] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Count and stage the kept rows, the set-aside rows and the report (in that
        order of checks: nothing is staged if the counts do not add up).

        The report is public (git tracks it): ``extra`` must hold nothing a hidden test row
        tells but its count. ``private`` (what is hidden: per-domain test detail, ...) goes
        only to the private report (``private_report``, in the DVC cache), with the public
        keys and the SHA-256 of the kept rows (:func:`private_report`)."""
        if kept is not None:
            self.count_kept(kept.num_rows if isinstance(kept, pa.Table) else len(kept))
        report = self.report(**extra)
        if kept is not None:
            if self.out is None:
                raise ValueError(f"{self.stage}: kept rows but no output path")
            if isinstance(kept, pa.Table) and kept_schema is not None:
                kept = kept.select(kept_schema.names).cast(kept_schema)
            write_parquet(kept, self.path(self.out), kept_schema)
        if self.rejected is not None:
            write_parquet(self.set_aside_table(), self.path(self.rejected))
        if self.report_path is not None:
            write_json(report, self.path(self.report_path))
        if self.private_report is not None:
            data = self._staged.get(self.out) if self.out is not None else None
            full = private_report({**report, **(private or {})}, data)
            write_json(full, self.path(self.private_report))
        return report

    def set_aside_table(self) -> pa.Table:
        """Every set-aside row in one table with the standard columns first."""
        if self._set_aside:
            table = pa.concat_tables(self._set_aside, promote_options="permissive")
        else:
            table = pa.table({name: pa.array([], pa.string()) for name in STANDARD_COLUMNS})
        if self.set_aside_schema is not None:
            return conform(table, self.set_aside_schema)
        return table

    # -- the transaction ------------------------------------------------------------
    def __enter__(self) -> StageRun:
        for target in self.targets:
            remove_leftovers(target)
            check_may_replace(target)  # a user's file at an output path: refused up front
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if kind is None:
                self._commit()
        finally:
            for staged in self._staged.values():
                if staged.is_dir() and not staged.is_symlink():
                    shutil.rmtree(staged)
                elif staged.exists():
                    staged.unlink()

    def _commit(self) -> None:
        for target, staged in self._staged.items():
            if not staged.exists():
                raise AssertionError(f"{self.stage}: {target} was staged but never written")
        for target in self._staged:  # refuse before anything moves
            check_may_replace(target)
        # all of them or none: a move failing half-way puts the old outputs back
        commit_together(((s, t) for t, s in self._staged.items()), self._folders)
