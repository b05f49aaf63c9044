"""A worker answering one task more than once, in every input format; rows listing several
votes (the layout ItaCoLA publishes its non-expert votes in)."""

from __future__ import annotations

import json

import pytest
from annotation_helpers import HAND, STAGE1_HEADER, stage1_rows, write_tsv

from rucola.annotation.answers import read_stage1
from rucola.annotation.cleaning import clean
from rucola.annotation.merge import kept_votes, merge_votes
from rucola.annotation.repeats import CONFLICTING_VOTE, REPEATED_VOTE
from rucola.errors import RucolaError

OPTIONS = {"min_votes": 3, "min_control_accuracy": 0.5, "min_page_seconds": None}
ITACOLA_COLUMNS = {
    "task": "UniqueIndexID_ItaCoLA",
    "worker": "PlayersID",
    "label": "DisaggragatedAnnotations",
    "sentence": "Sentence",
}
# The published layout of ItaCoLA_dataset_non-expertannotations.tsv, rows written by us.
ITACOLA_HEADER = (
    "UniqueIndexID_ItaCoLA\tSentence\tExpertAcceptability\tPlayersAcceptability\t"
    "NumAnnotations\tDisaggragatedAnnotations\tPlayersID\n"
)


def _long(tmp_path, rows: list[tuple[str, str, str]], name: str = "votes.csv"):
    path = tmp_path / name
    body = "".join(f"{t},{w},{label}\n" for t, w, label in rows)
    path.write_text("task,worker,label\n" + body, encoding="utf-8")
    return path


def _cleaning() -> dict:
    return {"min_control_accuracy": 0.5, "min_page_seconds": None}


def _fate_list(path, policy: str) -> list[object]:
    return clean(read_stage1([path]), repeated_votes=policy, **_cleaning()).votes["fate"].tolist()


ROWS = [("t1", "w1", "1"), ("t1", "w2", "1"), ("t1", "w1", "1"), ("t1", "w3", "0")]


def test_identical_repeats_count_once(tmp_path):
    path = _long(tmp_path, ROWS)
    cleaned = clean(read_stage1([path]), **_cleaning())
    assert cleaned.votes["fate"].tolist() == ["used", "used", REPEATED_VOTE, "used"]
    assert cleaned.counts()["dropped_by_reason"] == {REPEATED_VOTE: 1}
    result = merge_votes(read_stage1([path]), None, method="majority", **OPTIONS)
    task = result.tasks.iloc[0]
    assert task["n_votes"] == 3 and task["share_acceptable"] == pytest.approx(2 / 3)


CONFLICT = [
    ("t1", "w1", "1"),
    ("t1", "w2", "1"),
    ("t1", "w1", "0"),
    ("t1", "w3", "0"),
    ("t1", "w1", "0"),
]


@pytest.mark.parametrize(
    ("policy", "w1_fates"),
    [
        ("first", ["used", CONFLICTING_VOTE, CONFLICTING_VOTE]),
        ("last", [CONFLICTING_VOTE, CONFLICTING_VOTE, "used"]),
        ("drop", [CONFLICTING_VOTE] * 3),
    ],
)
def test_conflicting_repeats_follow_the_policy(tmp_path, policy, w1_fates):
    fates = _fate_list(_long(tmp_path, CONFLICT), policy)
    assert [fates[i] for i in (0, 2, 4)] == w1_fates
    assert [fates[i] for i in (1, 3)] == ["used", "used"]  # other workers untouched


def test_conflicting_repeats_are_an_error_by_default_naming_both_lines(tmp_path):
    path = _long(tmp_path, CONFLICT)
    with pytest.raises(RucolaError, match="worker 'w1' answered task 't1' twice") as info:
        clean(read_stage1([path]), **_cleaning())
    assert info.value.line == 4  # the later answer
    assert f"{path}:2" in info.value.message  # and the earlier one
    assert "repeated_votes" in (info.value.hint or "")


def test_repeats_across_files_and_formats(tmp_path, hand_export):
    """w1 answered t1 'no' (acceptable) in the Toloka export and again in a long CSV."""
    again = _long(tmp_path, [("t1", "w1", "acceptable")], "again.csv")
    votes = read_stage1([hand_export], [again])
    fates = clean(votes, **_cleaning()).votes["fate"]
    assert fates.iloc[-1] == REPEATED_VOTE
    differently = _long(tmp_path, [("t1", "w1", "unacceptable")], "differently.csv")
    with pytest.raises(RucolaError, match="differently.csv:2: worker 'w1'"):
        clean(read_stage1([hand_export], [differently]), **_cleaning())


def test_a_control_shown_twice_is_not_a_repeat(tmp_path):
    rows = stage1_rows()
    control = next(r for r in rows if r[0] == "c1" and r[7] == "w1")
    rows.append([*control[:6], "a1-again", *control[7:]])
    path = write_tsv(tmp_path / "pool.tsv", STAGE1_HEADER, rows)
    fates = clean(read_stage1([path]), **_cleaning()).votes["fate"]
    assert fates.iloc[-1] == "control" and REPEATED_VOTE not in set(fates)


def test_rejected_answers_are_not_compared(tmp_path):
    rows = stage1_rows()
    again = [*rows[0][:2], "yes", *rows[0][3:6], "a1-rejected", rows[0][7], "REJECTED", rows[0][9]]
    rows.append(again)
    path = write_tsv(tmp_path / "pool.tsv", STAGE1_HEADER, rows)
    fates = clean(read_stage1([path]), **_cleaning()).votes["fate"]
    assert fates.iloc[-1] == "status_rejected" and len(fates) == len(HAND) + 1


def test_unknown_policy_is_refused(run_cli, project):
    """The option is held to the schema's policies, as ``annotate.repeated_votes`` is."""
    code, _, stderr = run_cli("annotate", "merge", "--repeated-votes", "newest", cwd=project)
    assert code == 1
    assert "--repeated-votes: must be 'error', 'first', 'last' or 'drop', not 'newest'" in stderr
    assert not (project / "data/interim/annotated.parquet").exists()


def _itacola(tmp_path, rows: list[str]):
    path = tmp_path / "ItaCoLA_dataset_non-expertannotations.tsv"
    path.write_text(ITACOLA_HEADER + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


ITACOLA_ROWS = [
    "8897\tÈ arrivato tuo padre?\t1\t1\t4\t1,1,1,1\tvj6buGww,HQ8yy7gw,OeynLncz,C62PYy1K",
    "4042\tAlice smette del pasto.\t0\t0\t3\t0,0,1\tvj6buGww,HQ8yy7gw,OeynLncz",
    # one player saw the item twice and answered the same (as in the published file)
    "7890\tGianni ha mangiato.\t1\t1\t4\t1,1,0,1\tGkYyKime,vj6buGww,HQ8yy7gw,GkYyKime",
]


def test_rows_listing_several_votes_read_as_published(tmp_path):
    path = _itacola(tmp_path, ITACOLA_ROWS)
    votes = read_stage1([], [path], columns=ITACOLA_COLUMNS)
    assert len(votes) == 11
    assert votes["assignment"].is_unique
    assert votes.loc[votes["task"] == "7890", "origin"].iloc[3].endswith(":4 (vote 4)")
    result = merge_votes(votes, None, method="majority", **OPTIONS)
    assert result.stage1.counts()["dropped_by_reason"] == {REPEATED_VOTE: 1}
    labels = dict(zip(result.tasks["id"], result.tasks["stage1_label"], strict=True))
    assert labels == {"4042": 0, "7890": 1, "8897": 1}
    assert result.tasks.set_index("id").loc["7890", "n_votes"] == 3
    assert result.tasks.set_index("id").loc["8897", "sentence"] == "È arrivato tuo padre?"
    kept = kept_votes(result)
    assert len(kept) == 10 and set(kept["answer"]) == {"acceptable", "unacceptable"}


def test_several_votes_need_one_answer_per_worker(tmp_path):
    path = _itacola(tmp_path, [*ITACOLA_ROWS[:1], "4042\tAlice.\t0\t0\t3\t0,0\ta,b,c"])
    with pytest.raises(RucolaError, match="2 answer\\(s\\) for 3 worker\\(s\\)") as info:
        read_stage1([], [path], columns=ITACOLA_COLUMNS)
    assert info.value.line == 3


def test_unmapped_columns_name_what_params_expect(tmp_path):
    path = _itacola(tmp_path, ITACOLA_ROWS)
    with pytest.raises(RucolaError, match="missing column\\(s\\) task, worker, label") as info:
        read_stage1([], [path])
    assert "annotate.vote_columns" in info.value.hint


def test_itacola_through_the_cli(run_cli, project, tmp_path):
    path = _itacola(tmp_path, ITACOLA_ROWS)
    args = ["annotate", "merge", "--votes", str(path)]
    for ours, theirs in ITACOLA_COLUMNS.items():
        args += ["--column", f"{ours}={theirs}"]
    # --out alone: the report, votes, workers and plots go beside it, under their own names
    code, stdout, stderr = run_cli(*args, "--out", "trial/annotated.parquet", cwd=project)
    assert code == 0, stderr
    data = json.loads((project / "trial/annotation.json").read_text(encoding="utf-8"))
    assert data["votes"]["stage1"]["dropped_by_reason"] == {REPEATED_VOTE: 1}
    assert (project / "trial/votes.parquet").is_file()
    assert (project / "trial/annotation_workers.csv").is_file()
    assert not (project / "reports/annotation.json").exists()
    code, _, stderr = run_cli(*args[:4], "--column", "taks=x", cwd=project)
    assert code == 1 and "--column 'taks=x'" in stderr
