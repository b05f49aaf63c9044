"""Exact and near-duplicates across the whole stream, after the per-row thresholds.

Rows are ranked by preference: reference rows (e.g. the in-domain set when screening
candidates) first, then in-domain rows, then generated ones, each in input order (earlier
source before later). Within a cluster the best-ranked row stays; a generated row below
it is set aside as ``duplicate`` (same normalised key) or ``near_duplicate`` (MinHash
Jaccard at least ``threshold``), with ``near_duplicate_of`` naming the row it repeats.
In-domain rows are never dropped for looking alike, because minimal pairs are the point of
an acceptability corpus; an exact in-domain repeat with the same label is still a
duplicate. Rows that stay in one cluster share a ``group``, so the split keeps them together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from corpus.dedup import dedup_key, exact_roots, near_roots
from corpus.schema import IN_DOMAIN


@dataclass
class Duplicates:
    reason: np.ndarray  # None, "duplicate" or "near_duplicate" per row
    of: np.ndarray  # origin of the row each set-aside row repeats (None when kept)
    group: np.ndarray  # the split group after merging clusters
    clusters: int  # clusters of two or more rows among the stream (reference excluded)


def _union_groups(groups: np.ndarray, roots: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Merge the groups of kept rows that share a cluster; the smallest name wins."""
    parent: dict[str, str] = {}

    def find(g: str) -> str:
        while parent.get(g, g) != g:
            g = parent[g]
        return g

    by_root: dict[int, str] = {}
    for i in np.flatnonzero(keep):
        root = int(roots[i])
        g = str(groups[i])
        if root in by_root:
            a, b = find(by_root[root]), find(g)
            if a != b:
                parent[max(a, b)] = min(a, b)
        else:
            by_root[root] = g
    return np.array([find(str(g)) for g in groups], dtype=object)


def find_duplicates(
    frame: pd.DataFrame,
    settings: dict[str, Any],
    reference: pd.DataFrame | None = None,
) -> Duplicates:
    ref_sentences = [] if reference is None else reference["sentence"].tolist()
    ref_origins = [] if reference is None else [str(o) for o in reference["origin"].tolist()]
    sentences = ref_sentences + frame["sentence"].tolist()
    in_domain = np.concatenate(
        [np.ones(len(ref_sentences), bool), (frame["domain"] == IN_DOMAIN).to_numpy()]
    )
    labels = np.full(len(sentences), -1, np.int64)  # -1: no label (reference, candidates)
    if "label" in frame:
        labels[len(ref_sentences) :] = frame["label"].fillna(-1).to_numpy(dtype=np.int64)
    origins = np.array(ref_origins + [str(o) for o in frame["origin"].tolist()], dtype=object)
    # Preference: reference, then in-domain, then generated; input order within each (the
    # reference rows count as in-domain and come first in the input).
    order = np.lexsort((np.arange(len(sentences)), ~in_domain))
    keys = [dedup_key(sentences[i]) for i in order]
    exact = exact_roots(keys)
    distinct = np.flatnonzero(exact == np.arange(len(keys)))
    near = np.arange(len(keys))
    if settings.get("enabled", True) and len(distinct) > 1:
        sub = near_roots(
            [keys[i] for i in distinct],
            threshold=float(settings["threshold"]),
            shingle=int(settings["shingle"]),
            num_perm=int(settings["num_perm"]),
            seed=int(settings["seed"]),
        )
        near[distinct] = distinct[sub]
    near = near[exact]  # an exact repeat joins its original's cluster
    # Back to input positions.
    position = np.empty(len(order), np.int64)
    position[order] = np.arange(len(order))
    exact_root = order[exact[position]]
    near_root = order[near[position]]

    reason = np.full(len(sentences), None, dtype=object)
    of = np.full(len(sentences), None, dtype=object)
    idx = np.arange(len(sentences))
    same_label = labels[exact_root] == labels
    is_exact = (exact_root != idx) & (~in_domain | same_label)
    is_near = (near_root != idx) & ~in_domain & ~is_exact
    reason[is_exact] = "duplicate"
    reason[is_near] = "near_duplicate"
    of[is_exact] = origins[exact_root[is_exact]]
    of[is_near] = origins[near_root[is_near]]

    start = len(ref_sentences)
    keep = np.equal(reason[start:], None)
    groups = np.array([str(g) for g in frame["group"].tolist()], dtype=object)
    merged = _union_groups(groups, near_root[start:], keep)
    sizes = np.bincount(near_root[start:], minlength=len(sentences))
    return Duplicates(reason[start:], of[start:], merged, int((sizes > 1).sum()))
