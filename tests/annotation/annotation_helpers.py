"""Tiny exports in the Toloka layout, written the way a real export is (quoted cells)."""

from __future__ import annotations

import csv
from pathlib import Path

from identity import rucola_categories

from rucola.annotation.votes import Stage2Form

ROOT = Path(__file__).resolve().parents[2]
CONTROLS = ROOT / "data" / "sample" / "annotations" / "controls.tsv"
# The stage-2 checkboxes of RuCoLA's params (corpus.categories, out of domain).
FORM = Stage2Form.of(rucola_categories())

STAGE1_HEADER = [
    "INPUT:id",
    "INPUT:sentence",
    "OUTPUT:violation",
    "GOLDEN:violation",
    "HINT:text",
    "ASSIGNMENT:task_id",
    "ASSIGNMENT:assignment_id",
    "ASSIGNMENT:worker_id",
    "ASSIGNMENT:status",
    "ASSIGNMENT:started",
]

# (task, worker, answer, golden, assignment, status): the hand-computed example.
# t1: no, no, yes (+ w5, dropped for failing the control) -> acceptable, share 2/3
# t2: yes, yes, yes, no -> unacceptable, share 1/4
# t3: yes, no, not_sure -> 2 votes: pending (too few)
# t4: yes, no, yes, no -> pending (tie)
# t5: no, no, no (+ an expired assignment) -> acceptable, share 1
HAND = [
    ("t1", "w1", "no", "", "a1", "APPROVED"),
    ("t1", "w2", "no", "", "a2", "APPROVED"),
    ("t1", "w3", "yes", "", "a3", "APPROVED"),
    ("t1", "w5", "yes", "", "a5", "APPROVED"),
    ("t2", "w1", "yes", "", "a1", "APPROVED"),
    ("t2", "w2", "yes", "", "a2", "APPROVED"),
    ("t2", "w3", "yes", "", "a3", "APPROVED"),
    ("t2", "w4", "no", "", "a4", "ACCEPTED"),
    ("t3", "w1", "yes", "", "a1", "APPROVED"),
    ("t3", "w2", "no", "", "a2", "APPROVED"),
    ("t3", "w3", "not_sure", "", "a3", "APPROVED"),
    ("t4", "w1", "yes", "", "a1", "APPROVED"),
    ("t4", "w2", "no", "", "a2", "APPROVED"),
    ("t4", "w3", "yes", "", "a3", "APPROVED"),
    ("t4", "w4", "no", "", "a4", "ACCEPTED"),
    ("t5", "w1", "no", "", "a1", "APPROVED"),
    ("t5", "w2", "no", "", "a2", "APPROVED"),
    ("t5", "w3", "no", "", "a3", "APPROVED"),
    ("t5", "w4", "", "", "a4x", "EXPIRED"),
    ("c1", "w1", "no", "no", "a1", "APPROVED"),
    ("c1", "w2", "no", "no", "a2", "APPROVED"),
    ("c1", "w3", "no", "no", "a3", "APPROVED"),
    ("c1", "w4", "no", "no", "a4", "ACCEPTED"),
    ("c1", "w5", "yes", "no", "a5", "APPROVED"),
]


def sentence_of(task: str) -> str:
    # t2's cell spans two lines, as real exports' cells do.
    return "Первая строка\nвторая строка." if task == "t2" else f"Предложение {task}."


def stage1_rows(rows=HAND) -> list[list[str]]:
    return [
        [task, sentence_of(task), answer, gold, "", f"tid-{task}", assignment, worker, status,
         "2024-02-04T19:13:23.631"]
        for task, worker, answer, gold, assignment, status in rows
    ]  # fmt: skip


def write_tsv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path
