"""Guarantee: the public release is a manifest (issue 23, "What to build" 1).

Every public file is built from the rows' public form and listed in the build's publish
manifest; ``rucola release publish`` uploads exactly those files and refuses any other. The
adversarial cases of the issue, each through the command a user runs, in a git project of
its own under ``tmp_path``; and the property that makes them hold by construction: shuffling
what the hidden test rows hide changes no byte of anything published.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from identity import identity_yaml, write_identity

from rucola.io import file_sha256

IN_SOURCES = ["Paducheva2004", "Testelets2001", "Seliverstova2004", "Lutikova2010"]
OOD_SOURCES = ["Tatoeba", "PAWS-X", "WikiMatrix"]
CATEGORIES = ["Morphology", "Syntax", "Semantics"]
HIDDEN = ["label", "error_type", "domain", "detailed_source"]
PARAMS_YAML = """\
release:
  changelog: CHANGELOG.md
  annotator_key: sample
split:
  pin: []
"""


def split_rows(learner: bool = True) -> pd.DataFrame:
    """A split stage output: 120 in-domain, 60 out-of-domain and (``learner``) 40 learner
    rows, a fifth of each in test, unacceptable rows with categories, ids per split and
    (outside test) per domain, as the split stage numbers them."""
    rows = []
    for i in range(120):
        label = int(i % 3 != 0)
        rows.append(
            ("in_domain", f"Это предложение номер {i} из книги.", label, IN_SOURCES[i % 4], i)
        )
    for i in range(60):
        label = int(i % 4 == 0)
        rows.append(
            ("out_of_domain", f"Кандидат {i} от переводчика.", label, OOD_SOURCES[i % 3], i)
        )
    if learner:
        for i in range(40):
            label = i % 2
            word = "пошли" if label else "пошёл"
            rows.append(("learner", f"Вчера мы {word} в парк номер {i // 2}.", label, "Essays", i))
    frame = pd.DataFrame(rows, columns=["domain", "sentence", "label", "detailed_source", "i"])
    frame["split"] = [
        "test" if i % 5 == 2 else "validation" if i % 5 == 4 else "train" for i in frame["i"]
    ]
    if learner:  # a minimal pair stays in one split
        pair = frame["domain"] == "learner"
        frame.loc[pair, "split"] = [
            "test" if (i // 2) % 5 == 2 else "validation" if (i // 2) % 5 == 4 else "train"
            for i in frame.loc[pair, "i"]
        ]
    frame["error_type"] = [
        None if label else CATEGORIES[i % 3]
        for label, i in zip(frame["label"], frame["i"], strict=True)
    ]
    frame["group"] = [
        f"p{i // 2}" if d == "learner" else f"g{d}{i}"
        for d, i in zip(frame["domain"], frame["i"], strict=True)
    ]
    frame = frame.drop(columns="i").sample(frac=1.0, random_state=3).reset_index(drop=True)
    scope = frame["domain"].where(frame["split"] != "test", "")
    frame["id"] = frame.groupby(["split", scope]).cumcount().astype("int64")
    frame["mark"] = ""
    frame["origin"] = [f"guard:{i}" for i in range(len(frame))]
    frame["n_tokens"] = frame["sentence"].str.split().str.len().astype("int64")
    frame["high_freq_share"] = 1.0
    return frame


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def write_split(root: Path, frame: pd.DataFrame) -> None:
    """The split data and a validation report that passes for exactly its bytes."""
    (root / "data/interim").mkdir(parents=True, exist_ok=True)
    (root / "reports").mkdir(exist_ok=True)
    path = root / "data/interim/split.parquet"
    frame.to_parquet(path, index=False)
    report = {"success": True, "data_sha256": file_sha256(path)}
    (root / "reports/private").mkdir(parents=True, exist_ok=True)
    (root / "reports/private/validation.json").write_text(json.dumps(report), encoding="utf-8")


def built_project(root: Path, run_cli, frame: pd.DataFrame, params: str = PARAMS_YAML) -> Path:
    """A clean git project whose release was built by ``rucola release build``."""
    root.mkdir(parents=True)
    write_split(root, frame)
    (root / "params.yaml").write_text(identity_yaml(params), encoding="utf-8")
    (root / ".gitignore").write_text("data/\nreports/\n", encoding="utf-8")
    code, _, stderr = run_cli("release", "build", "--params", "params.yaml", cwd=root)
    assert code == 0, stderr
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def dry_run(run_cli, root: Path, version: str = "1.0.0") -> tuple[int, str, str]:
    return run_cli(
        "release",
        "publish",
        "--repo-id",
        "org/rucola",
        "--version",
        version,
        "--dry-run",
        "--params",
        "params.yaml",
        cwd=root,
    )


@pytest.fixture
def project(tmp_path, run_cli) -> Path:
    return built_project(tmp_path / "project", run_cli, split_rows())


def test_the_built_release_publishes_as_built(project, run_cli):
    """The control for the refusals below: a fresh build's dry run passes and lists the
    manifest's files, the CSV layout included, and nothing private."""
    code, stdout, stderr = dry_run(run_cli, project)
    assert code == 0, stderr
    planned = [line.split()[0] for line in stdout.splitlines() if line.startswith("  ")]
    assert "rucola_csv/test.csv" in planned and "rucola_csv/sample_submission.csv" in planned
    assert {"README.md", "CHANGELOG.md", "release_manifest.json"} <= set(planned)
    assert "default/test.parquet" in planned and "learner/test.parquet" in planned
    assert not [p for p in planned if "gold" in p or p.startswith(".")]


@pytest.mark.parametrize(
    "stray", ["annotation_workers.csv", "extra/t.parquet", "rucola_csv_extra.csv"]
)
def test_publish_refuses_a_file_the_build_did_not_write(project, run_cli, stray):
    """Issue 23, critical 2: a worker table with raw worker ids placed in the public folder
    (``annotate.workers: data/release/rucola/annotation_workers.csv``), or a copy of the gold
    at ``extra/t.parquet``, was in the dry-run plan of the public repository."""
    path = project / "data/release/rucola" / stray
    path.parent.mkdir(parents=True, exist_ok=True)
    if stray.endswith(".parquet"):
        shutil.copyfile(project / "data/release/private/test_gold.parquet", path)
    else:
        path.write_text("worker_id,answers\nRAW-WORKER-7,12\n", encoding="utf-8")
    code, stdout, stderr = dry_run(run_cli, project)
    assert code == 1
    assert stderr.startswith("error: ") and str(Path("data/release/rucola") / stray) in stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert "RAW-WORKER" not in stdout and stray not in stdout


def test_publish_refuses_a_stray_file_in_the_csv_layout(project, run_cli):
    """Issue 23, critical 2: the CSV layout is public too; only what the build wrote there
    goes up."""
    (project / "data/release/rucola_csv/test_gold.csv").write_text("id,acceptable\n0,1\n")
    code, _, stderr = dry_run(run_cli, project)
    assert code == 1 and "data/release/rucola_csv/test_gold.csv" in stderr


def test_publish_refuses_a_file_changed_since_the_build(project, run_cli):
    """Issue 23, critical 2: a listed file whose bytes differ from the manifest (a label put
    back into the public test split) is refused, named."""
    path = project / "data/release/rucola/default/test.parquet"
    table = pd.read_parquet(path)
    table.assign(label=1).to_parquet(path)
    code, _, stderr = dry_run(run_cli, project)
    assert code == 1 and "data/release/rucola/default/test.parquet" in stderr
    assert "manifest" in stderr


@pytest.mark.slow
def test_the_public_diff_does_not_list_hidden_test_changes(tmp_path, run_cli):
    """Issue 23, critical 3: ``rucola release diff`` (and the changelog) listed hidden test
    rows as "recategorised ... (hidden) -> (hidden)": only unacceptable rows have a
    category, so that told those rows' labels."""
    write_identity(tmp_path)
    old = split_rows()
    new = old.copy()
    test = new.index[(new["split"] == "test") & (new["label"] == 0)]
    new.loc[test[:3], "error_type"] = "Hallucination"  # recategorised
    new.loc[test[3:6], ["label", "error_type"]] = [1, None]  # relabelled
    corrected = new.index[new["split"] == "test"][-1]
    new.loc[corrected, "sentence"] = "Исправленное тестовое предложение."
    for name, frame in (("v1", old), ("v2", new)):
        write_split(tmp_path / name, frame)
        code, _, stderr = run_cli(
            "release", "build", "--params", str(params_file(tmp_path / name)), cwd=tmp_path / name
        )
        assert code == 0, stderr
    code, stdout, stderr = run_cli(
        "release", "diff", "v1/data/release/rucola", "v2/data/release/rucola", cwd=tmp_path
    )
    assert code == 0, stderr
    assert "(hidden) -> (hidden)" not in stdout
    assert "| recategorised | 0 |" in stdout and "| relabelled | 0 |" in stdout
    assert "Исправленное тестовое предложение." in stdout  # a corrected text is public
    # the maintainers' diff still has them, from the private gold
    code, stdout, _ = run_cli(
        "release",
        "diff",
        "--private",
        "v1/data/release/rucola",
        "v2/data/release/rucola",
        cwd=tmp_path,
    )
    assert code == 0 and "| relabelled | 3 |" in stdout
    assert "| recategorised | 6 |" in stdout  # 3 moved category, 3 lost it when relabelled


def params_file(root: Path) -> Path:
    path = root / "params.yaml"
    path.write_text(identity_yaml(PARAMS_YAML), encoding="utf-8")
    return path


def test_the_csv_layout_and_default_hold_the_same_test_rows(project, run_cli):
    """Issue 23, critical 4: ``test.csv`` left out the learner test rows that
    ``default/test.parquet`` had (so the difference was exactly the learner rows), and
    ``rucola evaluate`` on the release's own ``sample_submission.csv`` exited 1."""
    release = project / "data/release"
    parquet = pd.read_parquet(release / "rucola/default/test.parquet")
    csv = pd.read_csv(release / "rucola_csv/test.csv")
    assert sorted(parquet["id"]) == sorted(csv["id"])
    learner = pd.read_parquet(release / "rucola/learner/test.parquet")
    assert len(learner) == 8 and set(learner["label"]) == {-1}
    assert learner[["error_type", "domain", "detailed_source"]].isna().all().all()
    sample = "data/release/rucola_csv/sample_submission.csv"
    code, stdout, stderr = run_cli("evaluate", sample, "--out", "reports/e.json", cwd=project)
    assert code == 0, stderr
    assert f"overall: n={len(parquet)}" in stdout
    # the learner test split is scored on its own, against its own gold
    gold = pd.read_parquet(release / "private/learner_test_gold.parquet")
    (project / "learner.csv").write_text(
        "id,acceptable\n"
        + "".join(f"{i},{y}\n" for i, y in zip(gold["id"], gold["label"], strict=True))
    )
    code, stdout, stderr = run_cli("evaluate", "learner.csv", "--config", "learner", cwd=project)
    assert code == 0, stderr
    assert "overall: n=8 accuracy=1.0000" in stdout


@pytest.mark.parametrize(
    ("private", "key"),
    [
        ("data/release/rucola", "release.private"),
        ("data/release/rucola/private", "release.private"),
        ("data/release", "release.private"),
    ],
)
def test_build_refuses_a_private_folder_inside_the_public_one(tmp_path, run_cli, private, key):
    """Issue 23, defect 6: ``release.private`` equal to ``release.out`` wrote
    ``test_gold.parquet`` into the public folder, exit 0."""
    root = tmp_path / "project"
    root.mkdir()
    write_split(root, split_rows())
    (root / "params.yaml").write_text(
        identity_yaml(PARAMS_YAML.replace("release:\n", f"release:\n  private: {private}\n")),
        encoding="utf-8",
    )
    code, _, stderr = run_cli("release", "build", "--params", "params.yaml", cwd=root)
    assert code == 1
    assert stderr.startswith("error: ") and key in stderr and "release.out" in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert not list(root.rglob("test_gold.parquet"))


def test_publish_refuses_a_version_with_leading_zeros(project, run_cli):
    """Issue 23, minor: version ``01.0.0`` was accepted (tag ``v01.0.0``, beside a
    ``v1.0.0`` that means the same)."""
    code, _, stderr = dry_run(run_cli, project, "01.0.0")
    assert code == 1 and "01.0.0" in stderr and "leading zeros" in stderr
    assert dry_run(run_cli, project, "10.0.0")[0] == 0  # a zero that is not leading is fine


def shuffled_hidden(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """``frame`` with labels, categories, domains and sources shuffled independently among
    the hidden test rows: domains only between RuCoLA's two (a learner test row is in the
    learner config, whose domain is public), categories following the labels' rule."""
    rng = np.random.default_rng(seed)
    out = frame.copy()
    test = out.index[out["split"] == "test"]
    for column in ("label", "detailed_source"):
        out.loc[test, column] = out.loc[test, column].to_numpy()[rng.permutation(len(test))]
    rucola = out.index[(out["split"] == "test") & (out["domain"] != "learner")]
    out.loc[rucola, "domain"] = out.loc[rucola, "domain"].to_numpy()[rng.permutation(len(rucola))]
    out.loc[test, "error_type"] = [
        None if label else CATEGORIES[int(rng.integers(3))] for label in out.loc[test, "label"]
    ]
    return out


def published(root: Path, run_cli) -> dict[str, bytes]:
    """Every byte that a publish would send: the files of the dry-run plan (from the
    manifest, checked by hash), the manifest and the changelog, against a fixed previous
    release."""
    from rucola.cli.common import read_settings
    from rucola.release.changelog import changelog_section, render_changelog
    from rucola.release.publish import plan_release

    old = Path.cwd()
    os.chdir(root)
    try:
        params = read_settings(Path("params.yaml"))
        entry = changelog_section("1.1.0", params.split.out, root.parent / "v1/rucola")
        text = render_changelog(Path(params.release.changelog), entry)
        plan = plan_release(params, "org/rucola", "1.1.0", None, text)
        files = {}
        for f in plan.files:
            files[f.path_in_repo] = f.content if f.content is not None else f.local.read_bytes()
    finally:
        os.chdir(old)
    return files


@pytest.mark.slow
def test_shuffling_what_test_rows_hide_changes_no_published_byte(tmp_path, run_cli):
    """Issue 23, "Done when": shuffling the test rows' labels, categories, domains and
    sources changes no byte of any file in the publish manifest, the CSV layout and the
    changelog included (built against a fixed previous release, with a row corrected, one
    removed and test rows relabelled and recategorised since)."""
    from release_params import typed

    from rucola.release.build import build_release

    previous = split_rows()
    write_split(tmp_path / "v1", previous)
    v1 = tmp_path / "v1"
    build_release(
        v1 / "data/interim/split.parquet",
        v1 / "reports/private/validation.json",
        typed({"corpus": {"pretty_name": "v1"}}, v1),
        v1 / "rucola",
        v1 / "private",
    )
    frame = previous.copy()
    train = frame.index[frame["split"] == "train"]
    frame.loc[train[0], "sentence"] = "Исправленное обучающее предложение."
    frame = frame.drop(index=train[1]).reset_index(drop=True)
    test = frame.index[frame["split"] == "test"]
    frame.loc[test[:4], "label"] = 1 - frame.loc[test[:4], "label"]
    frame.loc[test[:4], "error_type"] = [
        None if y else "Syntax" for y in frame.loc[test[:4], "label"]
    ]

    results = {}
    for name, rows in (
        ("a", frame),
        ("b", shuffled_hidden(frame, 1)),
        ("c", shuffled_hidden(frame, 2)),
    ):
        root = built_project(tmp_path / name, run_cli, rows)
        results[name] = published(root, run_cli)
    hidden_changed = [
        not pd.read_parquet(tmp_path / n / "data/release/private/test_gold.parquet").equals(
            pd.read_parquet(tmp_path / "a/data/release/private/test_gold.parquet")
        )
        for n in "bc"
    ]
    assert all(hidden_changed)  # the shuffles did change the hidden values...
    assert "CHANGELOG.md" in results["a"] and "rucola_csv/test.csv" in results["a"]
    assert "Исправленное обучающее предложение." in results["a"]["CHANGELOG.md"].decode()
    for name in "bc":  # ...and nothing that is published
        assert results[name].keys() == results["a"].keys()
        differing = [p for p in results["a"] if results[name][p] != results["a"][p]]
        assert differing == [], differing
