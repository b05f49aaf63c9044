"""Issue 26, the expert review: a bad export is one line and writes nothing; the review's
outputs replace only what rucola wrote.

An erratum overrides a published row, so an answer read wrongly is worse than an error:
every case here goes through the real command line and must end in exit 1 with one line
naming the export and the task, and no file written or changed.
"""

from __future__ import annotations

import copy
import csv
import errno
import json
import shutil
import sys
from pathlib import Path

import pytest
from guards import one_error_line, snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "curation"))
from identity import write_identity
from review_cases import annotation, data, task, write_export, write_queue  # noqa: E402

QUEUE_FILE = "data/interim/audit.parquet"  # audit.out by default


@pytest.fixture(autouse=True)
def _corpus(tmp_path: Path) -> None:
    """Commands here run in ``tmp_path``: a RuCoLA-like corpus's params (the schema's
    defaults name no corpus); a test that writes its own params.yaml replaces it."""
    write_identity(tmp_path)


def write_review(folder: Path, tasks: list[dict]) -> Path:
    """The export and the audit queue it came from (a row per task, at ``audit.out``)."""
    rows = [("likely_label_error", d["split"], d["domain"], d["id"], d["sentence"], d["label"],
             d["error_type"], 0.5, "P(label 1) = 0.5", None)
            for d in (t["data"] for t in tasks)]  # fmt: skip
    (folder / QUEUE_FILE).parent.mkdir(parents=True, exist_ok=True)
    write_queue(folder / QUEUE_FILE, rows)
    return write_export(folder / "export.json", tasks)


def good_export() -> list[dict]:
    return [
        task(data("train", "in_domain", 3), annotation(2, "remove"), id=1),
        task(
            data("validation", "out_of_domain", 8, label=0, error_type="Syntax"),
            annotation(2, "relabel"),
            id=2,
        ),  # fmt: skip
    ]


def broken(change) -> list[dict]:
    tasks = copy.deepcopy(good_export())
    change(tasks)
    return tasks


def _set(path: list, value):
    def change(tasks):
        target = tasks
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(path: list):
    def change(tasks):
        target = tasks
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


CASES = {
    "a crowd task without our data": (
        _set([1, "data"], {"id": "t1", "sentence": "x", "page": 1}), "task #2", "data.split"),
    "no data": (_delete([0, "data"]), "task #1", "data is missing"),
    "data not an object": (_set([0, "data"], "oops"), "task #1", "data must be a JSON object"),
    "label as text": (_set([0, "data", "label"], "1"), "task train/in_domain/3", "data.label"),
    "id as text": (_set([0, "data", "id"], "3"), "task train/in_domain/3", "data.id"),
    "unknown split": (_set([0, "data", "split"], "dev"), "task dev/in_domain/3", "data.split"),
    "no domain in train": (_set([0, "data", "domain"], None), "task train/-/3", "data.domain"),
    "unknown domain": (_set([0, "data", "domain"], "web"), "task train/web/3", "'web'"),
    "annotations not a list": (
        _set([0, "annotations"], "oops"), "task train/in_domain/3", "annotations must be"),
    "was_cancelled as text": (
        _set([0, "annotations", 0, "was_cancelled"], "false"), "task train/in_domain/3",
        "was_cancelled"),
    "unknown decision": (
        _set([0, "annotations", 0, "result", 0, "value", "choices"], ["delete"]),
        "task train/in_domain/3", "unknown decision 'delete'"),
    "two decisions": (
        _set([0, "annotations", 0, "result", 0, "value", "choices"], ["keep", "remove"]),
        "task train/in_domain/3", "exactly one choice"),
    "unknown category": (
        _set([1, "annotations", 0, "result"],
             [{"from_name": "decision", "value": {"choices": ["relabel"]}},
              {"from_name": "category", "value": {"choices": ["Lexis"]}}]),
        "task validation/out_of_domain/8", "unknown category 'Lexis'"),
    "a control of another config": (
        _set([0, "annotations", 0, "result", 0, "from_name"], "violation"),
        "task train/in_domain/3", "unknown from_name 'violation'"),
    "no decision": (
        _set([0, "annotations", 0, "result"], []), "task train/in_domain/3", "has no decision"),
    "no reviewer": (
        _delete([0, "annotations", 0, "completed_by"]), "task train/in_domain/3",
        "has no completed_by"),
    "a text that is no text": (
        _set([0, "annotations", 0, "result"],
             [{"from_name": "decision", "value": {"choices": ["fix text"]}},
              {"from_name": "text", "value": {"text": [7]}}]),
        "task train/in_domain/3", "value.text"),
    "a task twice": (
        lambda tasks: tasks.append(copy.deepcopy(tasks[0])), "task train/in_domain/3",
        "appears twice"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_export_is_one_line_naming_the_task_and_writes_nothing(run_cli, tmp_path, case):
    change, where, what = CASES[case]
    write_export(tmp_path / "export.json", broken(change))
    (tmp_path / "errata.csv").write_text("a person's notes\n", encoding="utf-8")
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              "--undecided", "undecided.csv", cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "export.json", where, what)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("{not json", "export.json:1: not valid JSON"),
        ('{"tasks": []}', "expected a JSON list of tasks"),
        ("[1, 2]", "task #1 must be a JSON object"),
        ("", "not valid JSON"),
    ],
)
def test_an_export_that_is_not_label_studio_json_is_one_line(run_cli, tmp_path, text, what):
    (tmp_path / "export.json").write_text(text, encoding="utf-8")
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, what)
    assert snapshot(tmp_path) == before


def test_import_never_overwrites_a_persons_errata_file(run_cli, tmp_path):
    write_review(tmp_path, good_export())
    (tmp_path / "errata.csv").write_text("split,domain,id,field,new,reason\n", encoding="utf-8")
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "errata.csv", "not written by rucola")
    assert snapshot(tmp_path) == before
    # its own file it replaces
    (tmp_path / "errata.csv").unlink()
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0


def test_import_never_overwrites_a_persons_undecided_list(run_cli, tmp_path):
    write_review(tmp_path, good_export())
    (tmp_path / "undecided.csv").write_text("mine\n", encoding="utf-8")
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              "--undecided", "undecided.csv", cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "undecided.csv", "not written by rucola")
    assert snapshot(tmp_path) == before  # the errata file is not written either


def test_import_without_the_audit_queue_is_one_line_and_writes_nothing(run_cli, tmp_path):
    """The tasks are checked against the queue they were exported from (``audit.out``):
    without it no decision can be told from one on an unknown id."""
    write_export(tmp_path / "export.json", good_export())
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, f"error: {QUEUE_FILE}: audit queue not found")
    assert snapshot(tmp_path) == before


def test_export_never_replaces_a_folder_rucola_did_not_write(run_cli, tmp_path):
    write_queue(tmp_path / "audit.parquet")
    (tmp_path / "review").mkdir()
    (tmp_path / "review" / "tasks.json").write_text("[]", encoding="utf-8")
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("audit", "export", "--input", "audit.parquet", "--out", "review",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "review", "not written by rucola")
    assert snapshot(tmp_path) == before


def test_export_of_a_missing_queue_is_one_line(run_cli, tmp_path):
    code, _, stderr = run_cli("audit", "export", "--input", "audit.parquet", "--out", "review",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "audit.parquet", "not found")
    assert not (tmp_path / "review").exists()


def test_the_review_files_are_exact_json(run_cli, tmp_path):
    """What Label Studio imports: a JSON list of ``{"data": ...}`` with no NaN in it."""
    write_queue(tmp_path / "audit.parquet")
    assert run_cli("audit", "export", "--input", "audit.parquet", "--out", "review",
                   cwd=tmp_path)[0] == 0  # fmt: skip
    text = (tmp_path / "review/tasks.json").read_text(encoding="utf-8")
    json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in tasks.json"))


# -- an export nested too deeply, a full disk ---------------------------------------------


def _deep_task(depth: int) -> str:
    """The good export with its first task's ``meta`` nested ``depth`` lists deep."""
    text = json.dumps(good_export(), ensure_ascii=False)
    return text.replace('"meta": {}', '"meta": ' + "[" * depth + "]" * depth, 1)


DEEP = {
    "lists 100,000 deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply to read"),
    "objects 100,000 deep": ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    "a task 100,000 deep": (_deep_task(100_000), "nested too deeply to read"),
    # JSON reads it; json.dumps, repr and pydantic on the way must never meet it
    "a task 200 deep": (_deep_task(200), "task #1: nested deeper than 50 levels"),
}


@pytest.mark.parametrize("case", sorted(DEEP))
def test_an_export_nested_too_deeply_is_one_line_naming_the_file(run_cli, tmp_path, case):
    """A RecursionError was a traceback: the JSON reader (and everything that walks what
    it read) recurses. Now one line naming the export, and nothing written."""
    text, what = DEEP[case]
    write_review(tmp_path, good_export())
    (tmp_path / "export.json").write_text(text, encoding="utf-8")
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              "--undecided", "undecided.csv", cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "error: export.json: ", what)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("failing", ["errata.csv", "undecided.csv"])
def test_a_full_disk_while_writing_is_one_line_naming_the_file(
    run_cli, tmp_path, monkeypatch, failing
):
    """A write that fails as a full disk fails (ENOSPC, and no file name: the system names
    none) was a line naming no file. Now it names the file being written, and the previous
    outputs stay, with nothing partial or staged beside them."""
    write_review(tmp_path, good_export())
    args = ("audit", "import", "export.json", "--out", "errata.csv", "--undecided",
            "undecided.csv")  # fmt: skip
    assert run_cli(*args, cwd=tmp_path)[0] == 0
    write_review(tmp_path, good_export()[:1])  # the next run would write other bytes
    before = snapshot(tmp_path)
    real = csv.writer

    class Full:
        def __init__(self, handle, **kwargs):
            self.name, self.writer = Path(handle.name).name, real(handle, **kwargs)

        def writerow(self, row):
            self.writer.writerow(row)

        def writerows(self, rows):
            if failing in self.name:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.writer.writerows(rows)

    monkeypatch.setattr(csv, "writer", Full)
    code, _, stderr = run_cli(*args, cwd=tmp_path)
    assert code == 1
    one_error_line(stderr, f"error: {failing}: No space left on device (hint: the disk is full")
    assert snapshot(tmp_path) == before


def test_a_real_full_disk_is_one_line_and_leaves_no_partial_file(run_cli, tmp_path):
    """The same on a real full disk (a 64 KiB tmpfs, filled up; skipped where the test
    cannot mount one): the errata file on it is never partly written."""
    from test_guard_errors import mounted

    write_review(tmp_path, good_export())
    with mounted(tmp_path / "disk", "size=64k") as disk:
        (disk / "padding").write_bytes(b"\0" * shutil.disk_usage(disk).free)
        before = snapshot(disk)
        code, _, stderr = run_cli("audit", "import", "export.json", "--out", "disk/errata.csv",
                                  cwd=tmp_path)  # fmt: skip
        assert code == 1
        one_error_line(stderr, "error: disk/errata.csv: No space left on device (hint: ")
        assert snapshot(disk) == before
