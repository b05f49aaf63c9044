"""Exact and near-duplicates across the whole stream, after the per-row thresholds.

Rows are ranked by preference: reference rows (e.g. the in-domain set when screening
candidates) first, then judged rows (in-domain and learner), then generated ones, each in
input order (earlier source before later). Within a cluster the best-ranked row stays; a
generated row below it is set aside as ``duplicate`` (the same sentence,
``corpus.dedup.sentence_key``) or ``near_duplicate`` (MinHash Jaccard at least
``threshold`` over ``corpus.dedup.loose_key``), with ``detail`` naming the origin of the
row it repeats. Punctuation and case count for the same sentence (a question and a
statement are two sentences); rows equal up to case and punctuation are near-duplicates.
In-domain rows, learner rows (a learner's sentence and its correction are a near-duplicate
pair by design) and rows of a published release are never set aside here: minimal pairs
are the point of an acceptability corpus, extraction already removed exact repeats, and a
published row keeps its id and split. Rows that stay in one cluster share a ``group``, so
the split keeps them together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from rucola.corpus.dedup import exact_roots, loosen, near_roots, sentence_key
from rucola.corpus.schema import IN_DOMAIN, LEARNER, OUT_OF_DOMAIN
from rucola.rules import FilterRule, Verdict

if TYPE_CHECKING:
    from rucola.settings import NearDuplicates


@dataclass
class Duplicates:
    reason: np.ndarray  # None, "duplicate" or "near_duplicate" per row
    of: np.ndarray  # origin of the row each set-aside row repeats (None when kept)
    group: np.ndarray  # the split group after merging clusters
    clusters: int  # clusters of two or more rows among the stream (reference excluded)


def _union_groups(
    groups: np.ndarray, roots: np.ndarray, keep: np.ndarray, domains: np.ndarray
) -> np.ndarray:
    """Merge the groups of kept rows that share a cluster and a domain (each domain is
    split on its own); the smallest name wins."""
    parent: dict[str, str] = {}

    def find(g: str) -> str:
        while parent.get(g, g) != g:
            g = parent[g]
        return g

    by_root: dict[tuple[int, str], str] = {}
    for i in np.flatnonzero(keep):
        root = (int(roots[i]), str(domains[i]))
        g = str(groups[i])
        if root in by_root:
            a, b = find(by_root[root]), find(g)
            if a != b:
                parent[max(a, b)] = min(a, b)
        else:
            by_root[root] = g
    return np.array([find(str(g)) for g in groups], dtype=object)


HIDDEN_DOMAIN = "(published test)"  # how a published test row groups, gold or not


def grouping_domains(frame: pd.DataFrame) -> np.ndarray:
    """The domain each row groups under: its own, but one shared mark for every published
    test row, whose domain is hidden (with the maintainer's gold or without it). Grouping a
    test row with in-domain rows only when its gold says in-domain would tell its domain
    in the split report's straddling groups, which git tracks (issue 32)."""
    domains = frame["domain"].to_numpy(dtype=object).copy()
    if "published_test" in frame:
        domains[frame["published_test"].to_numpy(dtype=bool)] = HIDDEN_DOMAIN
    return domains


def find_duplicates(
    frame: pd.DataFrame,
    settings: NearDuplicates,
    reference: pd.DataFrame | None = None,
    language: str = "ru",
) -> Duplicates:
    ref_sentences = [] if reference is None else reference["sentence"].tolist()
    ref_origins = [] if reference is None else [str(o) for o in reference["origin"].tolist()]
    sentences = ref_sentences + frame["sentence"].tolist()
    # Protected rows are never set aside here: the reference, in-domain and learner rows
    # (minimal pairs are the point; extraction removes their exact repeats) and every row
    # of a published release (it keeps its id and split; removing one is a correction
    # made upstream).
    protected = frame["domain"].isin([IN_DOMAIN, LEARNER]).to_numpy()
    if "published" in frame:
        protected = protected | frame["published"].to_numpy(dtype=bool)
    in_domain = np.concatenate([np.ones(len(ref_sentences), bool), protected])
    origins = np.array(ref_origins + [str(o) for o in frame["origin"].tolist()], dtype=object)
    # Preference: reference, then in-domain, then generated; input order within each (the
    # reference rows count as in-domain and come first in the input).
    order = np.lexsort((np.arange(len(sentences)), ~in_domain))
    # Exact: the same sentence (punctuation and case count). Near: the loose key (case,
    # punctuation, ё/е also ignored), then MinHash over its shingles.
    same = [sentence_key(sentences[i], language) for i in order]
    strict = exact_roots(same)
    keys = [loosen(key) for key in same]
    del same
    exact = exact_roots(keys)
    distinct = np.flatnonzero(exact == np.arange(len(keys)))
    near = np.arange(len(keys))
    if settings.enabled and len(distinct) > 1:
        sub = near_roots(
            [keys[i] for i in distinct],
            threshold=float(settings.threshold),
            shingle=settings.shingle,
            num_perm=settings.num_perm,
            seed=settings.seed,
        )
        near[distinct] = distinct[sub]
    near = near[exact]  # an exact repeat joins its original's cluster
    # Back to input positions.
    position = np.empty(len(order), np.int64)
    position[order] = np.arange(len(order))
    exact_root = order[strict[position]]
    near_root = order[near[position]]

    reason = np.full(len(sentences), None, dtype=object)
    of = np.full(len(sentences), None, dtype=object)
    idx = np.arange(len(sentences))
    is_exact = (exact_root != idx) & ~in_domain
    is_near = (near_root != idx) & ~in_domain & ~is_exact
    reason[is_exact] = "duplicate"
    reason[is_near] = "near_duplicate"
    of[is_exact] = origins[exact_root[is_exact]]
    of[is_near] = origins[near_root[is_near]]

    start = len(ref_sentences)
    keep = np.equal(reason[start:], None)
    groups = np.array([str(g) for g in frame["group"].tolist()], dtype=object)
    merged = _union_groups(groups, near_root[start:], keep, grouping_domains(frame))
    sizes = np.bincount(near_root[start:], minlength=len(sentences))
    return Duplicates(reason[start:], of[start:], merged, int((sizes > 1).sum()))


def duplicate_view(table: pa.Table) -> pd.DataFrame:
    """Only the columns the duplicate step reads, as plain Python objects (no copies).

    Candidates lack the corpus columns: their domain is out-of-domain and their candidate
    id stands for origin and group.
    """
    n = table.num_rows
    if "origin" in table.column_names:
        origin = table.column("origin").to_pylist()
    elif "candidate_id" in table.column_names:
        origin = table.column("candidate_id").to_pylist()
    else:
        origin = [str(i) for i in range(n)]
    columns = {
        "sentence": pd.Series(table.column("sentence").to_pylist(), dtype=object),
        "domain": pd.Series(
            table.column("domain").to_pylist()
            if "domain" in table.column_names
            else np.full(n, OUT_OF_DOMAIN, dtype=object),
            dtype=object,
        ),
        "origin": pd.Series(origin, dtype=object),
    }
    columns["group"] = (
        pd.Series(table.column("group").to_pylist(), dtype=object)
        if "group" in table.column_names
        else columns["origin"]
    )
    if "published_id" in table.column_names:
        columns["published"] = pd.Series(
            table.column("published_id").is_valid().to_numpy(zero_copy_only=False), dtype=bool
        )
    if "published_split" in table.column_names:
        split = table.column("published_split").to_pylist()
        columns["published_test"] = pd.Series([s == "test" for s in split], dtype=bool)
    return pd.DataFrame(columns, copy=False)


class DuplicateRule(FilterRule):
    """Exact and near-duplicates across the rows it is given (the module doc); a kept row's
    ``group`` becomes its cluster's merged group."""

    name = "duplicates"

    def __init__(
        self,
        settings: NearDuplicates,
        reference: pd.DataFrame | None = None,
        language: str = "ru",
    ) -> None:
        self.settings = settings
        self.reference = reference
        self.language = language  # corpus.language: what the same sentence means
        self.clusters = 0

    def judge(self, rows: pa.Table) -> Verdict:
        found = find_duplicates(duplicate_view(rows), self.settings, self.reference, self.language)
        self.clusters = found.clusters
        if "group" in rows.column_names:
            field = rows.schema.field("group")
            index = rows.column_names.index("group")
            rows = rows.set_column(index, field, pa.array(found.group.tolist(), field.type))
        return Verdict(found.reason, found.of, rows)

    def params(self) -> dict[str, object]:
        return dict(sorted(self.settings.model_dump().items()))
