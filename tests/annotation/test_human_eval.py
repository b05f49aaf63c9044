"""Votes on corpus rows (``annotate.votes_target: corpus``), the single round of a corpus
without categories, and the human evaluation: small hand-made rounds, then ItaCoLA's
published vote table on its own rows."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from identity import identity_yaml
from sklearn.metrics import matthews_corrcoef

from rucola.annotation.human_eval import (
    NO_GOLD,
    UNKNOWN_ROW,
    evaluate,
    run_human_eval,
    scores,
)
from rucola.annotation.long_table import read_long
from rucola.annotation.merge import merge_votes
from rucola.annotation.row_names import AMBIGUOUS_ROW, SENTENCE_MISMATCH
from rucola.annotation.votes import Stage2Form
from rucola.corpus.homoglyphs import fix_homoglyphs
from rucola.errors import RucolaError
from rucola.settings import Annotate, Params

ITACOLA_VOTES = "itacola/ItaCoLA_dataset_non-expertannotations.tsv"
ITACOLA_ROWS = "itacola/ItaCoLA_dataset.tsv"
ITACOLA_COLUMNS = {
    "task": "UniqueIndexID_ItaCoLA",
    "worker": "PlayersID",
    "label": "DisaggragatedAnnotations",
    "sentence": "Sentence",
}
SPLIT_NAMES = {"train": "train", "dev": "validation", "test": "test"}


def write_votes(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    """A long table ``task,worker,label,sentence``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["task", "worker", "label", "sentence"])
        writer.writerows(rows)
    return path


def write_rows(path: Path, rows: list[dict]) -> Path:
    """Split rows with the columns the stage reads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = ["sentence", "label", "domain", "split", "published_id"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["published_id"] = frame["published_id"].astype("Int64")
    if "published_split" not in frame.columns:  # a published row's split is its own
        frame["published_split"] = frame["split"].where(frame["published_id"].notna(), None)
    frame["id"] = range(len(frame))  # unique within every split and domain
    frame.to_parquet(path, index=False)
    return path


def settings_for(votes: list[Path], **human: object) -> Annotate:
    return Annotate.model_validate(
        {
            "stage1": [],
            "stage2": [],
            "votes": [str(v) for v in votes],
            "votes_target": "corpus",
            "human_eval": {"min_votes": 1, **human},
        }
    )


# --- the single round ------------------------------------------------------------------


def test_a_corpus_without_categories_takes_stage_1_as_final():
    """With no category to ask for, an unacceptable majority is final (RuCoLA's two rounds
    would leave it pending, awaiting stage 2)."""
    votes = pd.DataFrame(
        {
            "task": ["a"] * 3 + ["b"] * 3,
            "worker": ["w1", "w2", "w3"] * 2,
            "label": ["0", "0", "1", "1", "1", "0"],
            "golden": None,
            "sentence": ["A.", "A.", "A.", "B.", "B.", "B."],
            "source": "x.csv",
            "line": range(2, 8),
            "origin": "x",
            "assignment": [f"x:{i}" for i in range(6)],
            "status": "ACCEPTED",
            "started": None,
            "submitted": None,
            "page": None,
            "lead_time": None,
        }
    )
    options = {"method": "majority", "min_votes": 3, "min_control_accuracy": 0.0}
    none = merge_votes(votes, None, min_page_seconds=None, form=Stage2Form(()), **options)
    assert none.tasks.set_index("id")["status"].to_dict() == {"a": "labelled", "b": "labelled"}
    assert none.tasks.set_index("id")["label"].to_dict() == {"a": 0, "b": 1}
    assert none.tasks["error_type"].isna().all()
    two = merge_votes(votes, None, min_page_seconds=None, form=Stage2Form(("Syntax",)), **options)
    assert two.tasks.set_index("id")["reason"]["a"] == "awaiting_stage2"


def test_stage_2_answers_without_categories_are_refused():
    votes = pd.DataFrame(columns=["task", "worker", "label", "golden"])
    with pytest.raises(RucolaError, match="no categories"):
        merge_votes(
            votes,
            votes,
            method="majority",
            min_votes=1,
            min_control_accuracy=0.0,
            min_page_seconds=None,
            form=Stage2Form(()),
        )


def test_empty_category_lists_are_allowed():
    params = Params.model_validate(
        {"corpus": {"categories": {"in_domain": [], "out_of_domain": [], "learner": []}}}
    )
    assert params.corpus.categories.all() == []


# --- the human evaluation ------------------------------------------------------------


def test_scores_match_scikit_learn():
    gold = [1, 1, 0, 0, 1, 0, 1]
    human = [1, 0, 0, 1, 1, 0, 1]
    got = scores(gold, human)
    assert got["n"] == 7 and got["accuracy"] == round(5 / 7, 6)
    assert got["mcc"] == pytest.approx(matthews_corrcoef(gold, human), abs=1e-6)
    assert scores([1, 1], [1, 1])["mcc"] == 0.0  # undefined: one class
    assert scores([], [])["accuracy"] is None


def test_votes_join_rows_by_published_id_or_sentence(tmp_path, monkeypatch):
    """A task names its row by published id, else by sentence; a task naming no row, a
    tie, and a row without gold are set aside with their reasons; test scores stay in the
    private report."""
    monkeypatch.chdir(tmp_path)
    votes = write_votes(
        tmp_path / "votes.csv",
        [
            ("10", "w1", "1", ""),
            ("10", "w2", "1", ""),
            ("11", "w1", "0", ""),  # test row, wrong
            ("s", "w1", "0", "Row twelve."),  # by sentence
            ("99", "w1", "1", "Nobody wrote this."),  # no such row
            ("13", "w1", "1", ""),  # a tie
            ("13", "w2", "0", ""),
            ("14", "w1", "1", ""),  # test row without gold
        ],
    )
    rows = write_rows(
        tmp_path / "split.parquet",
        [
            {"sentence": "Row ten.", "label": 1, "domain": "in_domain", "split": "train",
             "published_id": 10},
            {"sentence": "Row eleven.", "label": 1, "domain": "in_domain", "split": "test",
             "published_id": 11},
            {"sentence": "Row twelve.", "label": 0, "domain": "learner", "split": "validation",
             "published_id": None},
            {"sentence": "Row thirteen.", "label": 1, "domain": "in_domain", "split": "train",
             "published_id": 13},
            {"sentence": "Row fourteen.", "label": -1, "domain": "in_domain", "split": "test",
             "published_id": 14},
        ],
    )  # fmt: skip
    summary = run_human_eval(settings_for([votes]), str(rows))
    # the public counts: the tasks of train and validation rows, and names of no row
    assert summary["read"] == 4 and summary["kept"] == 2
    assert summary["set_aside"] == {"pending:tie": 1, UNKNOWN_ROW: 1}
    assert summary["votes"] == {"read": 6, "used": 6, "dropped_by_fate": {}}
    private = json.loads(Path("reports/private/human_evaluation.json").read_text("utf-8"))
    assert private["read"] == 6 and private["kept"] == 3
    assert private["set_aside"] == {NO_GOLD: 1, "pending:tie": 1, UNKNOWN_ROW: 1}
    assert private["votes"]["read"] == 8
    by_split = private["scores"]["by_split"]
    assert by_split["test"]["accuracy"] == 0.0 and by_split["test"]["n"] == 1
    assert by_split["validation"]["by_domain"]["learner"]["accuracy"] == 1.0
    public = json.loads(Path("reports/human_evaluation.json").read_text("utf-8"))
    assert set(public["scores"]["by_split"]) == {"train", "validation"}
    assert "test" not in json.dumps(public["scores"])
    # every vote on a row, kept for the release's votes config (the unknown task's: not)
    kept = pd.read_parquet("data/interim/human_votes.parquet")
    assert kept["task"].value_counts().to_dict() == {
        "row:train:in_domain:0": 2,
        "row:train:in_domain:3": 2,
        "row:test:in_domain:1": 1,
        "row:validation:learner:2": 1,
        "row:test:in_domain:4": 1,
    }
    assert set(kept["answer"]) == {"acceptable", "unacceptable"}
    # the explicit choice publishes test too, scores and counts
    summary = run_human_eval(settings_for([votes], test_public=True), str(rows))
    public = json.loads(Path("reports/human_evaluation.json").read_text("utf-8"))
    assert public["scores"]["by_split"]["test"]["n"] == 1 and public["test_public"] is True
    assert public["read"] == 6 and public["votes"]["read"] == 8


def write_table(path: Path, header: list[str], rows: list[tuple]) -> Path:
    """A long table with the columns ``header``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


# RuCoLA's layout: id 0 is four rows (train, validation of each domain, test)
ID_ZERO = [
    {"sentence": "Train zero.", "label": 1, "domain": "in_domain", "split": "train",
     "published_id": 0},
    {"sentence": "Validation zero.", "label": 0, "domain": "in_domain", "split": "validation",
     "published_id": 0},
    {"sentence": "Outside zero.", "label": 1, "domain": "out_of_domain", "split": "validation",
     "published_id": 0},
    {"sentence": "Test zero.", "label": 0, "domain": "in_domain", "split": "test",
     "published_id": 0},
]  # fmt: skip


def test_an_id_unique_per_split_and_domain_names_a_row_only_with_its_whole_key(tmp_path):
    """Ids unique per split and domain: the split and domain a table gives, or the
    sentence, pick the row; an id alone, or an id and a sentence that disagree, name none
    and are set aside with their reason; nothing of the test row's votes is public."""
    rows = pd.read_parquet(write_rows(tmp_path / "split.parquet", ID_ZERO))
    keyed = read_long(write_table(
        tmp_path / "keyed.csv",
        ["task", "worker", "label", "split", "domain"],
        [("0", "k1", "1", "train", "in_domain"), ("0", "k2", "0", "validation", "in_domain"),
         ("0", "k3", "1", "dev", "out_of_domain"), ("0", "k4", "1", "test", "")],
    ))  # fmt: skip
    by_sentence = read_long(write_table(
        tmp_path / "sentences.csv",
        ["task", "worker", "label", "sentence"],
        [("0", "s1", "1", "Test zero."), ("0", "s2", "1", "Outside zero."),
         ("0", "s3", "0", "Nobody wrote this."),  # the id's rows have other sentences
         ("7", "s4", "0", "Train zero."),  # an id no row has, a sentence one row has
         ("mine", "s5", "1", "Validation zero.")],  # a task of the voter's own: the sentence
    ))  # fmt: skip
    bare = read_long(write_table(tmp_path / "bare.csv", ["task", "worker", "label"],
                                 [("0", "b1", "1")]))  # fmt: skip
    votes = pd.concat([keyed, by_sentence, bare], ignore_index=True)
    evaluation = evaluate(votes, rows, settings_for([]))
    on_rows = evaluation.votes_on_rows.groupby("task")["worker"].apply(sorted).to_dict()
    assert on_rows == {
        "row:train:in_domain:0": ["k1"],
        "row:validation:in_domain:1": ["k2", "s5"],
        "row:validation:out_of_domain:2": ["k3", "s2"],
        "row:test:in_domain:3": ["k4", "s1"],
    }
    result = evaluation.result
    why = result.set_index("given")["why"]
    aside = result[result["task"].str.startswith("?")]
    assert sorted(aside["why"]) == [AMBIGUOUS_ROW, SENTENCE_MISMATCH, SENTENCE_MISMATCH]
    assert why.get("mine") is None  # joined by its sentence
    # the test row's votes and the names pointing at it count in private only
    assert result.loc[result["split"] == "test", "private"].all()
    assert aside.set_index("why").loc[AMBIGUOUS_ROW, "private"]  # id 0 alone: test among
    # private votes: k4 and s1 on the test row, b1 and s3 whose id 0 points at it too
    assert evaluation.public_counts["read"] == evaluation.counts["read"] - 4
    assert aside["private"].sum() == 2  # s4's id 7 and sentence point at train only


# Sentences of other scripts, as a voter copies them from the released text: a left-to-
# right mark inside an Arabic word, Persian's zero-width non-joiner, Icelandic accents
# beside i/j/k, Japanese, and an English sentence quoting a Russian word.
SCRIPTS = [
    ("ar", "ذهب\u200e الولد إلى المدرسة صباحا."),
    ("fa", "من می\u200cخواهم به خانه بروم."),
    ("is", "Hún þurrkaði diskana í Reykjavík."),
    ("fr", "Il a obéi à sa mère hier."),
    ("ja", "私は昨日図書館で本を読みました。"),
    ("en", "The Russian word сахар means sugar."),
]


@pytest.mark.parametrize(("language", "sentence"), SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_votes_by_sentence_join_their_row_in_every_script(tmp_path, language, sentence):
    """Under the language's own key, a vote naming a row by its sentence (with its id, or
    with a task of the voter's own) joins that row and no other."""

    rows = pd.read_parquet(write_rows(tmp_path / "split.parquet", [
        {"sentence": sentence, "label": 1, "domain": "in_domain", "split": "train",
         "published_id": 0},
        {"sentence": "Another row.", "label": 0, "domain": "in_domain", "split": "validation",
         "published_id": 0},
    ]))  # fmt: skip
    votes = read_long(
        write_table(
            tmp_path / "v.csv",
            ["task", "worker", "label", "sentence"],
            [("0", "w1", "1", sentence), ("mine", "w2", "1", sentence)],
        )
    )
    evaluation = evaluate(votes, rows, settings_for([]), language)
    assert evaluation.votes_on_rows["task"].tolist() == ["row:train:in_domain:0"] * 2
    assert evaluation.result["why"].isna().all()


def test_a_split_or_domain_a_table_gives_is_checked_with_its_line(tmp_path):
    path = write_table(tmp_path / "votes.csv", ["task", "worker", "label", "split"],
                       [("0", "w1", "1", "train"), ("1", "w1", "1", "holdout")])  # fmt: skip
    with pytest.raises(RucolaError, match="unknown split 'holdout'") as error:
        read_long(path)
    assert str(error.value).startswith(f"{path}:3")
    path = write_table(tmp_path / "domains.csv", ["task", "worker", "label", "domain"],
                       [("0", "w1", "1", "elsewhere")])  # fmt: skip
    with pytest.raises(RucolaError, match="unknown domain 'elsewhere'"):
        read_long(path)


def test_no_round_without_votes_on_corpus_rows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    summary = run_human_eval(Annotate(), "absent.parquet")  # never read
    assert summary["has_round"] is False and summary["read"] == 0
    public = json.loads(Path("reports/human_evaluation.json").read_text("utf-8"))
    assert public == {"read": 0, "kept": 0, "set_aside": {}, "has_round": False,
                      "method": "majority"}  # fmt: skip


def test_votes_on_corpus_rows_do_not_enter_the_candidates_round(tmp_path, monkeypatch):
    """With ``votes_target: corpus`` the merge reads no long table: its tasks are rows,
    not candidates (``unknown_candidate`` was their fate before)."""
    from rucola.annotation.merge import run_merge

    monkeypatch.chdir(tmp_path)
    votes = write_votes(tmp_path / "votes.csv", [("10", "w1", "1", "")])
    report = run_merge(settings_for([votes]), Stage2Form(()))
    assert report["tasks"]["total"] == 0


# --- ItaCoLA's published votes -------------------------------------------------------


def itacola_rows(shared: Path, path: Path) -> Path:
    """ItaCoLA's rows as split rows (its published ids, splits and gold labels)."""
    table = pd.read_csv(shared / ITACOLA_ROWS, sep="\t", quoting=csv.QUOTE_NONE, dtype=str)
    return write_rows(
        path,
        [
            {
                "sentence": row.Sentence,
                "label": int(row.Acceptability),
                "domain": "in_domain",
                "split": SPLIT_NAMES[row.Split],
                "published_id": int(row.UniqueIndexID),
            }
            for row in table.itertuples()
        ],
    )


@pytest.mark.slow
def test_itacola_votes_join_their_rows_and_score_against_the_experts(
    shared_data, tmp_path, monkeypatch
):
    """ItaCoLA's vote table read as published (several votes a row): 2,918 votes on 1,062
    rows; the majority equals ``PlayersAcceptability`` wherever it decides (a tie is left
    pending), and the human evaluation scores it against the expert labels."""
    monkeypatch.chdir(tmp_path)
    path = shared_data / ITACOLA_VOTES
    if not path.is_file():
        pytest.skip(f"{path} is not there")
    published = pd.read_csv(path, sep="\t", dtype=str).set_index("UniqueIndexID_ItaCoLA")
    votes = read_long(path, ITACOLA_COLUMNS)
    assert len(votes) == 2918 and votes["task"].nunique() == 1062
    rows = itacola_rows(shared_data, tmp_path / "split.parquet")
    settings = settings_for([path])
    settings = settings.model_copy(update={"vote_columns": settings.vote_columns.model_copy(
        update=ITACOLA_COLUMNS)})  # fmt: skip
    evaluation = evaluate(votes, pd.read_parquet(rows), settings, "it")
    result, counts = evaluation.result, evaluation.counts
    # a worker listed twice on a row with the same answer counts once (three such votes)
    assert counts["used"] == 2915 and counts["dropped_by_fate"] == {"repeated_vote": 3}
    decided = result[result["status"] == "labelled"].set_index("given")
    ties = result[result["reason"] == "tie"]
    assert len(decided) + len(ties) == 1062
    players = published.loc[decided.index, "PlayersAcceptability"].astype(int)
    assert (decided["human"].astype(int) == players).all()
    experts = published.loc[decided.index, "ExpertAcceptability"].astype(int)
    assert (decided["gold"].astype(int) == experts).all()  # the gold the rows carry
    assert (result["why"] != UNKNOWN_ROW).all()  # every vote joins its row
    # extract repairs ItaCoLA's Cyrillic Ѐ to È; the two voted items that show it still
    # join, their sentences compared under Italian's key (under Russian's they would not)
    repaired = pd.read_parquet(rows)
    cyrillic = repaired["sentence"].str.contains("\u0400")
    repaired["sentence"] = [fix_homoglyphs(t, "it")[0] for t in repaired["sentence"]]
    assert cyrillic.sum() == 24 and not repaired["sentence"].str.contains("\u0400").any()
    voted = votes.loc[votes["sentence"].str.contains("\u0400"), "task"].unique()
    assert len(voted) == 2
    again = evaluate(votes, repaired, settings, "it").result
    assert again["why"].isna().sum() == result["why"].isna().sum()
    assert set(voted) <= set(again.loc[again["why"].isna(), "given"])
    wrong = evaluate(votes, repaired, settings, "ru").result
    assert sorted(wrong.loc[wrong["why"] == SENTENCE_MISMATCH, "given"]) == sorted(voted)
    summary = run_human_eval(settings, str(rows), "it")
    table = summary["scores"]
    # the public report counts the tasks and votes of train and validation rows only
    splits = pd.read_csv(shared_data / ITACOLA_ROWS, sep="\t", quoting=csv.QUOTE_NONE, dtype=str)
    split_of = splits.set_index("UniqueIndexID")["Split"]
    on_test = split_of.loc[published.index] == "test"
    assert summary["read"] == int((~on_test).sum()) == 691
    assert summary["kept"] == int((~on_test.loc[decided.index]).sum())
    test_votes = int(published.loc[on_test.to_numpy(), "NumAnnotations"].astype(int).sum())
    assert summary["votes"]["read"] == 2918 - test_votes
    private = json.loads(Path("reports/private/human_evaluation.json").read_text("utf-8"))
    assert private["read"] == 1062 and private["kept"] == len(decided)
    assert private["votes"]["read"] == 2918
    expected = scores(experts.to_numpy(), players.to_numpy())
    assert table["all"] == expected
    assert set(table["by_split"]) == {"train", "validation", "test"}
    assert sum(s["n"] for s in table["by_split"].values()) == len(decided)
    print(f"\nItaCoLA human evaluation: {len(ties)} ties; {json.dumps(table, indent=1)}")


# --- RuCoLA's published files, synthetic votes on its test rows -----------------------


def rucola_rows(shared: Path, path: Path, gold: dict[int, int] | None = None) -> Path:
    """RuCoLA's published rows as split rows (published ids and splits; the test rows
    without gold, or with the invented ``gold``)."""
    from rucola.corpus.sources.rucola_csv import published_frame

    frame = published_frame(shared / "rucola")
    if gold:
        test = frame["split"] == "test"
        frame.loc[test, "label"] = frame.loc[test, "id"].map(gold).fillna(-1).astype(int)
    frame["published_id"] = frame["id"]
    frame["published_split"] = frame["split"]
    frame["id"] = frame["published_id"]
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("named_by", ["split", "sentence"])
@pytest.mark.parametrize("gold", ["none", "invented"])
def test_rucola_test_votes_join_their_test_rows_never_train_rows_with_their_ids(
    shared_data, tmp_path, monkeypatch, named_by, gold
):
    """Votes on RuCoLA test ids 0-39 named by id, with the split or with the sentence:
    each joins its test row (never train, validation or out-of-domain id k), is scored
    ``no_gold`` (the test gold is private) or against an invented gold in the private
    report, and nothing of them reaches the public report or the public votes."""
    from rucola.release.votes import release_votes, row_tasks

    if not (shared_data / "rucola/test.csv").is_file():
        pytest.skip("RUCOLA_SHARED_DATA lacks rucola/")
    monkeypatch.chdir(tmp_path)
    ids = list(range(40))
    invented = {k: k % 2 for k in ids} if gold == "invented" else None
    rows_path = rucola_rows(shared_data, tmp_path / "split.parquet", invented)
    rows = pd.read_parquet(rows_path)
    test = rows[rows["split"] == "test"].set_index("id")
    for k in ids:  # id k is a train row and a validation row of each domain too
        assert ((rows["id"] == k) & (rows["split"] != "test")).sum() == 3
    header = ["task", "worker", "label", "split" if named_by == "split" else "sentence"]
    cells = [
        (str(k), f"w{w}", "0", "test" if named_by == "split" else test.at[k, "sentence"])
        for k in ids
        for w in range(3)
    ]
    path = write_table(tmp_path / "votes.csv", header, cells)
    summary = run_human_eval(settings_for([path]), str(rows_path), "ru")
    kept = pd.read_parquet("data/interim/human_votes.parquet")
    assert sorted(set(kept["task"])) == sorted(f"row:test::{k}" for k in ids)
    assert kept["task"].value_counts().eq(3).all()
    assert not kept["task"].str.startswith(("row:train", "row:validation")).any()
    private = json.loads(Path("reports/private/human_evaluation.json").read_text("utf-8"))
    assert private["read"] == len(ids)
    if invented:
        scored = private["scores"]["by_split"]["test"]
        expected = scores([invented[k] for k in ids], [0] * len(ids))
        assert private["kept"] == len(ids) and scored["accuracy"] == expected["accuracy"]
    else:
        assert private["set_aside"] == {NO_GOLD: len(ids)}
    # the public report: no task, no vote, no score of the test rows
    assert summary["read"] == 0 and summary["votes"]["read"] == 0
    assert summary["public_scores"] == {"by_split": {}}
    # the release: every vote private, none in a public split
    released = release_votes(rows, row_tasks(rows), kept, "sample", rows_path, any_domain=True)
    assert released.public == {} and released.private.num_rows == 3 * len(ids)
    assert set(released.private.column("split").to_pylist()) == {"test"}
    assert sorted(set(released.private.column("id").to_pylist())) == ids


def test_rucola_votes_named_by_id_alone_join_no_row(shared_data, tmp_path):
    """RuCoLA's id 5 alone is four rows: the vote is set aside as ``ambiguous_row``, and
    counted privately (a test row is among them)."""
    if not (shared_data / "rucola/test.csv").is_file():
        pytest.skip("RUCOLA_SHARED_DATA lacks rucola/")
    rows = pd.read_parquet(rucola_rows(shared_data, tmp_path / "split.parquet"))
    votes = read_long(write_table(tmp_path / "v.csv", ["task", "worker", "label"],
                                  [("5", "w1", "1")]))  # fmt: skip
    evaluation = evaluate(votes, rows, settings_for([]), "ru")
    assert evaluation.result["why"].tolist() == [AMBIGUOUS_ROW]
    assert evaluation.result["private"].tolist() == [True] and evaluation.votes_on_rows.empty


def test_the_command_prints_the_public_splits_only(tmp_path, run_cli):
    """``rucola annotate human-eval`` on params naming votes on rows: the terminal shows
    train and validation, never the test split's scores; a missing rows file is one line."""
    write_votes(tmp_path / "votes.csv", [("1", "w1", "1", ""), ("2", "w1", "0", "")])
    write_rows(
        tmp_path / "split.parquet",
        [
            {"sentence": "One.", "label": 1, "domain": "in_domain", "split": "validation",
             "published_id": 1},
            {"sentence": "Two.", "label": 1, "domain": "in_domain", "split": "test",
             "published_id": 2},
        ],
    )  # fmt: skip
    (tmp_path / "params.yaml").write_text(
        identity_yaml(
            "annotate:\n  controls: []\n  stage1: []\n  stage2: []\n  votes: [votes.csv]\n"
            "  votes_target: corpus\n"
        ),
        encoding="utf-8",
    )
    code, stdout, _ = run_cli("annotate", "human-eval", "--input", "split.parquet", cwd=tmp_path)
    assert code == 0, stdout
    assert "validation 1 rows: accuracy 1.0" in stdout and "test" not in stdout
    code, _, stderr = run_cli("annotate", "human-eval", "--input", "absent.parquet", cwd=tmp_path)
    assert code == 1 and "absent.parquet" in stderr and "Traceback" not in stderr
