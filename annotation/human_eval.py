"""Human evaluation: people's votes on existing corpus rows, scored against the gold.

RuCoLA's paper measured human performance by a crowd round on its test rows, aggregated
with Dawid-Skene; ItaCoLA publishes such a round (non-expert votes on 1,062 of its rows).
With ``annotate.votes_target: corpus`` the long tables of ``annotate.votes`` are that
round: each task names a corpus row, by its ``published_id`` (the source's own id, kept by
the reader) or, where no row has that id, by its sentence. The votes are cleaned as any
round's (repeated votes, controls, page times: ``annotation.cleaning``), aggregated per
row by ``annotate.human_eval.method`` (crowd-kit; fewer than ``min_votes`` usable votes or
a tie: not scored, never guessed), and the aggregate is scored against the row's label:
accuracy and Matthews' correlation per split and per split and domain.

Why a DVC stage and not a command: it reads the split rows (``split.out``, their gold
labels and splits), so it must rerun when they change, and its private report lives in
the DVC cache like every report that names test rows.

Accounting (``rucola.stage``): the row of this stage is the task (a row people voted on;
control tasks are not tasks). ``kept``: the tasks scored; set aside: ``unknown_row`` (no
corpus row has that id or sentence), ``pending:too_few_votes``, ``pending:tie``,
``no_gold`` (a test row whose gold the maintainer does not hold).

What is public: the test split is hidden, so its scores go to the private report
(``reports/private/human_evaluation.json``) only; the public report holds the other
splits' scores. ``annotate.human_eval.test_public: true`` publishes the test scores too
(and the card's human row for test): the one documented exception to "nothing of the
test split reaches git" (``tests/guarantees/test_guard_hidden_tracked.py`` knows it).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rucola.annotation.aggregate import LABELLED, PENDING, aggregate_stage1
from rucola.annotation.answers import read_stage1
from rucola.annotation.cleaning import clean
from rucola.annotation.merge import ANSWERS, control_tasks, first_sentences
from rucola.corpus import schema
from rucola.corpus.dedup import sentence_key
from rucola.io import write_parquet
from rucola.stage import StageRun, read_frame

if TYPE_CHECKING:
    from rucola.settings import Annotate

STAGE = "human_eval"
UNKNOWN_ROW = "unknown_row"
NO_GOLD = "no_gold"
TEST = "test"
ROW_COLUMNS = ["sentence", "label", "domain", "split", "id", "published_id"]


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


def match_rows(tasks: pd.DataFrame, rows: pd.DataFrame) -> pd.Series:
    """Per task (``task``, ``sentence``), the position of its corpus row, or -1.

    A task names a row by its ``published_id``; a task no id matches names the one row
    whose sentence it shows (``corpus.dedup.sentence_key``); a sentence several rows share
    names none (which row was meant is unknown)."""
    by_id: dict[str, int] = {}
    if "published_id" in rows.columns:
        for i, value in enumerate(rows["published_id"]):
            if value is not None and not pd.isna(value):
                by_id.setdefault(str(int(value)), i)
    keys = pd.Series([sentence_key(str(s)) for s in rows["sentence"]])
    unique = keys[~keys.duplicated(keep=False)]
    by_sentence = dict(zip(unique, unique.index, strict=True))
    found = []
    for task, sentence in zip(tasks["task"], tasks["sentence"], strict=True):
        at = by_id.get(str(task).strip())
        if at is None and isinstance(sentence, str) and sentence.strip():
            at = by_sentence.get(sentence_key(sentence))
        found.append(-1 if at is None else int(at))
    return pd.Series(found, index=tasks.index, dtype="int64")


def evaluate(
    votes: pd.DataFrame, rows: pd.DataFrame, settings: Annotate
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Clean and aggregate ``votes`` (``read_stage1``'s layout) over corpus ``rows``
    (``split.out``'s columns), and score the aggregate against each row's label.

    Returns one row per task (``task``, ``status``, ``reason``, ``human``, ``gold``,
    ``split``, ``domain``, ``n_votes``) and the vote counts of the cleaning."""
    human = settings.human_eval
    cleaned = clean(
        votes,
        min_control_accuracy=settings.min_control_accuracy,
        min_page_seconds=settings.min_page_seconds,
        repeated_votes=settings.repeated_votes,
    )
    tasks = sorted(set(votes["task"].astype(str)) - control_tasks(votes))
    used = cleaned.used.assign(task=cleaned.used["task"].astype(str))
    result = aggregate_stage1(used, tasks, human.method, human.min_votes)
    sentences = first_sentences(votes.assign(task=votes["task"].astype(str)))
    result["sentence"] = result["task"].map(sentences)
    at = match_rows(result, rows) if len(rows) else pd.Series(-1, index=result.index)
    found = at >= 0
    if not len(rows):
        rows = pd.DataFrame({c: [None] for c in ROW_COLUMNS})
    picked = rows.iloc[at.where(found, 0).to_numpy()].reset_index(drop=True)
    result["gold"] = picked["label"].where(found.to_numpy()).astype("Int64")
    result["split"] = picked["split"].where(found.to_numpy())
    result["domain"] = picked["domain"].where(found.to_numpy())
    result["row_sentence"] = picked["sentence"].where(found.to_numpy())
    result["row"] = [
        schema.row_task(split, domain, int(i)) if ok else None
        for ok, split, domain, i in zip(
            found, picked["split"], picked["domain"], picked["id"].fillna(-1), strict=True
        )
    ]
    reason = np.full(len(result), None, dtype=object)
    pending = (result["status"] == PENDING).to_numpy()
    reason[pending] = (PENDING + ":" + result.loc[pending, "reason"].astype(str)).to_numpy()
    unlabelled = (result["gold"] == schema.UNLABELLED).fillna(False)
    no_gold = found.to_numpy() & unlabelled.to_numpy(dtype=bool)
    reason[no_gold & ~pending] = NO_GOLD
    reason[~found.to_numpy()] = UNKNOWN_ROW
    result["why"] = reason
    result["human"] = result["label"]
    assert set(result.loc[result["why"].isna(), "status"]) <= {LABELLED}
    counts = {
        "read": int(len(cleaned.votes)),
        "used": int(len(cleaned.used)),
        "dropped_by_fate": {
            str(k): int(v)
            for k, v in sorted(cleaned.votes["fate"].value_counts().items())
            if k != "used"
        },
    }
    rows_of = dict(zip(result["task"], result["row"], strict=True))
    kept = used.assign(task=used["task"].map(rows_of))
    kept = kept[kept["task"].notna()]
    votes_on_rows = pd.DataFrame(
        {
            "task": kept["task"].astype(str),
            "stage": 1,
            "worker": kept["worker"].astype(str),
            "answer": kept["label"].map(ANSWERS).astype(str),
        },
        columns=schema.VOTES_SCHEMA.names,
    )
    counts["votes_on_rows"] = votes_on_rows.sort_values(
        ["task", "worker", "answer"], kind="stable"
    ).reset_index(drop=True)
    return result, counts


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


def run_human_eval(settings: Annotate, rows_path: str) -> dict[str, Any]:
    """The DVC stage ``human_eval``: votes of ``annotate.votes`` on the rows of
    ``rows_path`` (``split.out``); with ``votes_target: candidates`` (or no votes) no round,
    and a report that says so."""
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
        result, vote_counts = evaluate(votes, rows, settings)
        on_rows = vote_counts.pop("votes_on_rows")
        write_parquet(on_rows, run.path(human.votes_out), schema.VOTES_SCHEMA)
        run.count_read(len(result))
        aside = result[result["why"].notna()]
        run.set_aside(
            pd.DataFrame(
                {"origin": "votes:" + aside["task"].astype(str), "sentence": aside["sentence"]}
            ),
            aside["why"].astype(str).tolist(),
        )
        scored = result[result["why"].isna()]
        run.count_kept(len(scored))
        table = score_table(scored)
        public = public_scores(table, human.test_public)
        report = run.finish(
            private={"scores": table},
            has_round=True,
            method=human.method,
            min_votes=human.min_votes,
            votes=vote_counts,
            test_public=human.test_public,
            scores=public,
        )
        return {**report, "scores": table, "public_scores": public}
