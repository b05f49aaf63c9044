"""Issue 26, the audit's promises, tried adversarially.

- ``reports/audit.json`` is public (committed to git) while the queue is private: the
  report holds counts per kind and split and the params, never a sentence, id, domain,
  category or label, even when the test rows carry their gold;
- the same split rows and params give the same queue, byte for byte;
- a run that fails or is killed leaves the previous queue and report as they were, and
  the next run removes what a killed one left;
- a split file lacking a column, not parquet, or with a column of another type is one
  line naming it; a person's file at ``--out`` is refused;
- ``--out`` alone takes the report beside it, so a trial run never touches
  ``reports/audit.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from guards import KILL_AT_COMMIT, one_error_line, snapshot

from rucola.curation.audit import run_audit
from rucola.settings import Audit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "curation"))
from audit_frames import corpus, write  # noqa: E402
from identity import rucola_params, write_identity  # noqa: E402

FLIPS = [0, 5, 11, 23, 42]
SPLITS = {"train", "validation", "test"}


@pytest.fixture(autouse=True)
def _corpus(tmp_path: Path) -> None:
    """Commands here run in ``tmp_path``: a RuCoLA-like corpus's params (the schema's
    defaults name no corpus); a test that writes its own params.yaml replaces it."""
    write_identity(tmp_path)


def audit_settings(folder: Path) -> Audit:
    return Audit(
        out=str(folder / "audit.parquet"),
        report=str(folder / "audit.json"),
        private_report=str(folder / "private_audit.json"),
    )


@pytest.fixture
def split_rows(tmp_path: Path) -> Path:
    """Rows whose test split carries its gold (labels, categories, domains), with a leak
    and flipped labels in every split, so every kind finds test rows."""
    rows = corpus(flips=FLIPS, recategorised={9: "Semantics"})
    rows.loc[len(rows)] = [rows.loc[1, "sentence"], 1, None, "in_domain", "gT", "test", 999]
    return write(rows, tmp_path / "split.parquet")


def test_the_public_report_holds_counts_only_even_with_labelled_test_rows(tmp_path, split_rows):
    report = run_audit(audit_settings(tmp_path), rucola_params(), str(split_rows))
    assert report["kinds"]["likely_label_error"]["test"] > 0  # the test gold was audited
    assert set(report) == {"read", "queue", "kinds", "scored", "params", "separation"}
    for counts in report["kinds"].values():
        assert set(counts) == SPLITS and all(type(n) is int for n in counts.values())
    assert all(type(n) is int for n in report["scored"].values())
    assert set(report["params"]) == {
        "enabled", "folds", "features", "seed", "C", "sources", "min_auc", "near_duplicates",
        "near_duplicate_threshold",
    }  # fmt: skip
    text = (tmp_path / "audit.json").read_text(encoding="utf-8")
    public = json.loads(text)  # what git tracks: nothing of the test split
    assert set(public) == {"read", "kinds", "params", "separation"}
    assert all(set(counts) == {"train", "validation"} for counts in public["kinds"].values())
    assert set(public["separation"]) == {"lowest_auc", "domains_flagged", "domains_ranked_only"}
    rows = pq.read_table(split_rows).to_pandas()
    words = {w.strip(".") for s in rows["sentence"] for w in s.split()}
    for needle in [*words, "in_domain", "Syntax", "Semantics", "Morphology", "gT", "номер"]:
        assert needle.lower() not in text.lower(), needle


def test_the_report_does_not_change_when_test_ids_are_shuffled(tmp_path, split_rows):
    """Which test row has which id is not in the report: shuffling the ids of the test
    rows changes no byte of it."""
    run_audit(audit_settings(tmp_path / "a"), rucola_params(), str(split_rows))
    rows = pq.read_table(split_rows).to_pandas()
    test = rows.index[rows["split"] == "test"]
    rows.loc[test, "id"] = rows.loc[test, "id"].to_numpy()[::-1]
    shuffled = write(rows, tmp_path / "shuffled.parquet")
    run_audit(audit_settings(tmp_path / "b"), rucola_params(), str(shuffled))
    first, second = (tmp_path / "a/audit.json", tmp_path / "b/audit.json")
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.slow
def test_the_report_does_not_change_when_what_test_rows_hide_changes(tmp_path, split_rows):
    """Issue 32: flip every test label, swap categories and domains of test rows: the
    public report (train and validation counts from a model that never saw a test label)
    keeps its bytes, while the private one changes."""
    run_audit(audit_settings(tmp_path / "a"), rucola_params(), str(split_rows))
    rows = pq.read_table(split_rows).to_pandas()
    test = rows.index[rows["split"] == "test"]
    rows.loc[test, "label"] = 1 - rows.loc[test, "label"]
    rows.loc[test, "error_type"] = [None if y else "Semantics" for y in rows.loc[test, "label"]]
    rows.loc[test, "domain"] = "out_of_domain"
    changed = write(rows, tmp_path / "changed.parquet")
    run_audit(audit_settings(tmp_path / "b"), rucola_params(), str(changed))
    for name, same in (("audit.json", True), ("private_audit.json", False)):
        first, second = (tmp_path / "a" / name, tmp_path / "b" / name)
        assert (first.read_bytes() == second.read_bytes()) is same, name


@pytest.mark.slow
def test_the_queue_is_the_same_bytes_every_run(tmp_path, split_rows):
    for name in ("a", "b"):
        run_audit(audit_settings(tmp_path / name), rucola_params(), str(split_rows))
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


def test_a_failing_run_leaves_the_previous_outputs(tmp_path, split_rows, monkeypatch):
    settings = audit_settings(tmp_path / "out")
    run_audit(settings, rucola_params(), str(split_rows))
    before = snapshot(tmp_path / "out")

    def fails(*args, **kwargs):
        raise MemoryError("the classifier ran out of memory")

    monkeypatch.setattr("rucola.curation.audit.category_mismatches", fails)
    with pytest.raises(MemoryError):
        run_audit(settings, rucola_params(), str(split_rows))
    assert snapshot(tmp_path / "out") == before


KILLED = (
    KILL_AT_COMMIT
    + f"sys.path.insert(0, {str(ROOT / 'tests')!r})  # tests/identity.py\n"
    + """\
from identity import rucola_params
from rucola.curation.audit import run_audit
from rucola.settings import Audit

folder, source = sys.argv[1], sys.argv[2]
run_audit(
    Audit(
        out=f"{folder}/audit.parquet",
        report=f"{folder}/audit.json",
        private_report=f"{folder}/private_audit.json",
    ),
    rucola_params(),
    source,
)
"""
)


@pytest.mark.slow  # kills a real run at its commit: about 20 s
def test_a_killed_run_leaves_the_previous_outputs_and_the_next_run_cleans_up(tmp_path, split_rows):
    script = tmp_path / "killed.py"
    script.write_text(KILLED, encoding="utf-8")
    out = tmp_path / "out"
    run_audit(audit_settings(out), rucola_params(), str(split_rows))
    before = snapshot(out)
    killed = subprocess.run(
        [sys.executable, str(script), str(out), str(split_rows), "kill"],
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -9, killed.stderr
    after = snapshot(out)
    assert {k: v for k, v in after.items() if k in before} == before
    left = sorted(set(after) - set(before))
    assert left and all(".rucola-staged" in name or ".rucola-tmp" in name for name in left)
    again = subprocess.run(
        [sys.executable, str(script), str(out), str(split_rows), "run"],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    assert snapshot(out) == before  # same bytes, nothing left over


def test_a_split_file_missing_a_column_is_one_line(run_cli, tmp_path, split_rows):
    table = pq.read_table(split_rows).drop_columns(["group"])
    pq.write_table(table, tmp_path / "nogroup.parquet")
    before = snapshot(tmp_path)
    code, _, err = run_cli(
        "audit", "--input", "nogroup.parquet", "--out", "out/audit.parquet", cwd=tmp_path
    )
    assert code == 1
    one_error_line(err, "nogroup.parquet", "'group'")
    assert snapshot(tmp_path) == before


def test_a_split_file_that_is_not_parquet_or_has_a_column_of_another_type_is_one_line(
    run_cli, tmp_path, split_rows
):
    (tmp_path / "broken.parquet").write_bytes(split_rows.read_bytes()[:100])
    table = pq.read_table(split_rows)
    text = table.set_column(1, "label", pa.array([str(v) for v in table["label"].to_pylist()]))
    pq.write_table(text, tmp_path / "text.parquet")
    before = snapshot(tmp_path)
    for name, needle in (("broken.parquet", "not a readable parquet"), ("text.parquet", "label")):
        code, _, err = run_cli("audit", "--input", name, "--out", "out/audit.parquet", cwd=tmp_path)
        assert code == 1
        one_error_line(err, name, needle)
    assert snapshot(tmp_path) == before


def test_out_alone_takes_the_report_beside_it(run_cli, tmp_path, split_rows):
    code, out, err = run_cli(
        "audit", "--input", str(split_rows), "--out", "trial/queue.parquet", cwd=tmp_path
    )
    assert code == 0, err
    assert (tmp_path / "trial/queue.parquet").is_file()
    report = json.loads((tmp_path / "trial/audit.json").read_text(encoding="utf-8"))
    assert report["read"] == 201 and out.startswith("audit: 201 rows read")
    assert not (tmp_path / "reports").exists() and not (tmp_path / "data").exists()


def test_a_persons_file_at_out_is_refused(run_cli, tmp_path, split_rows):
    mine = tmp_path / "trial" / "queue.parquet"
    mine.parent.mkdir()
    mine.write_bytes(b"a reviewer's notes")
    before = snapshot(tmp_path)
    code, _, err = run_cli("audit", "--input", str(split_rows), "--out", str(mine), cwd=tmp_path)
    assert code == 1
    one_error_line(err, str(mine))
    assert snapshot(tmp_path) == before
    assert not os.path.exists(tmp_path / "trial" / "audit.json")
