"""The validate stage's derived table: one row per check x domain x rows checked x split.

Split sizes are compared with ``split.ratios`` and acceptable shares with the domain's,
each within a tolerance that scales with the split's size (:func:`size_tolerance`,
:func:`share_tolerance`): a configured 0.02 cannot be met by a split of 12 rows. The
expectations that read this table are in ``validation.suite``.

Which rows are balanced: a domain without pinned rows as a whole; in a domain with pinned
rows (a published release's) the new rows only (``corpus.pin.new_rows``), which the split
stage splits among themselves, so their own shares must match ``split.ratios``; with
``split.new_rows`` naming one split, a row-level check instead wants every new row of such
a domain there. The pinned rows' splits are the pinned release's (the pinned-split check
covers them).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from rucola.corpus import schema
from rucola.corpus.pin import STRATIFIED, new_rows, placed_by_policy
from rucola.settings import Split, Validate

BALANCE = "balance"  # the name of this table in the validation run
BALANCE_ID_COLUMNS = ["check", "domain", "rows_of", "split"]
BALANCE_COLUMNS = [
    "check",
    "domain",
    "rows_of",
    "split",
    "rows",
    "observed",
    "target",
    "deviation",
    "tolerance",
    "excess",
]
ALL_ROWS = "all"  # rows_of: the domain's rows (a domain without pinned rows)
NEW_ROWS = "new"  # rows_of: the domain's new rows (it has pinned rows)

SPLIT_SIZE = "split_size"
ACCEPTABLE_SHARE = "acceptable_share"


def size_tolerance(configured: float, rows: int, largest_group: int) -> float:
    """How far a split's share of the rows may be from its ratio.

    Not a binomial error: split sizes are not drawn at random. The split stage places whole
    groups, per label, in the split furthest behind its ratio, which keeps every split
    within one group of its target per label, so within two groups over both labels (6,000
    simulated domains of 2 to 360 rows never came off by more than 1.2 groups). A share
    can therefore miss its ratio by ``2 * largest_group / rows`` through rounding alone,
    and on 40 new rows, where one row is 0.025, a configured 0.02 would fail a split that
    is as close as whole rows allow. The tolerance is the larger of the two: the
    configured one wherever the split is large enough to meet it, and still tight enough
    that a misplaced handful of rows fails (5 of 100 rows: 0.05 > 0.02). A binomial
    tolerance, as for the acceptable share, would let 5 misplaced rows of 100 pass (0.08).
    """
    if rows <= 0:
        return configured
    return max(configured, 2 * largest_group / rows)


def share_tolerance(configured: float, share: float, rows: int) -> float:
    """How far a split's acceptable share may be from its domain's: the larger of the
    configured one and two binomial standard errors, ``2 * sqrt(p (1 - p) / n)``, with
    ``p`` the domain's acceptable share and ``n`` the split's rows. A split of 12 rows
    cannot hold a share of 0.55 closer than 7/12 = 0.583; the configured 0.03 is for
    splits of hundreds of rows."""
    if rows <= 0:
        return configured
    return max(configured, 2 * math.sqrt(share * (1 - share) / rows))


def placed_new(frame: pd.DataFrame) -> pd.Series:
    """1 for a row ``split.new_rows`` places (:func:`corpus.pin.placed_by_policy`), 0 for
    every other row: a column GX's row conditions can compare."""
    return placed_by_policy(frame).astype("int64")


def balance_table(frame: pd.DataFrame, settings: Validate, split: Split) -> pd.DataFrame:
    """One row per check x domain x rows checked x split: observed share, target share,
    deviation, tolerance and ``excess`` (deviation minus tolerance: > 0 fails).

    ``rows_of`` is ``all`` for a domain without pinned rows and ``new`` for the new rows of
    a domain with pinned rows (see the module's docstring; none with ``split.new_rows``
    naming a split, which a row-level check covers). ``split_size`` rows compare a split's
    share of those rows with ``split.ratios`` (:func:`size_tolerance`);
    ``acceptable_share`` rows compare the split's share of acceptable rows with that of
    all those rows (:func:`share_tolerance`; ``observed`` is null for an empty split).
    Domains without rows, and values that are not domains at all (the domain check names
    those), have no rows here.
    """
    max_split = settings.max_split_deviation
    max_share = settings.max_acceptable_share_deviation
    stratified = split.new_rows == STRATIFIED
    rows: list[dict[str, Any]] = []
    label = pd.to_numeric(frame["label"], errors="coerce")
    pinned = frame["pinned_split"].notna()  # validation.run._read adds it when absent
    new = new_rows(frame).to_numpy()
    for domain in schema.DOMAINS:
        in_domain = (frame["domain"] == domain).to_numpy()
        if not in_domain.any():
            continue
        if not pinned[in_domain].any():
            checked, rows_of = in_domain, ALL_ROWS
        elif stratified and (in_domain & new).any():
            checked, rows_of = in_domain & new, NEW_ROWS
        else:  # only the pin's (published) splits, or new rows sent to one split
            continue
        total = int(checked.sum())
        groups = frame.loc[checked, "group"].value_counts()  # null groups: the row check's
        largest = int(groups.max()) if len(groups) else 1
        ratios = [float(r) for r in split.ratios.of(domain)]
        domain_share = float(label[checked].mean())
        for name, ratio in zip(schema.SPLITS, ratios, strict=True):
            part = checked & (frame["split"] == name).to_numpy()
            count = int(part.sum())
            deviation = abs(count / total - ratio)
            tolerance = size_tolerance(max_split, total, largest)
            rows.append(
                _balance_row(
                    SPLIT_SIZE,
                    domain,
                    rows_of,
                    name,
                    count,
                    count / total,
                    ratio,
                    deviation,
                    tolerance,
                )
            )
            share = float(label[part].mean()) if count else None
            rows.append(
                _balance_row(
                    ACCEPTABLE_SHARE,
                    domain,
                    rows_of,
                    name,
                    count,
                    share,
                    domain_share,
                    None if share is None else abs(share - domain_share),
                    share_tolerance(max_share, domain_share, count),
                )
            )
    table = pd.DataFrame(rows, columns=BALANCE_COLUMNS)
    return table.astype(
        {
            "check": "str",
            "domain": "str",
            "rows_of": "str",
            "split": "str",
            "rows": "int64",
            "observed": "float64",
            "target": "float64",
            "deviation": "float64",
            "tolerance": "float64",
            "excess": "float64",
        }
    )


def _balance_row(
    check: str,
    domain: str,
    rows_of: str,
    split: str,
    rows: int,
    observed: float | None,
    target: float,
    deviation: float | None,
    tolerance: float,
) -> dict[str, Any]:
    """One row of the balance table, rounded to 6 places (the report's precision)."""

    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 6)

    return {
        "check": check,
        "domain": domain,
        "rows_of": rows_of,
        "split": split,
        "rows": rows,
        "observed": rounded(observed),
        "target": rounded(target),
        "deviation": rounded(deviation),
        "tolerance": rounded(tolerance),
        "excess": None if deviation is None else round(rounded(deviation) - rounded(tolerance), 6),
    }
