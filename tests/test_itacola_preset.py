"""ItaCoLA (Italian) as published, in a corpus repository made by ``rucola init --preset
itacola`` (needs RUCOLA_SHARED_DATA):
its rows keep their published ids, splits and labels (each difference set aside with its
reason), its Cyrillic look-alikes are repaired, its non-expert votes join its rows with
the majority equal to ``PlayersAcceptability``, and a human evaluation scores them
against the expert labels, test scores in the private report only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from dvc_project import installed_copy
from preset_build import ANNOTATOR_KEY, build_preset, report

pytestmark = pytest.mark.slow

DATASET = "ItaCoLA_dataset.tsv"
VOTES = "ItaCoLA_dataset_non-expertannotations.tsv"
SPLITS = {"train": "train", "dev": "validation", "test": "test"}
KEPT = 9721  # pinned before issue 42 taught the rules other scripts: no good row dropped
# rows each artefact rule flagged before issue 42: no rule may flag more
FLAGGED = {"editorial_bracket": 1}


def run_in(
    root: Path, env: dict[str, str], *args: str, ok: bool = True
) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", **env)
    result = subprocess.run(args, cwd=root, env=full, capture_output=True, text=True)
    if ok:
        assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def itacola(tmp_path_factory, shared_data):
    files = [shared_data / "itacola" / name for name in (DATASET, VOTES)]
    if not all(path.is_file() for path in files):
        pytest.fail(f"RUCOLA_SHARED_DATA lacks itacola/{DATASET} or itacola/{VOTES}")
    root = build_preset(tmp_path_factory.mktemp("itacola"), "itacola.yaml", "itacola", files)
    table = pd.read_csv(files[0], sep="\t", dtype={"Acceptability": int})
    votes = pd.read_csv(files[1], sep="\t")
    return root, table, votes


def test_rows_keep_their_ids_splits_and_labels_each_difference_with_its_reason(itacola):
    root, table, _ = itacola
    assert len(table) == 9722
    published = table.set_index("UniqueIndexID")
    split = pd.read_parquet(root / "data/interim/split.parquet")
    rejected = pd.read_parquet(root / "data/interim/rejected/extract.parquet")
    assert len(split) + len(rejected) == len(table)
    assert len(split) == KEPT
    extract = report(root, "extract.json")
    flagged = Counter(k for found in extract["artefacts"]["found"] for k in found["kinds"])
    assert all(flagged[kind] <= FLAGGED.get(kind, 0) for kind in flagged), flagged
    assert report(root, "filter.json")["set_aside"] == {}  # no threshold drops a published row
    # The one difference: a sentence repeated once its Cyrillic È is repaired.
    assert rejected["reason"].tolist() == ["duplicate"]
    assert (split["id"] == split["published_id"]).all()
    expected = published.loc[split["id"]]
    assert (split["split"].to_numpy() == expected["Split"].map(SPLITS).to_numpy()).all()
    assert (split["label"].to_numpy() == expected["Acceptability"].to_numpy()).all()
    counts = split["split"].value_counts().to_dict()
    gone = rejected["published_split"].value_counts().to_dict()
    for name, rows in {"train": 7801, "validation": 946, "test": 975}.items():
        assert counts[name] + gone.get(name, 0) == rows
    assert int((split["label"] == 0).sum()) == 1510
    assert int((split["label"] == 1).sum()) + int((rejected["label"] == 1).sum()) == 8212
    assert not split["sentence"].str.contains("\u0400").any()  # Ѐ repaired to È


def test_votes_join_their_rows_and_the_majority_is_players_acceptability(itacola):
    root, table, votes = itacola
    public = report(root, "human_evaluation.json")
    private = report(root, "private/human_evaluation.json")
    # the public report counts the train and validation items only (issue 41); the
    # private one all 1,062, test included, and all 2,918 votes
    split_of = table.set_index("UniqueIndexID")["Split"]
    on_test = (split_of.loc[votes["UniqueIndexID_ItaCoLA"]] == "test").to_numpy()
    assert public["read"] == public["kept"] == int((~on_test).sum()) == 691
    assert public["votes"]["read"] == int(votes.loc[~on_test, "NumAnnotations"].sum())
    assert public["set_aside"] == {}
    assert "test" not in public["scores"]["by_split"] and "all" not in public["scores"]
    assert private["read"] == private["kept"] == len(votes) == 1062
    assert private["votes"]["read"] == int(votes["NumAnnotations"].sum()) == 2918
    assert set(private["scores"]["by_split"]) == {"train", "validation", "test"}
    assert private["scores"]["all"]["n"] == 1062
    kept = pd.read_parquet(root / "data/interim/human_votes.parquet")
    ids = kept["task"].str.rsplit(":", n=1).str[-1].astype(int)
    share = (kept["answer"] == "acceptable").groupby(ids).mean()
    assert len(share) == 1062 and not (share == 0.5).any()  # every item decided
    majority = (share > 0.5).astype(int)
    players = votes.set_index("UniqueIndexID_ItaCoLA")["PlayersAcceptability"]
    assert (majority == players.loc[majority.index]).all()


def test_the_card_is_itacolas_in_italian(itacola):
    root, _, _ = itacola
    card = (root / "data/release/itacola/README.md").read_text(encoding="utf-8")
    assert "language:\n- it\n" in card and "Trotta" in card
    assert "RuCoLA" not in card and "Russian" not in card
    # issue 45: its players' votes judge rows that have their label, in no crowd round, and
    # no file of RuCoLA's CSV layout is written for it (the stage's folder stays empty)
    votes = card.split("## Annotator votes", 1)[1].split("\n## ", 1)[0]
    assert "votes on existing sentences, which already have their label" in votes
    assert "crowd" not in votes and "two stages" not in votes and "razdel" not in card
    csv = root / "data/release/itacola_csv"
    assert not [p for p in csv.iterdir() if not p.name.startswith(".")]
    assert "sample_submission.csv" not in card and "_csv" not in card


def test_an_upgrade_reruns_the_stage_whose_code_changed_and_nothing_else(itacola, tmp_path):
    """Issue 46: the corpus repository depends on the installed tool's code. A change to
    the release's code (its card template) in an editable copy of the package: every command
    refuses to run it until ``rucola upgrade``, which says which stages will rerun; then
    ``dvc repro`` runs exactly those, and the card carries the change."""
    root, _, _ = itacola
    corpus = tmp_path / "corpus"
    shutil.copytree(root, corpus, symlinks=True)
    site = installed_copy(tmp_path / "site")  # what a wheel lays out, edited in place
    template = site / "rucola/release/templates/card.md.j2"
    template.write_text(template.read_text(encoding="utf-8") + "\nUpgraded.\n", "utf-8")
    env = {"PYTHONPATH": str(site), "RUCOLA_ANNOTATOR_KEY": ANNOTATOR_KEY}
    refused = run_in(corpus, env, "rucola", "release", "build", ok=False)
    assert refused.returncode == 1 and "run `rucola upgrade`" in refused.stderr
    said = run_in(corpus, env, "rucola", "upgrade").stdout
    assert "reports/code/release/build.json" in said
    assert said.strip().endswith("will run 2 stages: fingerprint_code, release"), said
    log = run_in(corpus, env, "dvc", "repro")
    ran = re.findall(r"Running stage '([^']+)'", log.stdout + log.stderr)
    assert ran == ["fingerprint_code", "release"], ran
    assert (corpus / "data/release/itacola/README.md").read_text("utf-8").endswith("Upgraded.\n")
    assert "Running stage" not in run_in(corpus, env, "dvc", "repro").stdout
