"""Issue 23, "one error boundary": every failure a user or their machine can cause is one
line on stderr and exit 1, with nothing written; only ``--debug`` shows a traceback.

Each test runs the real command line (``rucola.cli.app``) in a folder of its own and names
the issue case it covers. Faults are injected, never provoked with ``chmod``: tests run as
root, where permissions prove nothing. A real full disk and a real read-only mount are
tried too where the machine lets the test mount a filesystem (skipped where it cannot).
"""

from __future__ import annotations

import errno
import gc
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
import yaml
from guards import one_error_line, snapshot
from identity import with_identity, write_identity

from rucola.errors import RucolaError

ROOT = Path(__file__).resolve().parents[2]


# --- helpers -------------------------------------------------------------------------


def write_params(folder: Path, params: dict[str, Any], name: str = "params.yaml") -> Path:
    path = folder / name
    params = with_identity(params)  # a corpus names itself (the defaults name none)
    path.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), "utf-8")
    return path


def line_of(path: Path, text: str) -> int:
    """The number of the first line of ``path`` that holds ``text``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def measured_rows(n: int = 40) -> pd.DataFrame:
    """Rows as ``rucola measure`` writes them (distinct sentences, every length)."""
    rows = []
    for i in range(n):
        rows.append(
            {
                "sentence": f"Мальчик номер {i} читает книгу {i * 7} дома.",
                "label": i % 2,
                "error_type": None if i % 2 else "Syntax",
                "domain": "in_domain",
                "detailed_source": f"Book{i % 3}",
                "group": f"g{i}",
                "origin": f"o{i}",
                "n_tokens": 7,
                "word_ipm": [500.0] * 7,
            }
        )
    return pd.DataFrame(rows)


def write_rows(frame: pd.DataFrame, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    return path


def filter_params(folder: Path, **near_duplicates: Any) -> Path:
    """Params of ``rucola filter`` with every path inside ``folder``."""
    return write_params(
        folder,
        {
            "measure": {"out": "measured.parquet"},  # what filter reads
            "filter": {
                "out": "out/filtered.parquet",
                "rejected": "out/rejected.parquet",
                "report": "out/filter.json",
                "near_duplicates": {"enabled": True, **near_duplicates},
            },
        },
    )


SPLIT_OUTPUTS = ("split.parquet", "rejected.parquet", "split.json", "private_split.json",
                 "lengths.csv", "lengths.png")  # fmt: skip


def split_params(folder: Path, out: str = "out") -> Path:
    return write_params(
        folder,
        {
            "filter": {"out": "filtered.parquet"},  # what split reads
            "split": {  # every output under ``out``: a default would write into reports/
                **{
                    key: f"{out}/{name}"
                    for key, name in zip(
                        ("out", "rejected", "report", "private_report", "plot", "plot_png"),
                        SPLIT_OUTPUTS,
                        strict=True,
                    )
                },
            },
        },
    )


def filtered_rows() -> pd.DataFrame:
    frame = measured_rows().drop(columns=["word_ipm"])
    frame["high_freq_share"] = 1.0
    return frame


# --- 1. one boundary for every command -------------------------------------------------


def _leaf_commands() -> list[tuple[tuple[str, ...], Any]]:
    from rucola.cli import app

    def walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                yield from walk(sub, (*path, name))
        else:
            yield path, command

    return list(walk(typer.main.get_command(app), ()))


COMMANDS = [path for path, _ in _leaf_commands()]
FAULTS: dict[str, Callable[[], BaseException]] = {
    "disk full": lambda: OSError(errno.ENOSPC, "No space left on device", "out/x.parquet"),
    "read-only": lambda: OSError(errno.EROFS, "Read-only file system", "out/x.parquet"),
    "permission": lambda: PermissionError(errno.EACCES, "Permission denied", "out/x.parquet"),
    "vanished": lambda: FileNotFoundError(errno.ENOENT, "No such file", "out/x.parquet"),
    "memory": MemoryError,
    "worker killed": lambda: BrokenProcessPool("A process in the process pool was terminated"),
    "user error": lambda: RucolaError("a known problem", "out/x.parquet", 3),
}


def _invoke_raising(
    path: tuple[str, ...], fault: BaseException, folder: Path, capsys: Any, *extra: str
) -> tuple[int | None, str, BaseException | None]:
    """Run command ``path`` through the real root group, with its function replaced by one
    that raises ``fault`` (required arguments get a file that exists): (exit code, stderr,
    the exception that came out, if any)."""
    from rucola.cli import app

    root = typer.main.get_command(app)
    command = root
    for name in path:
        command = command.commands[name]

    def raising(*_args: Any, **_kwargs: Any) -> None:
        raise fault

    command.callback = raising
    dummy = folder / "given"
    dummy.write_text("x", encoding="utf-8")
    args = list(extra) + list(path)
    for param in command.params:
        if param.required and param.param_type_name == "argument":
            args.append(str(dummy))
        elif param.required:
            args += [param.opts[0], "1.0.0"]
    capsys.readouterr()
    try:
        code, escaped = root.main(args=args, prog_name="rucola", standalone_mode=False), None
    except Exception as exc:  # what the boundary let through
        code, escaped = None, exc
    return code, capsys.readouterr().err, escaped


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_command_passes_its_errors_through_the_one_boundary(tmp_path, capsys, path, fault):
    """Issue 23, build 3 / defect 9: every registered command, today's and any added
    later, turns a user's problem, a disk's (full, read-only, permission, a vanished file)
    and an exhausted memory into one line and exit 1, because the root group runs every
    command inside one boundary (no decorator a new command could forget)."""
    code, stderr, escaped = _invoke_raising(path, FAULTS[fault](), tmp_path, capsys)
    assert escaped is None and code == 1, (escaped, stderr)
    line = one_error_line(stderr)
    if fault == "memory":
        assert "out of memory" in line and "filter.near_duplicates.num_perm" in line
    elif fault == "worker killed":
        assert "worker process was killed" in line and "filter.workers" in line
    elif fault == "user error":
        assert line == "error: out/x.parquet:3: a known problem"
    else:
        assert line.startswith("error: out/x.parquet: "), line
        assert os.strerror(FAULTS[fault]().errno) in line


def test_debug_shows_the_traceback_and_a_bug_keeps_it(tmp_path, capsys):
    """Issue 23, build 3: the line is the default, ``--debug`` lets the exception through;
    an exception that is no user's problem (a bug) is never turned into a line."""
    fault = OSError(errno.ENOSPC, "No space left on device", "out/x.parquet")
    assert _invoke_raising(("filter",), fault, tmp_path, capsys)[:2] == (
        1,
        "error: out/x.parquet: No space left on device (hint: the disk is full: free space "
        "or choose an output path on another disk)\n",
    )
    assert _invoke_raising(("filter",), fault, tmp_path, capsys, "--debug")[2] is fault
    bug = ValueError("a bug")
    _, stderr, escaped = _invoke_raising(("filter",), bug, tmp_path, capsys)
    assert escaped is bug and "error:" not in stderr


# --- 2. params bounds: seeds and sizes ----------------------------------------------------


def test_a_seed_beyond_what_the_libraries_take_is_one_line_and_writes_nothing(run_cli, tmp_path):
    """Issue 23, defect 9: ``generate.seed: 18446744073709551616`` was an OverflowError
    that left ``manifest.json`` in the generator's work folder."""
    (tmp_path / "wiki.txt").write_text("Красивая девочка читает книгу в парке.\n", "utf-8")
    params = write_params(
        tmp_path,
        {
            "generate": {
                "seed": 2**64,
                "out_dir": "out/candidates",
                "report_dir": "out/reports",
                "rejected_dir": "out/rejected",
                "work_dir": "work",
                "sources": {"Wiki": {"path": "wiki.txt", "format": "text"}},
                "generators": {"rules": {"method": "perturbation", "sources": ["Wiki"]}},
            }
        },
        "mine.yaml",
    )
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("generate", "rules", "--params", "mine.yaml", cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    assert line.startswith(f"error: mine.yaml:{line_of(params, 'seed:')}: generate.seed: ")
    assert "4294967295" in line
    assert snapshot(tmp_path) == before and not (tmp_path / "work").exists()


@pytest.mark.parametrize("key", ["num_perm", "shingle"])
def test_a_near_duplicate_size_that_would_exhaust_memory_is_refused(run_cli, tmp_path, key):
    """Issue 23, defect 9: ``filter.near_duplicates.num_perm: 1000000000`` (or ``shingle``)
    was a MemoryError (or, on Linux, the OOM killer, which no handler sees). No input is
    given: the params alone must be refused, before any memory is taken."""
    params = filter_params(tmp_path, **{key: 1_000_000_000})
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("filter", "--params", "params.yaml", cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    expected = f"error: params.yaml:{line_of(params, key)}: filter.near_duplicates.{key}: "
    assert line.startswith(expected) and "at most" in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["measure", "--workers", "100000"], "--workers"),
        (["annotate", "simulate", "--seed", str(2**64)], "--seed"),
        (["annotate", "simulate", "--overlap", "100000"], "--overlap"),
    ],
)
def test_an_option_is_held_to_the_bounds_of_its_params_key(run_cli, tmp_path, args, option):
    """Issue 23, build 3: an option that stands in for a params key cannot get round its
    bounds (a seed numpy refuses, a worker count that exhausts the machine). No input is
    given: the option alone must be refused, before any work."""
    write_identity(tmp_path)
    code, _, stderr = run_cli(*args, cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    assert re.match(rf"error: {option}:? must be at most ", line), line
    assert [p.name for p in tmp_path.iterdir()] == ["params.yaml"]


def test_every_size_and_seed_key_has_an_upper_bound():
    """Issue 23, build 3: no valid params can exhaust memory or overflow a seed: every
    integer key of the schema (a size, a batch, a count, a seed) has a maximum."""
    from rucola.settings import _field_type, iter_keys

    integer_keys, unbounded = [], []
    for key, field in iter_keys():
        tp, metadata = _field_type(field)
        # a Field(...) inside Annotated carries its constraints in its own metadata
        flat = [c for m in metadata for c in getattr(m, "metadata", [m])]
        if tp is int:
            integer_keys.append(key)
            if not any(type(m).__name__ == "Le" for m in flat):
                unbounded.append(key)
    assert len(integer_keys) > 20 and unbounded == []


# --- 3. column types of parquet inputs -----------------------------------------------------


@pytest.mark.parametrize(
    ("command", "column", "params"),
    [
        ("filter", "n_tokens", filter_params),
        ("filter", "label", filter_params),
        ("split", "label", split_params),
        ("split", "n_tokens", split_params),
    ],
)
def test_a_column_of_the_wrong_type_is_named_with_its_file(
    run_cli, tmp_path, command, column, params
):
    """Issue 23, defect 9: a parquet input whose ``n_tokens`` or ``label`` is text was a
    TypeError deep inside the stage."""
    params(tmp_path)
    frame = measured_rows() if command == "filter" else filtered_rows()
    frame[column] = frame[column].astype(str)
    name = "measured.parquet" if command == "filter" else "filtered.parquet"
    write_rows(frame, tmp_path / name)
    before = snapshot(tmp_path)
    code, _, stderr = run_cli(command, "--params", "params.yaml", cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    assert line.startswith(f"error: {name}: ") and f"'{column}'" in line
    assert "text" in line and "integer" in line
    assert snapshot(tmp_path) == before


def test_a_sentence_that_is_not_text_is_named_with_its_file(run_cli, tmp_path):
    """Issue 23, defect 9 (the same hole in ``rucola measure``): a ``sentence`` column of
    numbers was a TypeError inside a worker process."""
    write_rows(pd.DataFrame({"sentence": [1, 2, 3]}), tmp_path / "rows.parquet")
    write_identity(tmp_path)
    before = snapshot(tmp_path)
    args = ["--input", "rows.parquet", "--out", "out/m.parquet", "--report", "out/m.json"]
    code, _, stderr = run_cli("measure", *args, "--workers", "1", cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    assert line.startswith("error: rows.parquet: ") and "'sentence'" in line
    assert "integer" in line and "text" in line
    assert snapshot(tmp_path) == before


# --- 4. a failing disk ---------------------------------------------------------------------


def _previous_split(folder: Path, out: str = "out") -> None:
    """The input and params of a split (whose outputs must survive a failing run)."""
    write_rows(filtered_rows(), folder / "filtered.parquet")
    split_params(folder, out)


@pytest.mark.parametrize(
    ("code", "words"),
    [(errno.ENOSPC, "No space left on device"), (errno.EROFS, "Read-only file system")],
)
def test_a_write_that_fails_is_one_line_naming_the_path_and_nothing_changes(
    run_cli, tmp_path, monkeypatch, code, words
):
    """Issue 23, defect 9: an output on a full disk (ENOSPC) or a read-only mount (EROFS)
    was a traceback. Injected as Arrow raises it (an errno and no file name): the line names
    the file being written, and the outputs of the previous run stay as they were."""
    _previous_split(tmp_path)
    assert run_cli("split", cwd=tmp_path)[0] == 0
    before = snapshot(tmp_path)

    def failing(*_args: Any, **_kwargs: Any) -> None:
        raise OSError(code, f"Error writing bytes to file. Detail: [errno {code}] {words}")

    monkeypatch.setattr(pq, "write_table", failing)
    exit_code, _, stderr = run_cli("split", cwd=tmp_path)
    assert exit_code == 1
    line = one_error_line(stderr)
    # named as the output it stands for, not by the staged file being written
    assert line.startswith(f"error: out/split.parquet: {words} (hint: "), line
    assert snapshot(tmp_path) == before  # nothing partial, nothing staged left behind


def _failing_replace(monkeypatch: Any, name: str) -> None:
    """``os.replace`` fails (an I/O error) the first time it moves anything onto a file or
    folder called ``name``: the commit of that output, after the outputs before it moved
    in (putting the old one back may then succeed)."""
    real = os.replace
    failed: list[Any] = []

    def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if Path(dst).name == name and not failed:
            failed.append(dst)
            raise OSError(errno.EIO, "Input/output error", str(dst))
        real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize("previous", [True, False], ids=["over old outputs", "first run"])
def test_a_commit_that_fails_half_way_puts_every_output_back(
    run_cli, tmp_path, monkeypatch, previous
):
    """Issue 23, build 3 ("no partial output in any case"): when the move of the second
    output (the report) into place fails, the first (the rows) used to stay new beside the
    old report. Now every output is as before the run, and the next run may replace them."""
    _previous_split(tmp_path)
    if previous:
        assert run_cli("split", cwd=tmp_path)[0] == 0
    changed = filtered_rows()
    changed["sentence"] = changed["sentence"] + " Ещё."
    write_rows(changed, tmp_path / "filtered.parquet")
    before = snapshot(tmp_path)
    with monkeypatch.context() as patch:
        _failing_replace(patch, "split.json")
        code, _, stderr = run_cli("split", cwd=tmp_path)
    assert code == 1
    assert one_error_line(stderr).startswith("error: out/split.json: Input/output error")
    assert snapshot(tmp_path) == before  # nothing new, nothing lost, nothing left staged
    assert run_cli("split", cwd=tmp_path)[0] == 0  # the old outputs are still rucola's


def test_a_folder_output_is_put_back_too(tmp_path, monkeypatch):
    """Issue 23, build 3: a folder output (as the release writes) that moved in before a
    later output failed is put back as it was, its manifest included."""
    from rucola.stage import StageRun

    monkeypatch.chdir(tmp_path)

    def run(text: str) -> None:
        with StageRun("test", report=None, outputs=["folder", "report.json"]) as stage:
            (stage.folder("folder") / "data.txt").write_text(text, encoding="utf-8")
            stage.path("report.json").write_text(text, encoding="utf-8")

    run("old")
    before = snapshot(tmp_path)
    with monkeypatch.context() as patch:
        _failing_replace(patch, "report.json")
        with pytest.raises(OSError, match="Input/output error"):
            run("new")
    assert snapshot(tmp_path) == before
    run("newer")
    assert (tmp_path / "folder/data.txt").read_text(encoding="utf-8") == "newer"


@contextmanager
def mounted(target: Path, options: str, source: str = "tmpfs") -> Iterator[Path]:
    """A real filesystem mounted at ``target`` for the test, or skip where not allowed."""
    if sys.platform != "linux" or shutil.which("mount") is None:
        pytest.skip("needs Linux mount")
    target.mkdir(parents=True, exist_ok=True)
    kind = ["-t", "tmpfs"] if source == "tmpfs" else []
    done = subprocess.run(
        ["mount", *kind, "-o", options, source, str(target)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield target
    finally:
        gc.collect()  # a parquet file object still open keeps the mount busy
        if subprocess.run(["umount", str(target)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(target)], check=False)


def test_a_real_full_disk_is_one_line_and_the_previous_outputs_stay(run_cli, tmp_path):
    """Issue 23, defect 9: a real full disk (a 64 KiB tmpfs, filled up) under the output."""
    _previous_split(tmp_path)
    with mounted(tmp_path / "disk", "size=64k") as disk:
        shutil.copy(tmp_path / "filtered.parquet", disk / "filtered.parquet")
        split_params(disk)
        assert run_cli("split", cwd=disk)[0] == 0
        free = shutil.disk_usage(disk).free
        (disk / "padding").write_bytes(b"\0" * max(free - 1024, 0))
        before = snapshot(disk)
        code, _, stderr = run_cli("split", cwd=disk)
        assert code == 1
        line = one_error_line(stderr)
        # the first output the split writes (the plot, then the rows) is the one named
        named = [f"error: out/{n}: No space left on device" for n in SPLIT_OUTPUTS]
        assert any(line.startswith(n) for n in named), line
        assert snapshot(disk) == before


def test_a_real_read_only_mount_is_one_line(run_cli, tmp_path):
    """Issue 23, defect 9: the output folder on a read-only mount (a read-only bind mount
    of a folder of the test)."""
    _previous_split(tmp_path)
    (tmp_path / "out").mkdir()
    with mounted(tmp_path / "out", "bind,ro", source=str(tmp_path / "out")):
        subprocess.run(["mount", "-o", "remount,bind,ro", str(tmp_path / "out")], check=False)
        probe = subprocess.run(["touch", str(tmp_path / "out/probe")], capture_output=True)
        if probe.returncode == 0:
            pytest.skip("the bind mount is not read-only here")
        code, _, stderr = run_cli("split", cwd=tmp_path)
        assert code == 1
        line = one_error_line(stderr)
        named = [f"{tmp_path}/out/{n}: Read-only file system" for n in SPLIT_OUTPUTS]
        assert any(n in line for n in named), line
        assert not any((tmp_path / "out").iterdir())


def test_memory_that_runs_out_anyway_is_one_line_and_writes_nothing(run_cli, tmp_path, monkeypatch):
    """Issue 23, defect 9: a MemoryError that still happens (a corpus too large for the
    machine) is one line naming the params sizes to lower, and no output appears."""
    import rucola.corpus.filters.duplicates as duplicates

    filter_params(tmp_path)
    write_rows(measured_rows(), tmp_path / "measured.parquet")

    def exhausted(*_args: Any, **_kwargs: Any) -> None:
        raise MemoryError

    monkeypatch.setattr(duplicates, "find_duplicates", exhausted)
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("filter", cwd=tmp_path)
    assert code == 1
    assert "out of memory" in one_error_line(stderr)
    assert snapshot(tmp_path) == before


# --- 5. params files: aliases, checks between keys, names ---------------------------------


@pytest.mark.slow
def test_a_yaml_alias_bomb_fails_fast(tmp_path):
    """Issue 23, minor: a billion-laughs alias bomb (9 levels of 9 aliases) under an
    unknown key took over a minute before its error. Run as a separate process, so the
    old behaviour ends in the timeout rather than in a hung test run."""
    lines = ["  l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        lines.append(f"  l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * 9)}]")
    (tmp_path / "params.yaml").write_text("bomb:\n" + "\n".join(lines) + "\n", "utf-8")
    before = snapshot(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "rucola", "split"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=45,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 1
    line = one_error_line(done.stderr)
    assert line.startswith("error: params.yaml:3: ") and "alias" in line
    assert snapshot(tmp_path) == before
    # A value used twice, which yaml.safe_dump writes as an anchor and an alias, still loads.
    from rucola.params import load_settings

    shared = {"method": "perturbation", "sources": ["Wiki"]}
    generate = {"sources": {"Wiki": {"path": "w.txt"}}, "generators": {"a": shared, "b": shared}}
    text = yaml.safe_dump(with_identity({"generate": generate}))
    assert "*id001" in text
    (tmp_path / "shared.yaml").write_text(text, encoding="utf-8")
    loaded = load_settings(tmp_path / "shared.yaml").model_dump()["generate"]["generators"]
    assert loaded["a"] == loaded["b"] and loaded["a"]["method"] == "perturbation"


def test_an_m2_categories_error_names_the_params_file_given_and_its_line(run_cli, tmp_path):
    """Issue 23, minor: an ``extract.m2.categories`` error given via ``--params X`` named
    ``params.yaml`` and no line."""
    shutil.copytree(ROOT / "data/sample/learner", tmp_path / "learner")
    params = write_params(
        tmp_path,
        {
            "extract": {
                "sources": [{"path": "learner", "type": "m2"}],
                "out": "out/in_domain.parquet",
                "rejected": "out/rejected.parquet",
                "report": "out/extract.json",
                "m2": {"categories": {"G:*": "Morphology", "L:*": "Lexicon"}},
            }
        },
        "other.yaml",
    )
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("extract", "--params", "other.yaml", cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    assert line.startswith(f"error: other.yaml:{line_of(params, 'L:*')}: ")
    assert "extract.m2.categories" in line and "Lexicon" in line
    assert snapshot(tmp_path) == before


def test_more_controls_than_a_page_holds_names_file_line_and_keys(run_cli, tmp_path):
    """Issue 23, minor: ``controls_per_page`` > ``page_size`` named neither file nor key."""
    params = write_params(
        tmp_path,
        {
            "screen": {"out": "screened.parquet"},  # what annotate export reads
            "annotate": {
                "controls": [],
                "export_dir": "out/tasks",
                "page_size": 3,
                "controls_per_page": 4,
            },
        },
        "pages.yaml",
    )
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("annotate", "export", "--params", "pages.yaml", cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    assert line.startswith(f"error: pages.yaml:{line_of(params, 'controls_per_page')}: ")
    assert "annotate.controls_per_page" in line and "page_size" in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("name", ["--help", "-x"])
def test_a_generator_named_like_an_option_is_refused(run_cli, tmp_path, name):
    """Issue 23, minor: a generator named ``--help`` was accepted, and DVC then ran
    ``rucola generate --help``. A name may not start with '-'."""
    (tmp_path / "wiki.txt").write_text("Красивая девочка читает книгу в парке.\n", "utf-8")
    params = write_params(
        tmp_path,
        {
            "generate": {
                "out_dir": "out/candidates",
                "report_dir": "out/reports",
                "rejected_dir": "out/rejected",
                "work_dir": "work",
                "sources": {"Wiki": {"path": "wiki.txt", "format": "text"}},
                "generators": {
                    "rules": {"method": "perturbation", "sources": ["Wiki"]},
                    name: {"method": "perturbation", "sources": ["Wiki"]},
                },
            }
        },
    )
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("generate", "rules", cwd=tmp_path)
    assert code == 1
    line = one_error_line(stderr)
    assert line.startswith(f"error: params.yaml:{line_of(params, name)}: ")
    assert f"generate.generators[{name!r}]" in line and "not a valid name" in line
    assert snapshot(tmp_path) == before
