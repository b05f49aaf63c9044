"""The DVC pipeline on the embedded sample, in a real DVC repository in a temporary folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from dvc_project import ROOT, copy_of_built, ran, restore, sh

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(built_sample: Path, tmp_path_factory) -> Path:
    """The session's cold build of the sample (``conftest.built_sample``), copied."""
    return copy_of_built(built_sample, tmp_path_factory.mktemp("project") / "sample")


def test_repro_builds_a_loadable_release_and_reruns_only_what_changed(
    project: Path, cold_repro: str
):
    assert sorted(ran(cold_repro)) == sorted(
        [
            "fingerprint_code",
            "track_index",
            "track_extract@0",
            "track_extract@1",
            "track_source@SampleWiki",
            "track_source@SampleParallel",
            "track_generators",
            "track_controls@data/sample/annotations/controls.tsv",
            "track_stage1@data/sample/annotations/stage1",
            "track_stage2@data/sample/annotations/stage2",
            "extract",
            "generate@perturbations",
            "generate@opus_mt",
            "generate@m2m_back_translation",
            "generate@mt5_paraphrase",
            "merge_candidates",
            "measure_candidates",
            "screen",
            "annotate_export",
            "annotate_merge",
            "annotate_corpus",
            "measure",
            "filter",
            "split",
            "audit",
            "audit_export",
            "baseline",
            "human_eval",
            "validate",
            "release",
            "summarize",
        ]
    )
    candidates = pq.read_table(project / "data/interim/candidates/perturbations.parquet")
    assert candidates.num_rows > 0
    assert set(candidates.column("method").to_pylist()) == {"perturbation"}
    split = pq.read_table(project / "data/interim/split.parquet").to_pandas()
    ood = split[split["domain"] == "out_of_domain"]
    assert len(ood) > 0 and set(ood["split"]) <= {"validation", "test"}
    learner = split[split["domain"] == "learner"]  # the sample's M2 file
    assert set(learner["split"]) == {"train", "validation", "test"}
    assert set(learner["detailed_source"]) == {"SampleLearner"}
    assert (project / "data/interim/annotation_tasks").is_dir()
    card = (project / "data/release/rucola/README.md").read_text(encoding="utf-8")
    assert "WAWA agreement" in card
    inputs = project / "reports/inputs"
    fingerprint = json.loads((inputs / "extract.sources/data/sample/in_domain.json").read_text())
    assert fingerprint["kind"] == "folder" and len(fingerprint["files"]) == len(
        list((project / "data/sample/in_domain").iterdir())
    )
    for family in ("filter.frequency.path", "split.pin", "annotate.votes"):
        assert sorted(p.name for p in (inputs / family).iterdir()) == ["_params.json"]
    release = project / "data/release/rucola"
    assert (release / "README.md").is_file()
    assert (project / "data/release/private/test_gold.parquet").is_file()
    assert (project / "reports/plots/token_lengths.png").is_file()

    from datasets import ClassLabel, load_dataset

    cwd = Path.cwd()
    os.chdir(project / "data/release")
    try:
        dataset = load_dataset("rucola")
    finally:
        os.chdir(cwd)
    assert set(dataset) == {"train", "validation", "test"}
    assert isinstance(dataset["train"].features["label"], ClassLabel)
    assert set(dataset["test"]["label"]) == {-1}
    pairs = load_dataset(str(project / "data/release/rucola"), "learner")
    # learner is a configuration of its own, with its own hidden test split; default's
    # test holds RuCoLA's two domains only, the same rows as the CSV layout's test.csv
    assert set(pairs) == {"train", "validation", "test"}
    assert set(pairs["test"]["label"]) == {-1} and set(pairs["test"]["domain"]) == {None}
    test_csv = (project / "data/release/rucola_csv/test.csv").read_text(encoding="utf-8")
    assert len(test_csv.splitlines()) - 1 == len(dataset["test"])
    assert set(pairs["train"]["domain"]) == {"learner"}
    assert set(pairs["train"]["label"]) == {0, 1}

    second = sh("dvc", "repro", cwd=project)
    assert ran(second) == []
    lock = (project / "dvc.lock").read_bytes()

    params = yaml.safe_load((project / "params.yaml").read_text())
    params["generate"]["generators"]["perturbations"]["per_sentence"] = 1
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    changed = ran(sh("dvc", "repro", "generate@perturbations", "merge_candidates", cwd=project))
    # The generators' tracker reruns (their settings changed); only the file of the one
    # whose settings changed changes, so no other generator runs.
    assert changed == [
        "track_index",
        "track_generators",
        "generate@perturbations",
        "merge_candidates",
    ]
    restore(project)  # the committed build again, from DVC's cache
    lock = (project / "dvc.lock").read_bytes()

    params = yaml.safe_load((project / "params.yaml").read_text())
    params["filter"]["min_tokens"] = 5
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    third = sh("dvc", "repro", cwd=project)
    # A corpus threshold reruns the corpus filter, never the attributes (measure), anything
    # upstream, nor the screening and annotation that answers were paid for (screen has
    # thresholds of its own).
    assert "filter" in ran(third)
    for stage in (
        "extract",
        "measure",
        "measure_candidates",
        "generate@perturbations",
        "screen",
        "annotate_export",
        "annotate_merge",
    ):
        assert stage not in ran(third)
    assert (project / "dvc.lock").read_bytes() != lock


def outputs(lock: dict) -> dict[tuple[str, str], str]:
    """(stage, output) -> its hash, as a ``dvc.lock`` records them."""
    return {
        (stage, out["path"]): out.get("md5") or out.get("hash", "")
        for stage, record in lock["stages"].items()
        for out in record.get("outs", [])
    }


def test_a_cold_build_writes_the_bytes_the_committed_lock_records(built_sample: Path):
    """The session's cold build, in a repository of its own, gives every output the bytes
    of the repository's dvc.lock (``make repro`` in a fresh clone wrote it): two builds on
    two machines, byte for byte, stage by stage."""
    built = outputs(yaml.safe_load((built_sample / "dvc.lock").read_text(encoding="utf-8")))
    committed = outputs(yaml.safe_load((ROOT / "dvc.lock").read_text(encoding="utf-8")))
    assert len(built) > 80
    assert {k: v for k, v in built.items() if committed.get(k) != v} == {}
    assert built.keys() == committed.keys()


def test_outputs_are_byte_identical_on_a_forced_rerun(project: Path):
    outs = [
        "data/interim/in_domain.parquet",
        "data/interim/split.parquet",
        "reports/validation.json",
        "data/release/rucola/README.md",
    ]
    sh("dvc", "repro", cwd=project)
    before = {name: (project / name).read_bytes() for name in outs}
    # the stages that write them, run again (the whole pipeline's bytes: the test above)
    for stage in ("extract", "split", "validate", "release"):
        sh("dvc", "repro", "--force", "--single-item", stage, cwd=project)
    assert {name: (project / name).read_bytes() for name in outs} == before


def test_a_real_round_tracked_with_dvc_add(project: Path):
    """The documented workflow: answers under data/annotations/, `dvc add`, params, repro."""
    sh("dvc", "repro", cwd=project)
    before = (project / "data/interim/annotated.parquet").read_bytes()
    round_dir = project / "data/annotations/round1"
    for stage in ("stage1", "stage2"):
        shutil.copytree(project / "data/sample/annotations" / stage, round_dir / stage)
    sh("dvc", "add", "data/annotations/round1", cwd=project)
    assert (project / "data/annotations/round1.dvc").is_file()
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["annotate"]["stage1"] = ["data/annotations/round1/stage1"]
    params["annotate"]["stage2"] = ["data/annotations/round1/stage2"]
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    # No dvc.yaml edit: the answers' tracker stages follow params.
    status = sh("dvc", "status", cwd=project)
    assert "annotate.stage1" in status and "data/annotations/round1/stage1" in status
    changed = ran(sh("dvc", "repro", cwd=project))
    assert "track_stage1@data/annotations/round1/stage1" in changed
    assert "annotate_merge" in changed
    assert (project / "data/interim/annotated.parquet").read_bytes() == before
    answers = project / "data/annotations/round1/stage1/results.json"
    answers.write_bytes(answers.read_bytes() + b"\n")
    assert "data/annotations/round1/stage1" in sh("dvc", "status", cwd=project)
    assert ran(sh("dvc", "repro", cwd=project))[:2] == [
        "track_stage1@data/annotations/round1/stage1",
        "annotate_merge",
    ]
    restore(project)  # the sample's answers named again: the committed build, from the cache
    assert not round_dir.exists()  # untracked, it went with git clean


def write_params(project: Path, params: dict) -> None:
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))


def test_editing_an_input_reruns_its_tracker_and_the_stage_that_reads_it(project: Path):
    sh("dvc", "repro", cwd=project)
    controls = project / "data/sample/annotations/controls.tsv"
    original = controls.read_bytes()
    controls.write_bytes(original.replace(b"ctl-01", b"ctl-0a", 1))
    status = sh("dvc", "status", cwd=project)
    assert "modified:" in status and "data/sample/annotations/controls.tsv" in status
    assert ran(sh("dvc", "repro", cwd=project)) == [
        "track_controls@data/sample/annotations/controls.tsv",
        "annotate_export",
    ]
    controls.write_bytes(original)
    sh("dvc", "repro", cwd=project)

    # A comment line: extract reruns, writes the same rows, nothing after it reruns.
    listing = project / "data/sample/in_domain/word_order.txt"
    original = listing.read_bytes()
    listing.write_bytes(original + b"# one more comment\n")
    assert "data/sample/in_domain" in sh("dvc", "status", cwd=project)
    assert ran(sh("dvc", "repro", cwd=project)) == ["track_extract@0", "extract"]
    listing.write_bytes(original)
    sh("dvc", "repro", cwd=project)

    # A source only a disabled generator reads: no generator reruns.
    parallel = project / "data/sample/out_of_domain/parallel.tsv"
    original = parallel.read_bytes()
    parallel.write_bytes(original + b"\n")
    changed = ran(sh("dvc", "repro", cwd=project))
    assert changed[0] == "track_source@SampleParallel"
    assert not [stage for stage in changed if not stage.startswith("track_")]
    parallel.write_bytes(original)
    sh("dvc", "repro", cwd=project)
    assert "up to date" in sh("dvc", "status", cwd=project)


def test_switching_the_sources_in_params_and_back(project: Path):
    """What extract reads follows params, its trackers with it (only extract and what it
    depends on is built here: the stages after it read its output, whatever it came from)."""
    sh("dvc", "repro", cwd=project)
    params = yaml.safe_load((project / "params.yaml").read_text())
    sample = params["extract"]["sources"]
    try:
        params["extract"]["sources"] = [{"path": "data/sample/in_domain"}]
        write_params(project, params)
        sh("dvc", "repro", "extract", cwd=project)
        rows = pq.read_table(project / "data/interim/in_domain.parquet").num_rows
        other = project / "data/more/in_domain"
        shutil.copytree(project / "data/sample/in_domain", other)
        with open(other / "agreement.tsv", "a", encoding="utf-8") as sheet:
            sheet.write("Бабушка испекла вкусный яблочный пирог.\t\t\tSampleAgreement\n")
        params = yaml.safe_load((project / "params.yaml").read_text())
        params["extract"]["sources"] = [{"path": "data/more/in_domain"}]
        write_params(project, params)
        status = sh("dvc", "status", cwd=project)
        assert "extract.sources" in status and "track_extract@0" in status
        changed = ran(sh("dvc", "repro", "extract", cwd=project))
        # the trackers, in either order (DVC orders a target's upstream stages as it likes)
        assert set(changed[:2]) == {"track_index", "track_extract@0"} and changed[2] == "extract"
        assert pq.read_table(project / "data/interim/in_domain.parquet").num_rows == rows + 1
        inputs = project / "reports/inputs/extract.sources"
        assert (inputs / "data/more/in_domain.json").is_file()
        assert not (inputs / "data/sample").exists()  # the sample is no input any more

        params["extract"]["sources"] = [{"path": "data/sample/in_domain"}]
        write_params(project, params)
        assert "extract.sources" in sh("dvc", "status", cwd=project)
        sh("dvc", "repro", "extract", cwd=project)
        assert pq.read_table(project / "data/interim/in_domain.parquet").num_rows == rows
        assert (inputs / "data/sample/in_domain.json").is_file()
        assert not (inputs / "data/more").exists()
        assert "up to date" in sh("dvc", "status", "extract", cwd=project)
    finally:  # the sample's sources again, whatever failed: the module's next tests build on it
        shutil.rmtree(project / "data/more", ignore_errors=True)
        params["extract"]["sources"] = sample
        write_params(project, params)
        sh("dvc", "repro", "extract", cwd=project)
    assert (project / "reports/inputs/extract.sources/data/sample/learner.json").is_file()


def test_paths_come_from_params_alone(project: Path):
    """dvc.yaml interpolates its paths from params.yaml: moving an output there moves it
    for DVC too, with no dvc.yaml edit, and reruns only the stage that writes it."""
    sh("dvc", "repro", cwd=project)
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["split"]["report"] = "reports/split_moved.json"
    write_params(project, params)
    # summarize reads the report where params now put it
    assert ran(sh("dvc", "repro", cwd=project)) == ["split", "summarize"]
    # DVC itself records the moved path as the split's output
    lock = yaml.safe_load((project / "dvc.lock").read_text())
    assert "reports/split_moved.json" in [o["path"] for o in lock["stages"]["split"]["outs"]]
    moved = json.loads((project / "reports/split_moved.json").read_text())
    assert moved == json.loads((project / "reports/split.json").read_text())  # same run, moved
    restore(project)  # the report where it was: the committed build, from the cache


def test_params_that_name_no_answers_build_without_annotation(project: Path):
    params = yaml.safe_load((project / "params.yaml").read_text())
    saved = {k: params["annotate"][k] for k in ("controls", "stage1", "stage2", "votes")}
    params["annotate"].update(controls=[], stage1=[], stage2=[], votes=[])
    write_params(project, params)
    sh("dvc", "repro", cwd=project)
    combined = pq.read_table(project / "data/interim/combined.parquet").to_pandas()
    assert set(combined["domain"]) == {"in_domain", "learner"}  # no out-of-domain row
    assert pq.read_table(project / "data/interim/annotated.parquet").num_rows == 0
    report = json.loads((project / "reports/annotation.json").read_text())
    assert report["has_answers"] is False and report["tasks"]["total"] == 0
    card = (project / "data/release/rucola/README.md").read_text(encoding="utf-8")
    assert "Annotation agreement" not in card and "WAWA" not in card
    assert "data/sample/annotations" not in (project / "dvc.yaml").read_text()
    lock = yaml.safe_load((project / "dvc.lock").read_text())["stages"]
    for stage in sh("dvc", "stage", "list", "--name-only", cwd=project).split():
        for dep in lock[stage].get("deps", []):
            assert not dep["path"].startswith("data/sample/annotations"), stage
    # The sample's answers are no input now: editing them changes nothing.
    answers = project / "data/sample/annotations/stage1/results.json"
    original = answers.read_bytes()
    answers.write_bytes(original + b"\n")
    status = sh("dvc", "status", cwd=project)
    assert "up to date" in status and "data/sample/annotations" not in status
    answers.write_bytes(original)

    restore(project)  # the answers named again: the committed build, from DVC's cache
    assert (
        yaml.safe_load((project / "params.yaml").read_text())["annotate"]["stage1"]
        == saved["stage1"]
    )
    card = (project / "data/release/rucola/README.md").read_text(encoding="utf-8")
    assert "WAWA agreement" in card


@pytest.mark.parametrize("path", ["../outside", "/abs/answers", "data/../../x"])
def test_track_refuses_inputs_outside_the_repository(project: Path, path: str):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    result = subprocess.run(
        ["rucola", "track", "annotate.stage1", path],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "DVC can only track inputs inside the repository" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_track_fingerprints_both_sides_of_a_pair(tmp_path: Path, monkeypatch):
    from rucola.settings import Params
    from rucola.track import track_index
    from rucola.track_input import track

    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data/pair.rus").write_text("Привет.\n", encoding="utf-8")
    (tmp_path / "data/pair.eng").write_text("Hello.\n", encoding="utf-8")
    params = Params.model_validate({"generate": {"sources": {"Pair": {"path": "data/pair.rus"}}}})
    track_index(params)  # the index says the source is read as a pair
    record = json.loads(track("generate.sources", "data/pair.rus", "Pair").read_text())
    assert [f["name"] for f in record["files"]] == ["data/pair.rus", "data/pair.eng"]
    (tmp_path / "data/pair.eng").write_text("Hi.\n", encoding="utf-8")
    again = json.loads(track("generate.sources", "data/pair.rus", "Pair").read_text())
    assert again["sha256"] != record["sha256"]
    # read as plain text (its format in params): one side only
    text = {"path": "data/pair.rus", "format": "text"}
    track_index(Params.model_validate({"generate": {"sources": {"Pair": text}}}))
    plain = json.loads(track("generate.sources", "data/pair.rus", "Pair").read_text())
    assert plain["kind"] == "file" and "files" not in plain
