"""Issue 23, "ownership": a command deletes or replaces only what it wrote.

Every case goes through the real command line (or the one writer every command uses,
``rucola.stage.StageRun``) and tries to make rucola destroy a person's file: answers in
the folder ``annotate simulate`` writes to, a task pool where ``annotate export`` writes,
a file at a stage's ``--out``, an output a person edited after rucola wrote it. Each must
end in exit 1, one line naming the file, and nothing changed; while an output rucola wrote,
or one ``dvc checkout`` restored from the lock, is replaced as before. A run killed at its
commit leaves only git-ignored staging files, which the next run removes; the Data Docs
land at the same paths every run, and ``validate --input`` leaves the pipeline's alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from guards import KILL_AT_COMMIT, one_error_line, snapshot
from identity import identity_yaml

from rucola.io import write_parquet

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "annotations"
CONTROLS = SAMPLE / "controls.tsv"
TRUTH = SAMPLE / "truth.tsv"
sys.path.insert(0, str(ROOT / "tests" / "validation"))


def is_scratch(name: str) -> bool:
    return name.startswith(".") and ("rucola-staged" in name or "rucola-tmp" in name)


def sh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    env["DVC_NO_ANALYTICS"] = "1"
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A working folder with a copy of the sample annotations (a person's real answers,
    committed to git, never written by rucola on this machine)."""
    shutil.copytree(SAMPLE, tmp_path / "annotations")
    (tmp_path / "params.yaml").write_text(
        identity_yaml(
            f"annotate:\n  controls: [{CONTROLS}]\n"
            "  stage1: [annotations/stage1]\n  stage2: []\n"
            f"screen:\n  out: {TRUTH}\n"
        ),  # the candidates annotate reads
        encoding="utf-8",
    )
    return tmp_path


def simulate(run_cli, project: Path, out_dir: str, fmt: str) -> tuple[int, str, str]:
    return run_cli(
        "annotate", "simulate", "--truth", str(TRUTH), "--out-dir", out_dir, "--format", fmt,
        "--workers", "15", "--method", "majority", "--report", "sim.json", cwd=project,
    )  # fmt: skip


# -- critical 1: simulate --out-dir over a person's answers -------------------------------


@pytest.mark.parametrize("fmt", ["toloka", "label_studio"])
def test_simulate_never_touches_a_persons_answers(run_cli, project, fmt):
    """Issue 23, critical 1: ``annotate simulate --out-dir`` pointed at the sample answers
    deleted ``stage1/results.json`` and ``stage2/results.json`` (toloka: "the other
    format's file") or overwrote them (label_studio), exit 0. Now: exit 1 naming the file,
    every byte as it was, no report."""
    before = snapshot(project / "annotations")
    code, _, stderr = simulate(run_cli, project, "annotations", fmt)
    assert code == 1
    one_error_line(stderr, "results.json", "not written by rucola")
    assert snapshot(project / "annotations") == before
    assert not (project / "sim.json").exists()


def test_simulate_refuses_a_persons_tsv_too(run_cli, project):
    """Issue 23, critical 1 (the Toloka side): a person's ``stage2/results.tsv`` in the
    out-dir is neither replaced by a Toloka run nor deleted by a Label Studio one."""
    answers = project / "mine" / "stage2" / "results.tsv"
    answers.parent.mkdir(parents=True)
    answers.write_text("INPUT:id\tOUTPUT:violation\nt1\tyes\n", encoding="utf-8")
    for fmt in ("toloka", "label_studio"):
        code, _, stderr = simulate(run_cli, project, "mine", fmt)
        assert code == 1
        one_error_line(stderr, "results.tsv")
        assert snapshot(project / "mine") == {"stage2/results.tsv": answers.read_bytes()}


@pytest.mark.slow
def test_simulate_rewrites_its_own_out_dir_in_either_format(run_cli, project):
    """Issue 23, critical 1 (what still holds): simulate into its own earlier out-dir, in
    the other format and back, replaces its own files and leaves one format."""
    for fmt, name in (("toloka", "results.tsv"), ("label_studio", "results.json")) * 2:
        code, _, stderr = simulate(run_cli, project, "sim", fmt)
        assert code == 0, stderr
        for stage in ("stage1", "stage2"):
            assert sorted(p.name for p in (project / "sim" / stage).iterdir()) == [name]


# -- minor: annotate export --out over a person's pool ----------------------------------


def test_export_refuses_a_persons_task_pool(run_cli, project):
    """Issue 23, minor: ``annotate export --out DIR`` overwrote a user's
    ``stage1_tasks.tsv``. Now: exit 1 naming it, and no pool file written beside it."""
    pool = project / "pool"
    pool.mkdir()
    (pool / "stage1_tasks.tsv").write_text("INPUT:id\tINPUT:sentence\nmine\tМоё.\n", "utf-8")
    before = snapshot(pool)
    code, _, stderr = run_cli("annotate", "export", "--out", "pool", cwd=project)
    assert code == 1
    one_error_line(stderr, "stage1_tasks.tsv")
    assert snapshot(pool) == before


def test_an_edited_output_is_refused_and_an_unchanged_one_replaced(run_cli, project):
    """Issue 23, "ownership": rucola's own pool is replaced on a second run; once a person
    edits it, it is theirs: exit 1 naming it, their edit kept."""
    assert run_cli("annotate", "export", "--out", "pool", cwd=project)[0] == 0
    assert run_cli("annotate", "export", "--out", "pool", cwd=project)[0] == 0
    config = project / "pool" / "stage1_label_config.xml"
    config.write_text(config.read_text(encoding="utf-8") + "<!-- my note -->\n", "utf-8")
    before = snapshot(project / "pool")
    code, _, stderr = run_cli("annotate", "export", "--out", "pool", cwd=project)
    assert code == 1
    one_error_line(stderr, "stage1_label_config.xml", "changed since")
    assert snapshot(project / "pool") == before


def test_a_persons_file_at_a_stage_out_path_is_refused(run_cli, project):
    """Issue 23, "ownership": a row stage's ``--out`` (and its other outputs) name a file a
    person put there: exit 1 naming it before any work, nothing written."""
    mine = project / "annotated.parquet"
    pq.write_table(pa.table({"id": ["mine"], "label": [1]}), mine)  # made without rucola
    mine_bytes = mine.read_bytes()
    code, _, stderr = run_cli(
        "annotate", "merge", "--out", "annotated.parquet", "--report", "r.json", cwd=project
    )
    assert code == 1
    one_error_line(stderr, "annotated.parquet")
    assert mine.read_bytes() == mine_bytes
    assert not (project / "r.json").exists()
    assert not (project / "data").exists()


# -- an output restored by dvc checkout ---------------------------------------------------

WRITER = """\
import sys
from rucola.io import write_text
write_text(sys.argv[1], "out.txt")
"""


@pytest.mark.slow
def test_an_output_restored_by_dvc_checkout_counts_as_written(tmp_path):
    """Issue 23, "ownership": an output ``dvc checkout`` (or a fresh clone and ``dvc
    pull``) restored carries no record of its own, but ``dvc.lock`` names it with its hash:
    rucola replaces it. Edited after the checkout, it no longer matches: refused."""
    assert sh("dvc", "init", "--no-scm", "-q", cwd=tmp_path).returncode == 0
    (tmp_path / "write.py").write_text(WRITER, encoding="utf-8")
    stage = {"cmd": f"{sys.executable} write.py v1", "deps": ["write.py"], "outs": ["out.txt"]}
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"w": stage}}), "utf-8")
    result = sh("dvc", "repro", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (tmp_path / "out.txt").unlink()
    assert sh("dvc", "checkout", "-q", cwd=tmp_path).returncode == 0
    out = tmp_path / "out.txt"
    assert out.read_text(encoding="utf-8") == "v1"
    with contextlib.suppress(OSError):  # a fresh clone's file has no attribute of ours
        os.removexattr(out, "user.rucola.sha256")
    lock = yaml.safe_load((tmp_path / "dvc.lock").read_text(encoding="utf-8"))
    assert lock["stages"]["w"]["outs"][0]["md5"] == hashlib.md5(b"v1").hexdigest()

    again = sh(sys.executable, "write.py", "v2", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert out.read_text(encoding="utf-8") == "v2"

    (tmp_path / "out.txt").unlink()
    assert sh("dvc", "checkout", "-q", cwd=tmp_path).returncode == 0
    out.write_text("v1 and my edit", encoding="utf-8")  # edited in place after the checkout
    refused = sh(sys.executable, "write.py", "v3", cwd=tmp_path)
    assert refused.returncode != 0
    assert "out.txt" in refused.stderr and "refusing" in refused.stderr
    assert out.read_text(encoding="utf-8") == "v1 and my edit"


# -- defect 5: what a run killed at its commit leaves ---------------------------------------

KILLED = (
    KILL_AT_COMMIT
    + """\
from pathlib import Path
import pyarrow as pa
from rucola.io import write_parquet, write_text

root = Path(sys.argv[1])
workers = root / "data/interim/annotation_workers.csv"
private = root / "data/release/private"
with stage.StageRun("demo", report=root / "reports/demo.json", outputs=[workers, private]) as run:
    write_text("worker,raw_id\\nw1,RAW-WORKER-ID\\n", run.path(workers))
    folder = run.folder(private)
    write_parquet(pa.table({"id": [1], "label": [0]}), folder / "test_gold.parquet")
    run.finish()
"""
)

LEFTOVERS = [
    "data/interim/.annotation_workers.csv.rucola-staged",
    "data/release/.private.rucola-staged/test_gold.parquet",
]


@pytest.mark.slow
def test_a_run_killed_at_its_commit_leaves_nothing_git_would_commit(tmp_path):
    """Issue 23, defect 5: a run killed at the commit step left
    ``data/release/.private.rucola-staged/test_gold.parquet`` and
    ``data/interim/.annotation_workers.csv.rucola-staged`` (raw worker ids) where git did
    not ignore them. Now they are git-ignored, and the next run removes them."""
    script = tmp_path / "killed.py"
    script.write_text(KILLED, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    killed = sh(sys.executable, str(script), str(project), "kill", cwd=tmp_path)
    assert killed.returncode == -9, killed.stderr
    for name in LEFTOVERS:
        assert (project / name).is_file(), name

    shutil.copy(ROOT / ".gitignore", project / ".gitignore")
    assert sh("git", "init", "-q", cwd=project).returncode == 0
    status = sh("git", "status", "--porcelain", "--untracked-files=all", cwd=project)
    assert status.returncode == 0, status.stderr
    assert "rucola-staged" not in status.stdout, status.stdout
    assert "rucola-tmp" not in status.stdout, status.stdout

    again = sh(sys.executable, str(script), str(project), "run", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    left = [p.relative_to(project).as_posix() for p in project.rglob("*") if is_scratch(p.name)]
    assert left == [], left
    assert (project / "data/release/private/test_gold.parquet").is_file()


def test_the_repository_ignores_every_staging_and_temporary_name():
    """Issue 23, defect 5, in this repository: every name a writer stages or writes
    temporarily is git-ignored (checked without creating a file here)."""
    names = [
        *LEFTOVERS,
        "data/interim/..annotation_workers.csv.rucola-staged.ab12_x9Z.rucola-tmp",
        "data/interim/.split.parquet.k3j_x9a2.rucola-tmp",
        "data/release/.rucola.old.k3j_x9a2.rucola-tmp/default/test.parquet",
        "reports/private/.validation_docs.k3j_x9a2.rucola-tmp/index.html",
        "data/interim/.rucola-written",
    ]
    result = sh("git", "check-ignore", "--no-index", *names, cwd=ROOT)
    assert sorted(result.stdout.split()) == sorted(names), result.stdout + result.stderr


# -- minor: Data Docs ---------------------------------------------------------------------


@pytest.mark.slow
def test_data_docs_land_at_the_same_paths_with_the_same_bytes(tmp_path):
    """Issue 23, minor: ``reports/validation_docs`` paths changed every run (GX names a
    run's pages by its time). Now the same data gives the same files, byte for byte."""
    from test_suite import params, valid_frame

    from rucola.validation.run import validate_split

    docs = []
    for name in ("first", "second"):
        folder = tmp_path / name
        write_parquet(valid_frame(), folder / "split.parquet")
        validate_split(folder / "split.parquet", params(), folder / "v.json", folder / "docs")
        docs.append(snapshot(folder / "docs"))
    assert any(name.startswith("validations/") for name in docs[0])
    assert sorted(docs[0]) == sorted(docs[1])
    assert docs[0] == docs[1]


@pytest.mark.slow
def test_validate_input_leaves_the_pipelines_data_docs_alone(run_cli, tmp_path):
    """Issue 23, minor: ``rucola validate --input X`` overwrote the pipeline's Data Docs
    with X's. Now a file given with ``--input`` gets its report only."""
    from test_suite import valid_frame

    write_parquet(valid_frame(), tmp_path / "split.parquet")
    other = valid_frame()
    other.loc[0, "sentence"] = "Совсем другое предложение."
    write_parquet(other, tmp_path / "other.parquet")
    (tmp_path / "params.yaml").write_text(
        identity_yaml(
            "split:\n  out: split.parquet\nvalidate:\n  report: validation.json\n  docs: docs\n"
        ),
        "utf-8",
    )
    run_cli("validate", cwd=tmp_path)
    assert (tmp_path / "docs" / "index.html").is_file()
    before = snapshot(tmp_path / "docs")
    code, _, stderr = run_cli(
        "validate", "--input", "other.parquet", "--report", "other.json", cwd=tmp_path
    )
    assert code in (0, 1) and "Traceback" not in stderr
    assert (tmp_path / "other.json").is_file()
    assert snapshot(tmp_path / "docs") == before
