"""Task pools: pages of five with one control, seeded, in the Toloka task layout."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from annotation_helpers import CONTROLS, FORM
from identity import identity_yaml

from rucola.annotation.export import make_pages, read_controls
from rucola.annotation.toloka import read_toloka
from rucola.errors import RucolaError
from rucola.io import write_parquet


def candidates(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sentence": [f"Кандидат номер {i}." for i in range(n)],
            "detailed_source": "Tatoeba",
            "generator": "rule",
            "method": "perturbation",
            "source_sentence": [f"Candidate {i}." for i in range(n)],
            "seed": 1,
            "candidate_id": [f"c{i:03d}" for i in range(n)],
        }
    )


def test_golden_set_sample_is_valid():
    controls = read_controls(CONTROLS, FORM)
    assert len(controls) >= 20
    assert set(controls["label"]) == {0, 1}
    unacceptable = controls[controls["label"] == 0]
    assert unacceptable["error_type"].notna().all()
    assert {"Morphology", "Syntax", "Semantics"} <= set(unacceptable["error_type"])


def test_pages_hold_one_control_and_cycle_the_golden_set():
    rng = np.random.default_rng(0)
    tasks = [f"t{i}" for i in range(10)]
    pages = make_pages(tasks, ["g1", "g2", "g3"], 5, 1, rng)
    assert [len(p) for p in pages] == [5, 5, 3]
    assert [sum(c for _, c in p) for p in pages] == [1, 1, 1]
    assert sorted(t for p in pages for t, c in p if not c) == sorted(tasks)
    assert len({t for p in pages for t, c in p if c}) == 3  # no control twice before all once
    with pytest.raises(RucolaError, match="leaves no room"):
        make_pages(tasks, ["g1"], 1, 1, rng)


def test_cli_export_stage1_is_seeded_and_laid_out(run_cli, project):
    write_parquet(candidates(22), project / "cands.parquet")
    code, stdout, stderr = run_cli(
        "annotate", "export", "--stage", "1", "--input", "cands.parquet", "--out", "pool",
        cwd=project,
    )  # fmt: skip
    assert code == 0, stderr
    pool = read_toloka(project / "pool/stage1_tasks.tsv")
    assert pool.columns.tolist() == [
        "INPUT:id",
        "INPUT:sentence",
        "GOLDEN:violation",
        "HINT:text",
        "_line",
    ]
    assert len(pool) == 22 + 6  # 6 pages of 4 tasks (the last of 2) and one control each
    pages = [pool.iloc[i : i + 5] for i in range(0, len(pool), 5)]
    assert all((page["GOLDEN:violation"] != "").sum() == 1 for page in pages)
    assert set(pool.loc[pool["GOLDEN:violation"] != "", "GOLDEN:violation"]) <= {"yes", "no"}
    tasks = json.loads((project / "pool/stage1_tasks.json").read_text())
    assert len(tasks) == len(pool) and tasks[0]["data"]["page"] == 1
    first = (project / "pool/stage1_tasks.tsv").read_bytes()
    assert run_cli("annotate", "export", "--input", "cands.parquet", "--out", "pool",
                   cwd=project)[0] == 0  # fmt: skip
    assert (project / "pool/stage1_tasks.tsv").read_bytes() == first


def test_cli_export_stage2_takes_the_unacceptable(run_cli, project, hand_export):
    code, _, stderr = run_cli("annotate", "export", "--stage", "2", "--out", "pool", cwd=project)
    assert code == 0, stderr
    pool = read_toloka(project / "pool/stage2_tasks.tsv")
    real = pool[pool["GOLDEN:syntax"] == ""]
    assert real["INPUT:id"].tolist() == ["t2"]  # the only task stage 1 judged unacceptable
    assert real["INPUT:sentence"].iloc[0] == "Первая строка\nвторая строка."
    controls = pool[pool["GOLDEN:syntax"] != ""]
    assert len(controls) == 1
    golden = controls[[c for c in pool.columns if c.startswith("GOLDEN:")]].iloc[0]
    assert (golden == "true").sum() == 1


def test_controls_with_bad_label_fail_with_line(tmp_path):
    path = tmp_path / "controls.tsv"
    path.write_text("id\tsentence\tlabel\nc1\tПример.\t1\nc2\tПример два.\tmaybe\n")
    with pytest.raises(RucolaError, match="unknown label 'maybe'") as info:
        read_controls(path, FORM)
    assert info.value.line == 3


def test_controls_as_a_list_of_at_most_one(tmp_path):
    assert read_controls([str(CONTROLS)], FORM).equals(read_controls(CONTROLS, FORM))
    for nothing in (None, "", []):
        assert read_controls(nothing, FORM).empty
        assert read_controls(nothing, FORM).columns.tolist() == [
            "id",
            "sentence",
            "label",
            "error_type",
            "hint",
        ]
    with pytest.raises(RucolaError, match="at most one golden set"):
        read_controls([CONTROLS, CONTROLS], FORM)


def test_cli_export_without_controls_or_candidates(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("annotate:\n  controls: []\n  stage1: []\n  stage2: []\n"), encoding="utf-8"
    )
    write_parquet(candidates(7), tmp_path / "cands.parquet")
    code, stdout, stderr = run_cli(
        "annotate", "export", "--input", "cands.parquet", "--out", "pool", cwd=tmp_path
    )
    assert code == 0, stderr
    assert "no golden set" in stdout
    pool = read_toloka(tmp_path / "pool/stage1_tasks.tsv")
    assert len(pool) == 7 and (pool["GOLDEN:violation"] == "").all()
    manifest = json.loads((tmp_path / "pool/stage1_manifest.json").read_text())
    assert manifest["control_rows"] == 0 and manifest["pages"] == 2

    write_parquet(candidates(0), tmp_path / "none.parquet")
    code, _, stderr = run_cli(
        "annotate", "export", "--input", "none.parquet", "--out", "empty", cwd=tmp_path
    )
    assert code == 0, stderr
    assert read_toloka(tmp_path / "empty/stage1_tasks.tsv").empty
    assert json.loads((tmp_path / "empty/stage1_tasks.json").read_text()) == []
