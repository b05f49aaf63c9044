"""Duplicates a built corpus must not have: the same sentence in two splits, and the same
sentence with two labels.

- ``cross_split_duplicate``: a train row that repeats a test row is leakage (a model can
  learn the test answer), and a validation row that repeats a train row inflates model
  selection. Rows are tied together when they are the same sentence
  (``rucola.corpus.dedup.sentence_key``), near-duplicates (MinHash LSH over
  ``rucola.corpus.dedup.loose_key``, ``audit.cross_split_duplicate.near_duplicates``), or
  share the split's ``group`` (alternation variants and the near-duplicate clusters
  ``filter`` made, which the split keeps together unless pins place them apart). Every
  row of a cluster that spans more than one split is listed, its evidence naming the rows
  of the other splits; score 1.0 for the same sentence, else the Jaccard similarity of
  the character shingles to the closest row of another split.
- ``conflicting_duplicate``: the same sentence labelled both acceptable and unacceptable
  (whatever the splits); unlabelled test rows (label -1) are ignored. Score: the share of
  the sentence's labelled rows that disagree with this one, so a lone dissenter comes
  first.

Both are the project's one notion of "the same sentence" and "near-duplicate"
(``rucola.corpus.dedup``), so the audit never disagrees with ``filter`` or the pins.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from rucola.corpus import schema
from rucola.corpus.dedup import exact_roots, loosen, near_roots, sentence_key, shingles
from rucola.curation.queue import findings_frame, row_name
from rucola.settings import CrossSplitDuplicates

NAMED = 3  # other rows an evidence line names before "and N more"


def _names(rows: pd.DataFrame) -> list[str]:
    return [
        row_name(s, d, int(i))
        for s, d, i in zip(rows["split"], rows["domain"], rows["id"], strict=True)
    ]


def _order(rows: pd.DataFrame) -> np.ndarray:
    """Positions sorted by published identity: split, domain (none last), id."""
    keys = pd.DataFrame(
        {
            "split": rows["split"].map(schema.SPLIT_INDEX).to_numpy(),
            "domain": rows["domain"].fillna("\uffff").to_numpy(),
            "id": rows["id"].to_numpy(),
        }
    )
    return keys.sort_values(["split", "domain", "id"], kind="stable").index.to_numpy()


def _union(parent: np.ndarray, roots: np.ndarray) -> None:
    """Merge each row ``i`` with ``roots[i]`` (union-find, smaller index as the root)."""
    for i, j in enumerate(roots.tolist()):
        if i == j:
            continue
        a, b = _find(parent, i), _find(parent, j)
        if a != b:
            parent[max(a, b)] = min(a, b)


def _find(parent: np.ndarray, i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return int(i)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _more(named: list[str], total: int) -> str:
    text = ", ".join(named)
    return text + (f" and {total - len(named)} more" if total > len(named) else "")


def cross_split_duplicates(
    rows: pd.DataFrame, settings: CrossSplitDuplicates, language: str = "ru"
) -> pd.DataFrame:
    """Findings (``rucola.curation.queue.findings_frame``) of every row whose cluster of
    same, near-duplicate or same-group rows spans more than one split; the same sentence
    is ``sentence_key`` in ``language`` (``corpus.language``)."""
    n = len(rows)
    keys = [sentence_key(s, language) for s in rows["sentence"]]
    loose = [loosen(k) for k in keys]
    near = settings.near_duplicates
    parent = np.arange(n, dtype=np.int64)
    _union(parent, exact_roots(keys))
    if near.enabled and n > 1:
        distinct_roots = exact_roots(loose)
        firsts = np.unique(distinct_roots)
        clusters = near_roots(
            [loose[i] for i in firsts],
            threshold=near.threshold,
            shingle=near.shingle,
            num_perm=near.num_perm,
            seed=near.seed,
        )
        slot = np.empty(n, np.int64)
        slot[firsts] = np.arange(len(firsts))
        _union(parent, firsts[clusters[slot[distinct_roots]]])
    groups = rows["group"]
    grouped = groups.notna().to_numpy()
    if grouped.any():
        positions = np.flatnonzero(grouped)
        roots = exact_roots([str(g) for g in groups.to_numpy()[grouped]])
        linked = np.arange(n, dtype=np.int64)
        linked[positions] = positions[roots]
        _union(parent, linked)
    cluster = np.fromiter((_find(parent, i) for i in range(n)), np.int64, n)

    splits = rows["split"].to_numpy()
    frame = pd.DataFrame({"cluster": cluster, "split": splits})
    spread = frame.groupby("cluster")["split"].nunique()
    straddling = spread.index[spread > 1]
    if len(straddling) == 0:
        return findings_frame([], [], [])
    names = _names(rows)
    group_values = groups.to_numpy()
    order = _order(rows)
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    members_of = frame[frame["cluster"].isin(straddling)].groupby("cluster").groups
    found_rows, scores, evidence, labels = [], [], [], []
    for root in straddling:
        members = sorted(members_of[root].to_numpy().tolist(), key=lambda i: rank[i])
        sets = {i: set(shingles(loose[i], near.shingle)) for i in members}
        label = names[members[0]]
        for i in members:
            others = [m for m in members if splits[m] != splits[i]]
            relations = []
            for m in others:
                if keys[m] == keys[i]:
                    relations.append((1.0, 0, rank[m], f"same text as {names[m]}"))
                    continue
                similarity = _jaccard(sets[i], sets[m])
                if near.enabled and similarity >= near.threshold:
                    what = f"near-duplicate of {names[m]}"
                elif grouped[i] and group_values[i] == group_values[m]:
                    what = f"same group as {names[m]}"
                else:
                    what = f"in one near-duplicate cluster with {names[m]}"
                relations.append((similarity, 1, rank[m], f"{what} ({similarity:.2f})"))
            relations.sort(key=lambda r: (-r[0], r[1], r[2]))
            found_rows.append(i)
            scores.append(relations[0][0])
            evidence.append(_more([r[3] for r in relations[:NAMED]], len(relations)))
            labels.append(label)
    return findings_frame(found_rows, scores, evidence, labels)


def conflicting_duplicates(
    rows: pd.DataFrame, keys: Sequence[str] | None = None, language: str = "ru"
) -> pd.DataFrame:
    """Findings of every labelled row whose sentence (``sentence_key`` in ``language``,
    ``corpus.language``) has labelled rows of the other label too; ``keys`` saves
    recomputing the keys."""
    if keys is None:
        keys = [sentence_key(s, language) for s in rows["sentence"]]
    labels = rows["label"].to_numpy()
    labelled = np.isin(labels, [schema.UNACCEPTABLE, schema.ACCEPTABLE])
    frame = pd.DataFrame({"key": np.asarray(keys, dtype=object), "label": labels})[labelled]
    mixed = frame.groupby("key")["label"].nunique()
    conflicted = frame[frame["key"].isin(mixed.index[mixed > 1])]
    if conflicted.empty:
        return findings_frame([], [], [])
    names = _names(rows)
    order = _order(rows)
    rank = np.empty(len(rows), np.int64)
    rank[order] = np.arange(len(rows))
    found_rows, scores, evidence, clusters = [], [], [], []
    for _, members in conflicted.groupby("key", sort=False):
        positions = sorted(members.index.tolist(), key=lambda i: rank[i])
        for i in positions:
            others = [m for m in positions if labels[m] != labels[i]]
            named = [names[m] for m in others[:NAMED]]
            other = 1 - int(labels[i])
            found_rows.append(i)
            scores.append(len(others) / len(positions))
            evidence.append(
                f"labelled {int(labels[i])}; the same sentence is labelled {other} as "
                + _more(named, len(others))
            )
            clusters.append(names[positions[0]])
    return findings_frame(found_rows, scores, evidence, clusters)
