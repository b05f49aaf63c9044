"""A release manager's workflow on the published RuCoLA files (needs RUCOLA_SHARED_DATA).

In a real DVC repository in a temporary folder: the published files go into
``data/raw/rucola_v1/`` (``dvc add``); ``configs/rucola-v1.yaml`` rebuilds them byte for
byte; ``configs/rucola-v1.1.yaml`` applies the corrections while every surviving row keeps
its id and split, and ``rucola release diff`` lists exactly the corrected or removed rows
with their causes; with the maintainer's private test gold, ``rucola evaluate`` scores the
published ``sample_submission.csv`` layout.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from audit_checks import assert_v1_audit

pytestmark = pytest.mark.slow

PUBLISHED = ["in_domain_train.csv", "in_domain_dev.csv", "out_of_domain_dev.csv", "test.csv"]
RAW = Path("data/raw/rucola_v1")
COUNTS = {
    "default": {"train": 7869, "validation": 2787, "test": 2789},
    "in_domain": {"train": 7869, "validation": 983},
    "out_of_domain": {"validation": 1804},
}

# v1.1's corrections and removals as they were before issue 42 taught the homoglyph and
# artefact rules other scripts: Russian's must not change (file, id) -> corrected sentence
CORRECTED = {
    ("in_domain_dev.csv", 747): "Адресантка сообщила, что раньше никогда не писала в газету, "
    "но теперь поняла, отчего человек берется за перо: писать — значит, общаться.",
    ("in_domain_train.csv", 1133): "В ее голосе появилась горькая нотка.",
    ("in_domain_train.csv", 3698): "Все как будто ждали, что не будет ли он ещё петь.",
    ("in_domain_train.csv", 4769): "Но, видимо, он всё-таки доволен ответом: его следующие "
    "слова уже и не брюзжание, а так.",
    ("in_domain_train.csv", 5891): "Быть убитому лекарством – в наше время уже не смешно.",
    ("in_domain_train.csv", 6550): "Ему не уехать.",
}
REMOVED = {
    ("in_domain_dev.csv", 219),
    ("in_domain_train.csv", 346),
    ("in_domain_train.csv", 1044),
    ("in_domain_train.csv", 2265),
    ("in_domain_train.csv", 5072),
    ("in_domain_train.csv", 5095),
    ("in_domain_train.csv", 7231),
    ("out_of_domain_dev.csv", 1309),
    ("test.csv", 490),
    ("test.csv", 940),
    ("test.csv", 1160),
    ("test.csv", 1635),
}


def sh(*args: str, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if ok:
        assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result


def git(root: Path, *args: str) -> None:
    sh("git", "-c", "user.email=t@t", "-c", "user.name=t", *args, cwd=root)


def overlay(root: Path, text: str) -> None:
    """``corpus.yaml`` becomes ``text``, and ``rucola upgrade`` completes params.yaml."""
    (root / "corpus.yaml").write_text(text, encoding="utf-8")
    sh("rucola", "upgrade", cwd=root)


def build(root: Path, config: str) -> float:
    """``dvc repro`` of the preset ``config`` (``rucola-v1.yaml``): its seconds."""
    from rucola.corpus_repo import preset_overlay

    text = preset_overlay(Path(config).stem)
    if (root / "corpus.yaml").read_text(encoding="utf-8") != text:
        overlay(root, text)
    start = time.perf_counter()
    sh("dvc", "repro", cwd=root)
    return time.perf_counter() - start


def identities(folder: Path) -> dict[tuple[str, str, int], str]:
    """(file, id) -> sentence of a folder in the published CSV layout."""
    out = {}
    for name in PUBLISHED:
        frame = pd.read_csv(folder / name, dtype=str, keep_default_na=False)
        for key, sentence in zip(frame["id"], frame["sentence"], strict=True):
            out[(name, int(key))] = sentence
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory, shared_data) -> Path:
    missing = [n for n in PUBLISHED if not (shared_data / "rucola" / n).is_file()]
    if missing:
        pytest.fail(f"RUCOLA_SHARED_DATA lacks rucola/{', rucola/'.join(missing)}")
    root = tmp_path_factory.mktemp("maintainer") / "rucola-corpus"
    sh("rucola", "init", str(root), "--preset", "rucola-v1", cwd=root.parent)
    (root / RAW).mkdir(parents=True)
    for name in [*PUBLISHED, "sample_submission.csv"]:
        shutil.copy2(shared_data / "rucola" / name, root / RAW / name)
    sh("dvc", "add", "-q", str(RAW), cwd=root)
    assert (root / "data/raw/rucola_v1.dvc").is_file()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "published RuCoLA v1 tracked by DVC")
    return root


def test_v1_rebuilds_the_published_files_and_v1_1_keeps_every_id_and_split(project, shared_data):
    seconds = {"v1": build(project, "rucola-v1.yaml")}
    csv = project / "data/release/rucola_csv"
    for name in PUBLISHED:
        assert (csv / name).read_bytes() == (shared_data / "rucola" / name).read_bytes(), name
    release = project / "data/release/rucola"
    for config, splits in COUNTS.items():
        for split, rows in splits.items():
            table = pq.read_table(release / config / f"{split}.parquet")
            assert table.num_rows == rows, (config, split)
    test = pq.read_table(release / "default/test.parquet").to_pandas()
    assert set(test["label"]) == {-1} and test["domain"].isna().all()
    assert sorted((release.parent / "rucola").glob("*/test*.parquet")) == [
        release / "default/test.parquet"
    ]
    # What RuCoLA's own baselines/utils.py does with the files, and TF-IDF on test.
    from sklearn.feature_extraction.text import TfidfVectorizer

    train, dev_in, dev_out, test_csv = (pd.read_csv(csv / n) for n in PUBLISHED)
    dev = pd.concat((dev_in, dev_out))
    tfidf = TfidfVectorizer(lowercase=False, min_df=5, max_df=0.9, ngram_range=(1, 3))
    tfidf.fit_transform(train["sentence"])
    assert tfidf.transform(test_csv["sentence"]).shape[0] == 2789 and len(dev) == 2787
    # The audit of the v1 build lists the train sentence repeated in test and every
    # near-duplicate group that straddles splits.
    assert_v1_audit(project)
    v1 = project.parent / "v1"
    shutil.copytree(project / "data/release", v1)

    seconds["v1.1"] = build(project, "rucola-v1.1.yaml")
    new_csv = project / "data/release/rucola_csv"
    before, after = identities(v1 / "rucola_csv"), identities(new_csv)
    assert set(after) <= set(before)  # no row changed file (split) or id, none added
    changed = {k for k, s in after.items() if before[k] != s}
    removed = set(before) - set(after)

    ledger = pq.read_table(project / "data/release/private/corrections.parquet").to_pandas()
    file_of = {
        ("train", "in_domain"): "in_domain_train.csv",
        ("validation", "in_domain"): "in_domain_dev.csv",
        ("validation", "out_of_domain"): "out_of_domain_dev.csv",
    }
    recorded = {
        (file_of.get((s, d), "test.csv"), int(i)): action
        for s, d, i, action in zip(
            ledger["split"], ledger["domain"], ledger["id"], ledger["action"], strict=True
        )
    }
    assert {k for k, a in recorded.items() if a == "corrected"} == changed
    assert {k for k, a in recorded.items() if a == "removed"} == removed
    assert 0 < len(changed) <= 10 and 0 < len(removed) <= 20
    assert {k: after[k] for k in changed} == CORRECTED and removed == REMOVED

    diff = sh(
        "rucola", "release", "diff", str(v1 / "rucola"), "data/release/rucola", cwd=project
    ).stdout
    for kind, rows in [
        ("corrected", len(changed)),
        ("removed", len(removed)),
        ("added", 0),
        ("relabelled", 0),
        ("recategorised", 0),
        ("moved", 0),
    ]:
        assert f"| {kind} | {rows} |" in diff, (kind, diff)
    assert "(no recorded cause)" not in diff
    assert "homoglyphs:" in diff and "artefact:unexpanded_alternation" in diff
    split = json.loads((project / "reports/split.json").read_text())
    assert split["pin"]["new"] == 0 and split["pin"]["straddling_groups"] > 0
    validation = json.loads((project / "reports/validation.json").read_text())
    assert validation["success"] is True
    print(f"\nbuild seconds: {seconds}; corrected {len(changed)}, removed {len(removed)}")


def _listed(diff: str) -> dict[str, set[tuple[str, int, str]]]:
    """(split, id, cause) of every row the Markdown of ``release diff`` lists, by kind
    (its columns: split, domain, id, sentence, change, cause)."""
    out: dict[str, set[tuple[str, int, str]]] = {}
    kind = None
    for line in diff.splitlines():
        if line.startswith("### "):
            kind = line[4:].lower()
        elif kind and line.startswith("| ") and not line.startswith("| split |"):
            cells = line.split(" | ")
            out.setdefault(kind, set()).add((cells[0][2:], int(cells[2]), cells[-1][:-2]))
    return out


def test_errata_on_v1_1_are_listed_with_their_reasons(project):
    """Issue 26: five errata (three labels 0 -> 1, a text, a removal; train and validation)
    on the v1.1 build. The diff against v1 lists exactly v1.1's automatic corrections and
    those five, each with its reason; the relabelled rows lose their category with the
    same reason; every row keeps its id and split; validation still passes."""
    import csv

    import yaml

    v1 = project.parent / "v1"  # the first test's copy of the v1 build
    build(project, "rucola-v1.1.yaml")
    command = ("rucola", "release", "diff", str(v1 / "rucola"), "data/release/rucola")
    automatic = _listed(sh(*command, cwd=project).stdout)
    assert automatic.keys() == {"corrected", "removed"}, automatic.keys()
    touched = {(s, i) for rows in automatic.values() for s, i, _ in rows}

    split = pd.read_parquet(project / "data/interim/split.parquet")
    candidates = split[split["pinned_split"].notna() & split["corrections"].isna()]
    candidates = candidates[
        [(s, i) not in touched for s, i in zip(candidates["split"], candidates["id"], strict=True)]
    ]
    in_domain = candidates[candidates["domain"] == "in_domain"]
    unacceptable = in_domain[in_domain["label"] == 0]
    relabel = [
        *unacceptable[unacceptable["split"] == "train"].head(2).itertuples(),
        *unacceptable[unacceptable["split"] == "validation"].head(1).itertuples(),
    ]
    keys = set(split["sentence"])
    fixable = in_domain[
        (in_domain["split"] == "train")
        & (in_domain["label"] == 1)
        & in_domain["sentence"].str.endswith(".")
        & ~in_domain["sentence"].str[:-1].add("!").isin(keys)
    ]
    fix = next(fixable.itertuples())
    ood = candidates[(candidates["domain"] == "out_of_domain") & (candidates["split"] != "test")]
    drop = next(ood.itertuples())
    reasons = {(r.split, r.id): f"review {n}: acceptable as written" for n, r in enumerate(relabel)}
    lines = [["split", "domain", "id", "field", "new", "reason", "old"]]
    lines += [[r.split, r.domain, r.id, "label", 1, reasons[(r.split, r.id)], 0] for r in relabel]
    lines.append(
        [fix.split, fix.domain, fix.id, "sentence", fix.sentence[:-1] + "!", "exclaim", ""]
    )
    lines.append([drop.split, drop.domain, drop.id, "remove", "", "not in Russian", ""])
    errata = project / "data/raw/errata/v1.1.csv"
    errata.parent.mkdir(parents=True)
    with errata.open("w", encoding="utf-8", newline="") as file:
        csv.writer(file, lineterminator="\n").writerows(lines)
    # data/raw/* is git-ignored and only data/raw/*.dvc is not: DVC tracks the folder,
    # salted so that no hash git tracks can be tested against a guess of the errata
    sh("rucola", "salt", "data/raw/errata", cwd=project)
    sh("dvc", "add", "-q", "data/raw/errata", cwd=project)
    mine = yaml.safe_load((project / "corpus.yaml").read_text(encoding="utf-8"))
    mine["extract"]["errata"] = ["data/raw/errata"]
    overlay(project, yaml.safe_dump(mine, allow_unicode=True, sort_keys=False))
    repro = sh("dvc", "repro", cwd=project)
    assert "Running stage 'extract'" not in repro.stdout + repro.stderr  # split onwards only

    listed = _listed(sh(*command, cwd=project).stdout)
    expected = {
        "corrected": automatic["corrected"] | {(fix.split, fix.id, "erratum: exclaim")},
        "removed": automatic["removed"] | {(drop.split, drop.id, "erratum: not in Russian")},
        "relabelled": {(s, i, f"erratum: {why}") for (s, i), why in reasons.items()},
        # a label changed to 1 clears the category, with the same reason
        "recategorised": {(s, i, f"erratum: {why}") for (s, i), why in reasons.items()},
    }
    assert listed == expected
    after = pd.read_parquet(project / "data/interim/split.parquet")
    assert len(after) == len(split) - 1
    kept = after.set_index(["split", "domain", "id"])
    for r in relabel:
        row = kept.loc[(r.split, r.domain, r.id)]
        assert row["label"] == 1 and pd.isna(row["error_type"]) and row["sentence"] == r.sentence
    assert kept.loc[(fix.split, fix.domain, fix.id), "sentence"] == fix.sentence[:-1] + "!"
    assert json.loads((project / "reports/validation.json").read_text())["success"] is True
    report = json.loads((project / "reports/split.json").read_text())["errata"]
    assert report["errata"] == 5 and "test" not in report  # git: train and validation only
    private = json.loads((project / "reports/private/split.json").read_text())["errata"]
    assert private["errata"] == 5 and private["test"] == {"rows": 0}


def test_with_the_private_gold_the_published_submission_scores(project):
    """The maintainer's gold (test_gold.csv: the labelled layout plus domain) labels the
    test rows under their published ids; the public files stay byte-identical. Last: a new
    input file rebuilds from extract on, so it comes after the tests that build on v1.1."""
    test = pd.read_csv(project / RAW / "test.csv", dtype=str, keep_default_na=False)
    digest = [int(hashlib.sha256(s.encode()).hexdigest(), 16) for s in test["sentence"]]
    gold = test.assign(
        acceptable=[d % 2 for d in digest],
        error_type=["0" if d % 2 else "Syntax" for d in digest],
        detailed_source=["Gold"] * len(test),
        domain=["in_domain" if d % 3 else "out_of_domain" for d in digest],
    )
    gold.to_csv(project / RAW / "test_gold.csv", index=False, lineterminator="\n")
    status = sh("dvc", "status", cwd=project).stdout
    assert "data/raw/rucola_v1" in status  # the input changed
    sh("dvc", "add", "-q", str(RAW), cwd=project)
    build(project, "rucola-v1.yaml")
    csv = project / "data/release/rucola_csv"
    assert (csv / "test.csv").read_bytes() == (project / RAW / "test.csv").read_bytes()
    private = pq.read_table(project / "data/release/private/test_gold.parquet").to_pandas()
    assert len(private) == 2789
    assert private["id"].tolist() == sorted(test["id"].astype(int))
    expected = dict(zip(test["id"].astype(int), gold["acceptable"], strict=True))
    assert all(
        expected[i] == label for i, label in zip(private["id"], private["label"], strict=True)
    )
    public = pq.read_table(project / "data/release/rucola/default/test.parquet").to_pandas()
    assert set(public["label"]) == {-1} and public["domain"].isna().all()
    result = sh("rucola", "evaluate", str(RAW / "sample_submission.csv"), cwd=project)
    assert "overall: n=2789" in result.stdout and "in_domain" in result.stdout
    empty = project / "empty.csv"
    empty.write_text("id,acceptable\n")
    failed = sh("rucola", "evaluate", str(empty), cwd=project, ok=False)
    assert failed.returncode == 1 and "without a prediction" in failed.stderr
