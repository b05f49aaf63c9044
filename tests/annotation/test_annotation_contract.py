"""Annotate merge and export follow the row-stage rules (``rucola.stage``): no silent
empty round, counts that add up, one line naming a damaged input, and the previous outputs
kept when a run fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from annotation_helpers import STAGE1_HEADER, write_tsv
from identity import identity_yaml
from test_annotation_export import candidates

import rucola.annotation.label_studio
import rucola.annotation.merge
from rucola.io import write_parquet

MERGE_OUTPUTS = [
    "data/interim/annotated.parquet",
    "reports/annotation.json",
    "data/interim/annotation_workers.csv",
    "reports/plots/annotation_agreement.csv",
    "reports/plots/annotation_agreement.png",
]


def outputs(project: Path, names: list[str] = MERGE_OUTPUTS) -> dict[str, bytes]:
    return {name: (project / name).read_bytes() for name in names}


def staged_leftovers(project: Path) -> list[Path]:
    return [p for p in project.rglob(".*") if "rucola-staged" in p.name or p.suffix == ".tmp"]


def adds_up(report: dict) -> None:
    assert report["read"] == report["kept"] + sum(report["set_aside"].values())


def test_merge_report_counts_every_task(run_cli, project, hand_export):
    code, _, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 0, stderr
    report = json.loads((project / "reports/annotation.json").read_text(encoding="utf-8"))
    adds_up(report)
    assert report["read"] == report["tasks"]["total"] == 5
    assert report["kept"] == report["tasks"]["by_status"]["labelled"] == 2
    assert report["set_aside"] == {
        "pending:awaiting_stage2": 1,
        "pending:tie": 1,
        "pending:too_few_votes": 1,
    }


def test_an_empty_round_reports_nothing_read(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("annotate:\n  controls: []\n  stage1: []\n  stage2: []\n  votes: []\n"),
        encoding="utf-8",
    )
    assert run_cli("annotate", "merge", cwd=tmp_path)[0] == 0
    report = json.loads((tmp_path / "reports/annotation.json").read_text(encoding="utf-8"))
    assert (report["read"], report["kept"], report["set_aside"]) == (0, 0, {})


def test_a_folder_without_answer_files_is_an_error(run_cli, project, hand_export):
    assert run_cli("annotate", "merge", cwd=project)[0] == 0
    before = outputs(project)
    hand_export.rename(project / "pool.txt")  # the folder now holds no .tsv or .csv
    code, _, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 1
    assert "stage1: no answer files (*.tsv, *.csv, *.json) in this folder" in stderr
    assert outputs(project) == before
    assert not staged_leftovers(project)


def test_an_empty_stage2_folder_is_an_error(run_cli, project, hand_export):
    (project / "stage2").mkdir()
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "stage1", "--stage2", "stage2",
                              cwd=project)  # fmt: skip
    assert code == 1
    assert "stage2: no answer files (*.tsv, *.json) in this folder" in stderr
    assert not (project / "data/interim/annotated.parquet").exists()


@pytest.mark.parametrize("kind", ["toloka", "long"])
def test_a_header_only_file_is_an_error(run_cli, project, kind):
    if kind == "toloka":
        path = write_tsv(project / "stage1" / "results.tsv", STAGE1_HEADER, [])
        args = ["--stage1", "stage1"]
    else:
        path = project / "votes.csv"
        path.write_text("task,worker,label\n", encoding="utf-8")
        args = ["--votes", "votes.csv"]
    code, _, stderr = run_cli("annotate", "merge", *args, cwd=project)
    assert code == 1
    assert f"{path.relative_to(project) if kind == 'long' else path.name}" in stderr
    assert "no answers: the file has a header row but no rows" in stderr
    assert not (project / "data/interim/annotated.parquet").exists()


def test_file_names_match_in_any_case(run_cli, project, hand_export):
    hand_export.rename(hand_export.with_name("RESULTS.TSV"))
    code, stdout, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 0, stderr
    assert "5 tasks" in stdout
    long = project / "votes"
    long.mkdir()
    (long / "VOTES.CSV").write_text("task,worker,label\nx1,w9,1\n", encoding="utf-8")
    code, stdout, stderr = run_cli("annotate", "merge", "--votes", "votes", cwd=project)
    assert code == 0, stderr
    assert "1 tasks" in stdout


@pytest.mark.slow
def test_merge_failing_at_the_plot_keeps_the_previous_outputs(
    run_cli, project, hand_export, monkeypatch
):
    assert run_cli("annotate", "merge", cwd=project)[0] == 0
    before = outputs(project)
    real = rucola.annotation.merge.write_agreement_plot

    def half(report, csv_path, png_path):
        real(report, csv_path, png_path)
        raise RuntimeError("the plot backend crashed")

    monkeypatch.setattr(rucola.annotation.merge, "write_agreement_plot", half)
    with pytest.raises(RuntimeError, match="plot backend"):
        run_cli("annotate", "merge", "--method", "dawid_skene", cwd=project)
    assert outputs(project) == before
    assert not staged_leftovers(project)


@pytest.mark.parametrize("damage", ["truncated", "not_parquet"])
def test_export_names_a_damaged_candidates_file(run_cli, project, damage):
    path = project / "cands.parquet"
    write_parquet(candidates(8), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"PAR1 not really")
    code, _, stderr = run_cli("annotate", "export", "--input", "cands.parquet", "--out",
                              "pool", cwd=project)  # fmt: skip
    assert code == 1
    assert "cands.parquet: candidates is not a readable parquet file" in stderr
    assert not (project / "pool").exists() or not any((project / "pool").iterdir())


def test_export_manifests_add_up(run_cli, project, hand_export):
    write_parquet(candidates(9), project / "cands.parquet")
    code, _, stderr = run_cli("annotate", "export", "--input", "cands.parquet", "--out",
                              "pool", cwd=project)  # fmt: skip
    assert code == 0, stderr
    first = json.loads((project / "pool/stage1_manifest.json").read_text(encoding="utf-8"))
    adds_up(first)
    assert (first["read"], first["kept"], first["tasks"]) == (9, 9, 9)
    assert first["golden_set"].endswith("controls.tsv")
    code, _, stderr = run_cli("annotate", "export", "--stage", "2", "--out", "pool", cwd=project)
    assert code == 0, stderr
    second = json.loads((project / "pool/stage2_manifest.json").read_text(encoding="utf-8"))
    adds_up(second)
    assert second["read"] == 5 and second["kept"] == second["tasks"] == 1
    assert second["set_aside"] == {
        "acceptable_at_stage1": 2,
        "pending:tie": 1,
        "pending:too_few_votes": 1,
    }


def test_export_failing_half_way_keeps_the_previous_pool(run_cli, project, monkeypatch):
    write_parquet(candidates(9), project / "cands.parquet")
    args = ["annotate", "export", "--input", "cands.parquet", "--out", "pool"]
    assert run_cli(*args, cwd=project)[0] == 0
    names = [f"pool/stage1_{n}" for n in ("tasks.tsv", "tasks.json", "manifest.json")]
    before = outputs(project, names)
    write_parquet(candidates(12), project / "cands.parquet")

    def boom(pool, page_size, stage, field):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(rucola.annotation.label_studio, "tasks", boom)
    with pytest.raises(RuntimeError, match="out of memory"):
        run_cli(*args, cwd=project)
    assert outputs(project, names) == before
    assert not staged_leftovers(project)


def test_simulate_names_a_damaged_truth_table(run_cli, project):
    path = project / "truth.parquet"
    path.write_bytes(b"not parquet at all")
    code, _, stderr = run_cli("annotate", "simulate", "--truth", "truth.parquet", cwd=project)
    assert code == 1
    assert "truth.parquet: truth table is not a readable parquet file" in stderr


def test_raw_worker_ids_stay_out_of_git():
    """The worker table and the kept votes name workers as the platform does: DVC caches
    them (so git ignores them), and no file git tracks holds one."""
    import subprocess

    import yaml

    root = Path(__file__).resolve().parents[2]
    stage = yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    merge = stage["annotate_merge"]
    cached = [next(iter(o)) if isinstance(o, dict) else o for o in merge["outs"]]
    assert {"${annotate.workers}", "${annotate.votes_out}"} <= set(cached)
    for kind in ("metrics", "plots"):
        names = {next(iter(o)) for o in merge.get(kind, [])}
        assert not names & {"${annotate.workers}", "${annotate.votes_out}"}
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    assert not [t for t in tracked if "annotation_workers" in t or t.endswith("votes.parquet")]
