"""The stage contract: inputs read or one line naming the file, counts that add up, and
outputs that appear together or not at all."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rucola.corpus.schema import SET_ASIDE_SCHEMA
from rucola.errors import RucolaError
from rucola.io import write_parquet
from rucola.stage import (
    StageRun,
    open_parquet,
    read_frame,
    read_table,
    remove_leftovers,
    summary_line,
)

ROWS = pd.DataFrame({"sentence": ["Он спит.", "Она спит.", "Мы спим."], "label": [1, 1, 0]})


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) with its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def run_once(folder: Path, rows: pd.DataFrame = ROWS, fail_at: str | None = None) -> dict:
    """A small stage: keeps the acceptable rows, sets the others aside, writes a plot."""
    with StageRun(
        "demo",
        report=folder / "report.json",
        out=folder / "out.parquet",
        rejected=folder / "rejected.parquet",
        outputs=[folder / "plot.csv"],
        set_aside_schema=SET_ASIDE_SCHEMA,
    ) as run:
        run.count_read(len(rows))
        run.set_aside(rows[rows["label"] == 0], "unacceptable", "why not")
        (run.path(folder / "plot.csv")).write_text(f"rows\n{len(rows)}\n", encoding="utf-8")
        if fail_at == "before_finish":
            raise RuntimeError("the plot failed")
        report = run.finish(rows[rows["label"] == 1], extra_figure=7)
        if fail_at == "after_finish":
            raise RuntimeError("failed after everything was staged")
    return report


def test_outputs_appear_together_with_the_standard_report(tmp_path):
    report = run_once(tmp_path)
    assert report == {"read": 3, "kept": 2, "set_aside": {"unacceptable": 1}, "extra_figure": 7}
    assert json.loads((tmp_path / "report.json").read_text()) == report
    assert pq.read_table(tmp_path / "out.parquet").column("sentence").to_pylist() == [
        "Он спит.",
        "Она спит.",
    ]
    rejected = pq.read_table(tmp_path / "rejected.parquet")
    assert rejected.schema.names == SET_ASIDE_SCHEMA.names
    assert rejected.to_pylist()[0] == {
        **dict.fromkeys(SET_ASIDE_SCHEMA.names),
        "stage": "demo",
        "reason": "unacceptable",
        "detail": "why not",
        "sentence": "Мы спим.",
        "label": 0,
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "out.parquet",
        "plot.csv",
        "rejected.parquet",
        "report.json",
    ]


@pytest.mark.parametrize("fail_at", ["before_finish", "after_finish"])
def test_a_run_that_fails_half_way_leaves_the_previous_outputs_byte_identical(tmp_path, fail_at):
    run_once(tmp_path)
    before = snapshot(tmp_path)
    changed = pd.DataFrame({"sentence": ["Новое."], "label": [1]})
    with pytest.raises(RuntimeError):
        run_once(tmp_path, changed, fail_at=fail_at)
    assert snapshot(tmp_path) == before  # no staged file left behind either


def test_counts_that_do_not_add_up_raise_before_anything_is_written(tmp_path):
    run = StageRun(
        "demo",
        report=tmp_path / "report.json",
        out=tmp_path / "out.parquet",
        rejected=tmp_path / "rejected.parquet",
    )
    with pytest.raises(AssertionError, match="lost rows: 5 read, 2 kept, 1 set aside"), run:
        run.count_read(5)
        run.set_aside(ROWS.iloc[2:], "unacceptable")
        run.finish(ROWS.iloc[:2])
    assert list(tmp_path.iterdir()) == []


def test_entering_removes_what_a_killed_run_left(tmp_path):
    leftovers = [
        ".out.parquet.rucola-staged",  # a staged file
        "..out.parquet.rucola-staged.k3j_x9a2.tmp",  # atomic_path writing a staged file
        ".out.parquet.abcd1234.tmp",  # atomic_path writing the output itself
        ".report.json.rucola-staged",
    ]
    for name in leftovers:
        (tmp_path / name).write_text("half", encoding="utf-8")
    (tmp_path / ".docs.x1y2z3w4").mkdir()  # atomic_dir's temporary folder
    (tmp_path / ".docs.x1y2z3w4" / "index.html").write_text("half", encoding="utf-8")
    (tmp_path / ".docs.old.x1y2z3w4").mkdir()
    kept = [".out.parquet.notes", "out.parquet.bak", ".gitignore", ".docs.old"]
    for name in kept:
        (tmp_path / name).write_text("mine", encoding="utf-8")
    with StageRun(
        "demo",
        report=tmp_path / "report.json",
        out=tmp_path / "out.parquet",
        outputs=[tmp_path / "docs"],
    ):
        pass  # entering is enough; nothing finished, nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
    assert remove_leftovers(tmp_path / "missing" / "x.parquet") == []


def test_entering_removes_the_git_ignored_leftovers_of_today(tmp_path):
    """The names writers give now (``rucola.ownership``): all end in ``.rucola-staged`` or
    ``.rucola-tmp``; a killed run's are gone once the stage runs again."""
    leftovers = [
        ".out.parquet.rucola-staged",
        "..out.parquet.rucola-staged.k3j_x9a2.rucola-tmp",
        ".out.parquet.abcd1234.rucola-tmp",
    ]
    for name in leftovers:
        (tmp_path / name).write_text("half", encoding="utf-8")
    for name in (".docs.x1y2z3w4.rucola-tmp", ".docs.old.x1y2z3w4.rucola-tmp"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text("half", encoding="utf-8")
    with StageRun("demo", report=None, out=tmp_path / "out.parquet", outputs=[tmp_path / "docs"]):
        pass
    assert list(tmp_path.iterdir()) == []


def test_a_persons_file_at_an_output_path_is_refused_on_entering(tmp_path):
    """``StageRun`` asks ``rucola.ownership`` before any work: a file rucola did not write
    at an output path is refused, named, and left as it was."""
    mine = tmp_path / "report.json"
    mine.write_text("{}\n", encoding="utf-8")
    with (
        pytest.raises(RucolaError, match="not written by rucola") as caught,
        StageRun("demo", report=mine, out=tmp_path / "out.parquet"),
    ):
        raise AssertionError("the body never runs")
    assert caught.value.path == str(mine)
    assert mine.read_text(encoding="utf-8") == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_folder_output_replaces_the_old_folder_only_when_the_run_succeeds(tmp_path):
    target = tmp_path / "docs"
    for text, fail in (("one", False), ("two", True)):
        run = StageRun("demo", report=tmp_path / "r.json")
        with pytest.raises(RuntimeError) if fail else nullcontext(), run:
            staged = run.folder(target)
            (staged / "index.html").write_text(text, encoding="utf-8")
            run.finish()
            if fail:
                raise RuntimeError("late failure")
    assert (target / "index.html").read_text() == "one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "r.json"]


def test_a_folder_rucola_did_not_write_is_not_replaced(tmp_path):
    target = tmp_path / "docs"
    target.mkdir()
    (target / "notes.txt").write_text("mine", encoding="utf-8")
    run = StageRun("demo", report=tmp_path / "r.json")
    with pytest.raises(RucolaError, match="not written by rucola"), run:
        run.folder(target)
    assert (target / "notes.txt").read_text() == "mine"


def test_set_aside_with_a_reason_per_row_and_a_table(tmp_path):
    with StageRun("demo", report=None) as run:
        run.count_read(3)
        table = pa.Table.from_pandas(ROWS, preserve_index=False)
        run.set_aside(table, ["a", "b", "a"], ["x", None, "z"])
        report = run.finish()
    assert report == {"read": 3, "kept": 0, "set_aside": {"a": 2, "b": 1}}
    assert run.set_aside_table().column("detail").to_pylist() == ["x", None, "z"]
    assert summary_line(report) == "3 read, 0 kept, 3 set aside (a 2, b 1)"
    assert list(tmp_path.iterdir()) == []  # no report path: nothing written
    with pytest.raises(ValueError, match="3 rows but 2 reasons"):
        StageRun("demo", report=None).set_aside(table, ["a", "b"])


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    good = tmp_path / "good.parquet"
    write_parquet(ROWS, good)
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    text = tmp_path / "text.parquet"
    text.write_text("sentence,label\nОн спит.,1\n", encoding="utf-8")
    return {"good": good, "truncated": truncated, "text": text, "missing": tmp_path / "no.parquet"}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing", "input not found"),
        ("truncated", "input is not a readable parquet file"),
        ("text", "input is not a readable parquet file"),
    ],
)
@pytest.mark.parametrize("reader", [read_table, read_frame, open_parquet])
def test_a_bad_input_is_one_line_naming_the_file(inputs, name, message, reader):
    with pytest.raises(RucolaError) as caught:
        reader(inputs[name], "input", hint="run 'rucola measure' first")
    text = caught.value.format()
    assert text.startswith(f"{inputs[name]}: {message}") and "\n" not in text
    if name == "missing":
        assert "rucola measure" in text
    else:
        assert "truncated or in another format" in text


def test_a_missing_column_names_the_column_and_the_file(inputs):
    with pytest.raises(RucolaError, match=r"good.parquet: input has no column 'n_tokens'"):
        read_table(inputs["good"], "input", ["sentence", "n_tokens"])
    assert read_table(inputs["good"], "input", ["label"]).column_names == ["label"]
    assert open_parquet(inputs["good"], columns=["sentence"]).metadata.num_rows == 3
