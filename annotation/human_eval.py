"""Human evaluation: people's votes on existing corpus rows, scored against the gold.

RuCoLA's paper measured human performance by a crowd round on its test rows, aggregated
with Dawid-Skene; ItaCoLA publishes such a round (non-expert votes on 1,062 of its rows).
With ``annotate.votes_target: corpus`` the long tables of ``annotate.votes`` are that
round: each vote names a corpus row by its whole key (``annotation.row_names``: its id
with the split and domain the table gives, an id exactly one row has, or a sentence
exactly one row has; an id and a sentence given together must agree). The votes are
cleaned as any round's (repeated votes, controls, page times: ``annotation.cleaning``),
aggregated per row by ``annotate.human_eval.method`` (crowd-kit; fewer than ``min_votes``
usable votes or a tie: not scored, never guessed), and the aggregate is scored against
the row's label: accuracy and Matthews' correlation per split and per split and domain.

Why a DVC stage and not a command: it reads the split rows (``split.out``, their gold
labels and splits), so it must rerun when they change, and its private report lives in
the DVC cache like every report that names test rows.

Accounting (``rucola.stage``): the row of this stage is the task (a row people voted on,
or a name that names none; control tasks are not tasks). ``kept``: the tasks scored; set
aside: ``unknown_row``, ``ambiguous_row``, ``sentence_mismatch`` (``annotation.row_names``),
``pending:too_few_votes``, ``pending:tie``, ``no_gold`` (a test row whose gold the
maintainer does not hold).

What is public: the test split is hidden, so everything of its votes goes to the private
outputs only (``reports/private/human_evaluation.json``, ``human_eval.votes_out``): the
public report counts the other splits' tasks and votes and holds their scores, its
aggregates computed without a test vote; a vote whose id or sentence points at a test row
and that names no row counts privately too. ``annotate.human_eval.test_public: true``
publishes the test scores and counts too (and the card's human row for test): the one
documented exception to "nothing of the test split reaches git"
(``tests/guarantees/test_guard_hidden_tracked.py`` knows it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rucola.annotation.aggregate import LABELLED, PENDING, aggregate_stage1
from rucola.annotation.answers import read_stage1
from rucola.annotation.cleaning import clean
from rucola.annotation.merge import ANSWERS, control_tasks, first_sentences
from rucola.annotation.row_names import TEST, resolve_names
from rucola.annotation.row_names import UNKNOWN_ROW as UNKNOWN_ROW
from rucola.corpus import schema
from rucola.io import write_parquet
from rucola.stage import StageRun, read_frame

if TYPE_CHECKING:
    from rucola.settings import Annotate

STAGE = "human_eval"
NO_GOLD = "no_gold"
ROW_COLUMNS = [
    "sentence",
    "label",
    "domain",
    "split",
    "id",
    "published_id",
    "published_split",
]


def scores(gold: np.ndarray, human: np.ndarray) -> dict[str, Any]:
    """``n``, ``accuracy`` and Matthews' correlation (0 where it is undefined, as
    scikit-learn has it: one class only on either side)."""
    gold = np.asarray(gold, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    n = len(gold)
    if n == 0:
        return {"n": 0, "accuracy": None, "mcc": None}
    tp = int(((gold == 1) & (human == 1)).sum())
    tn = int(((gold == 0) & (human == 0)).sum())
    fp = int(((gold == 0) & (human == 1)).sum())
    fn = int(((gold == 1) & (human == 0)).sum())
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    mcc = (tp * tn - fp * fn) / denominator if denominator else 0.0
    return {"n": n, "accuracy": round((tp + tn) / n, 6), "mcc": round(mcc, 6)}


@dataclass
class Evaluation:
    """One row per name (``task``: the row's ``row:<split>:<domain>:<id>``, else the name
    as given; ``given``: the task as the first vote gave it; ``status``, ``reason``,
    ``why``, ``human``, ``gold``, ``split``, ``domain``, ``row``, ``n_votes``,
    ``private``), the vote counts of the cleaning (all votes, and the public ones), and
    every used vote on a row."""

    result: pd.DataFrame
    counts: dict[str, Any]
    public_counts: dict[str, Any]
    votes_on_rows: pd.DataFrame


def _vote_counts(votes: pd.DataFrame) -> dict[str, Any]:
    used = votes["fate"] == "used"
    return {
        "read": int(len(votes)),
        "used": int(used.sum()),
        "dropped_by_fate": {
            str(k): int(v) for k, v in sorted(votes["fate"].value_counts().items()) if k != "used"
        },
    }


def _unresolved_name(votes: pd.DataFrame) -> list[str]:
    """A stable name for the votes that name no row: what they gave, as given."""
    given = votes.reindex(columns=["task", "split", "domain", "sentence"]).astype(object)
    given = given.where(given.notna(), "")
    return ["?" + "\x1f".join(map(str, name)) for name in given.itertuples(index=False)]


def evaluate(
    votes: pd.DataFrame, rows: pd.DataFrame, settings: Annotate, language: str = "ru"
) -> Evaluation:
    """Name each vote's row (``annotation.row_names``), clean the votes, aggregate them
    per row and score the aggregate against the row's label (``split.out``'s columns).

    The test rows' votes are aggregated apart from the others, so that nothing public
    (the other splits' scores, with a method that weighs workers by all their answers)
    depends on them; a vote whose id or sentence points at a test row counts in the
    private figures only, whatever it names. ``language``: ``corpus.language``, whose
    key sentences are compared under (extract's)."""
    human = settings.human_eval
    votes = votes.assign(task=votes["task"].astype(str)).reset_index(drop=True)
    controls = votes["task"].isin(control_tasks(votes)).to_numpy()
    named = resolve_names(votes[~controls], rows, language).reindex(votes.index)
    at = named["at"].fillna(-1).astype("int64").to_numpy()
    found = at >= 0
    if not len(rows):
        rows = pd.DataFrame({c: [None] for c in ROW_COLUMNS})
    picked = rows.iloc[np.where(found, at, 0)].reset_index(drop=True)
    row_split = picked["split"].where(found)
    keys = pd.Series(
        [
            schema.row_task(split, domain, int(i)) if ok else None
            for ok, split, domain, i in zip(
                found, picked["split"], picked["domain"], picked["id"].fillna(-1), strict=True
            )
        ],
        dtype=object,
    )
    unresolved = ~found & ~controls
    if unresolved.any():
        keys[unresolved] = _unresolved_name(votes[unresolved])
    if controls.any():
        keys[controls] = votes.loc[controls, "task"].to_numpy()
    near_test = named["near_test"].fillna(False).to_numpy(bool)
    private = (row_split == TEST).to_numpy() | (unresolved & near_test)
    if human.test_public:  # the documented exception: test counts in the public figures
        private[:] = False
    cleaned = clean(
        votes.assign(task=keys),
        min_control_accuracy=settings.min_control_accuracy,
        min_page_seconds=settings.min_page_seconds,
        repeated_votes=settings.repeated_votes,
    )
    fates = cleaned.votes
    used = fates["fate"] == "used"
    parts = []
    for on_test in (False, True):  # aggregated apart: public scores never see test votes
        part = found & ((row_split == TEST).to_numpy() == on_test)
        tasks = sorted(set(keys[part]))
        if tasks:
            chosen = fates[used.to_numpy() & part]
            parts.append(aggregate_stage1(chosen, tasks, human.method, human.min_votes))
    result = (
        pd.concat(parts, ignore_index=True)
        if parts
        else pd.DataFrame(columns=["task", "label", "n_votes", "status", "reason"])
    )
    first = pd.Series(np.arange(len(votes)), index=keys).groupby(level=0).min()
    where = first.reindex(result["task"]).to_numpy()
    for column in ("split", "domain", "sentence", "label", "id"):
        result["row_" + column] = picked[column].to_numpy()[where] if len(where) else []
    sentences = first_sentences(votes.assign(task=keys.to_numpy()))
    result["sentence"] = sentences.reindex(result["task"]).to_numpy()
    result["given"] = votes["task"].to_numpy()[where] if len(where) else []  # as voters named it
    reason = np.full(len(result), None, dtype=object)
    pending = (result["status"] == PENDING).to_numpy()
    reason[pending] = (PENDING + ":" + result.loc[pending, "reason"].astype(str)).to_numpy()
    unlabelled = pd.Series(result["row_label"] == schema.UNLABELLED).fillna(False)
    reason[unlabelled.to_numpy(bool) & ~pending] = NO_GOLD
    result["why"] = reason
    result["human"] = result["label"]
    result["gold"] = pd.array(result["row_label"], dtype="Int64")
    result["split"], result["domain"] = result["row_split"], result["row_domain"]
    result["row"] = result["task"]
    result["private"] = (result["split"] == TEST).to_numpy() & (not human.test_public)
    assert set(result.loc[result["why"].isna(), "status"]) <= {LABELLED}
    aside = _set_aside_names(votes, keys, named, unresolved, private)
    result = pd.concat([result, aside], ignore_index=True)
    kept = fates[used.to_numpy() & found]
    votes_on_rows = pd.DataFrame(
        {
            "task": kept["task"].astype(str),
            "stage": 1,
            "worker": kept["worker"].astype(str),
            "answer": kept["label"].map(ANSWERS).astype(str),
        },
        columns=schema.VOTES_SCHEMA.names,
    )
    votes_on_rows = votes_on_rows.sort_values(
        ["task", "worker", "answer"], kind="stable"
    ).reset_index(drop=True)
    return Evaluation(
        result,
        _vote_counts(fates),
        _vote_counts(fates[~private]),
        votes_on_rows,
    )


def _set_aside_names(
    votes: pd.DataFrame,
    keys: pd.Series,
    named: pd.DataFrame,
    unresolved: np.ndarray,
    private: np.ndarray,
) -> pd.DataFrame:
    """One row per name that names no row, with its reason (``annotation.row_names``)."""
    frame = pd.DataFrame(
        {
            "task": keys[unresolved].to_numpy(),
            "given": votes.loc[unresolved, "task"].to_numpy(),
            "sentence": votes.reindex(columns=["sentence"])["sentence"].to_numpy()[unresolved],
            "why": named.loc[unresolved, "why"].to_numpy(),
            "private": private[unresolved],
        }
    )
    frame = frame.groupby("task", sort=True, as_index=False).agg(
        given=("given", "first"),
        sentence=("sentence", "first"),
        why=("why", "first"),
        private=("private", "any"),
        n_votes=("why", "size"),
    )
    return frame.assign(status=PENDING)


def score_table(scored: pd.DataFrame) -> dict[str, Any]:
    """Scores overall, per split, and per split and domain (splits in their order)."""
    order = {s: i for i, s in enumerate(schema.SPLITS)}
    splits = sorted(set(scored["split"]), key=lambda s: (order.get(s, len(order)), s))
    table: dict[str, Any] = {"all": scores(scored["gold"], scored["human"]), "by_split": {}}
    for split in splits:
        part = scored[scored["split"] == split]
        domains = {
            str(d): scores(p["gold"], p["human"]) for d, p in part.groupby("domain", sort=True)
        }
        table["by_split"][split] = {**scores(part["gold"], part["human"]), "by_domain": domains}
    return table


def public_scores(table: dict[str, Any], test_public: bool) -> dict[str, Any]:
    """The scores git may hold: every split but test, unless ``test_public``."""
    shown = {s: v for s, v in table["by_split"].items() if s != TEST or test_public}
    return {"by_split": shown}


def run_human_eval(settings: Annotate, rows_path: str, language: str = "ru") -> dict[str, Any]:
    """The DVC stage ``human_eval``: votes of ``annotate.votes`` on the rows of
    ``rows_path`` (``split.out``); with ``votes_target: candidates`` (or no votes) no round,
    and a report that says so. ``language``: ``corpus.language``, whose script sentences
    are compared under."""
    human = settings.human_eval
    round_on_rows = settings.votes_target == "corpus" and bool(settings.votes)
    run = StageRun(
        STAGE, report=human.report, private_report=human.private_report, outputs=[human.votes_out]
    )
    with run:
        if not round_on_rows:
            empty = pd.DataFrame({c: pd.Series(dtype=object) for c in schema.VOTES_SCHEMA.names})
            write_parquet(empty, run.path(human.votes_out), schema.VOTES_SCHEMA)
            report = run.finish(has_round=False, method=human.method)
            return {**report, "scores": None, "public_scores": None}
        votes = read_stage1(
            [], settings.votes, settings.output_field, columns=settings.vote_columns
        )
        rows = read_frame(rows_path, "split rows", columns=ROW_COLUMNS)
        evaluation = evaluate(votes, rows, settings, language)
        write_parquet(evaluation.votes_on_rows, run.path(human.votes_out), schema.VOTES_SCHEMA)
        result = evaluation.result
        public = result[~result["private"].astype(bool)]
        run.count_read(len(public))
        aside = public[public["why"].notna()]
        run.set_aside(
            pd.DataFrame({"origin": "votes:" + aside["task"].astype(str)}),
            aside["why"].astype(str).tolist(),
        )
        run.count_kept(int(public["why"].isna().sum()))
        scored = result[result["why"].isna()]
        table = score_table(scored)
        public_table = public_scores(table, human.test_public)
        every = result["why"].dropna().astype(str).value_counts()
        report = run.finish(
            private={  # every task and vote, test included (the public keys count the others)
                "read": len(result),
                "kept": len(scored),
                "set_aside": {str(k): int(v) for k, v in sorted(every.items())},
                "votes": evaluation.counts,
                "scores": table,
            },
            has_round=True,
            method=human.method,
            min_votes=human.min_votes,
            votes=evaluation.public_counts,
            test_public=human.test_public,
            scores=public_table,
        )
        return {**report, "scores": table, "public_scores": public_table}
