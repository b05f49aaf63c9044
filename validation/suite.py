"""The expectation suites of the validate stage, and the derived table they check.

Two tables go through Great Expectations: the split data itself (one row per sentence) and
a small derived table with one row per check x domain x rows checked x split (split sizes
against ``split.ratios``, acceptable shares against the domain's), so that every rule,
row-level or distributional, ends up in one GX run and one report. Each expectation
carries a readable name in ``meta["name"]``; results are matched back to their check by
that name.

Which rows are balanced: a domain without pinned rows as a whole; in a domain with pinned
rows (a published release's) the new rows only (``corpus.pin.new_rows``), which the split
stage splits among themselves, so their own shares must match ``split.ratios``; with
``split.new_rows`` naming one split, a row-level check instead wants every new row of such
a domain there. The pinned rows' splits are the pinned release's (the pinned-split check
covers them).

Tolerances scale with the split's size (:func:`size_tolerance`,
:func:`share_tolerance`): a configured 0.02 cannot be met by a split of 12 rows.
"""

from __future__ import annotations

import os

os.environ["GX_ANALYTICS_ENABLED"] = "False"  # before great_expectations is imported

import math  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

import great_expectations as gx  # noqa: E402
import great_expectations.expectations as gxe  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
from great_expectations.expectations.row_conditions import Column  # noqa: E402

from rucola.corpus import schema  # noqa: E402
from rucola.corpus.normalize import unprintable_class  # noqa: E402
from rucola.corpus.pin import (  # noqa: E402
    STRATIFIED,
    new_rows,
    new_rows_policy,
    placed_by_policy,
)
from rucola.errors import RucolaError  # noqa: E402
from rucola.settings import split_ratios as check_split_ratios  # noqa: E402

ROWS = "rows"  # the split data
BALANCE = "balance"  # the derived table of split sizes and label shares

# The split row's columns by type, from the one schema (``corpus.schema``).
STRING_COLUMNS = schema.columns_of_type(schema.SPLIT_ROW_SCHEMA, pa.types.is_string)
INTEGER_COLUMNS = schema.columns_of_type(schema.SPLIT_ROW_SCHEMA, pa.types.is_integer)
FLOAT_COLUMNS = schema.columns_of_type(schema.SPLIT_ROW_SCHEMA, pa.types.is_floating)
REQUIRED_COLUMNS = schema.SPLIT_ROW_SCHEMA.names
# Not null for labelled rows; an unlabelled published test row (label -1) has neither.
LABELLED_ONLY_COLUMNS = {"domain", "detailed_source"}
NULLABLE_COLUMNS = {"error_type", *LABELLED_ONLY_COLUMNS}
# Derived in validation.run from the split data: the published identity, the pin, and
# whether split.new_rows placed the row (1: a new row of a domain with pinned rows).
OPTIONAL_COLUMNS = ["published_id", "pinned_split", "id_scope", "sentence_key", "placed_new"]

# Columns that name an offending row in the results (GX's unexpected_index_column_names).
ROW_ID_COLUMNS = ["split", "id", "origin", "sentence"]
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
HALLUCINATION = "Hallucination"

# Whitespace as literal characters, so the pattern means the same to Python's ``re`` and to
# RE2 (pyarrow-backed strings), whose ``\s`` is ASCII only.
_SPACE = "[\\s\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]"
_MARK = "[*?#%]"
# A judgment mark in front of the sentence: '*Иван пришла.', ' ?Иван пришла.'.
LEADING_MARK = f"^{_SPACE}*{_MARK}"
# A parenthesis that opens with a judgment mark, '(*не убивал)', '(?на)', '( *X)', or holds
# slashed alternatives, '(X/Y)', '(X/*Y)': leftovers of the source's notation. An ordinary
# parenthetical, '(как обычно)', or a question in parentheses, '(почему?)', is fine.
# Alternatives are short words on both sides of the slash ('(в/на)', '(X / *Y)'); a remark
# with "A / B" in prose or a fraction '(1/5%)' is not one.
_LETTER = "[A-Za-zА-яЁё]"
_WORD = "[^()\\s]"
MARKED_PARENTHESIS = (
    f"\\({_SPACE}*{_MARK}"
    f"|\\((?:{_WORD}+\\s+){{0,2}}{_WORD}*{_LETTER}\\s*/\\s*{_MARK}?\\s*{_LETTER}{_WORD}*"
    f"(?:\\s+{_WORD}+){{0,2}}\\)"
)

# Any control or other non-printing character that the extract stage sets aside (NUL, BEL,
# ESC, DEL, C1 controls, bidi overrides, private use, unassigned code points), generated
# from ``corpus.normalize`` so that both stages agree on what is text, plus the whitespace
# controls and line separators (tab, line feed, vertical tab, form feed, carriage return,
# U+2028, U+2029), which normalisation turns into spaces and a text kept as read must not
# bring into a release either. \xHH escapes and literal characters: Python re and RE2 alike.
# The invisible characters normalisation drops (soft hyphen, zero-width ...) are not in it:
# a published release rebuilt as read keeps its one soft hyphen.
UNPRINTABLE = unprintable_class(also="\t\n\v\f\r\u2028\u2029")
UNPRINTABLE_NAME = (
    "sentence: no control, line-break or non-printing character (NUL, tab, bidi override ...)"
)


@dataclass(frozen=True)
class Check:
    """One expectation and the table it runs on; ``row_level`` checks name offending rows."""

    name: str
    table: str
    expectation: gxe.Expectation
    row_level: bool


def _named(expectation: gxe.Expectation, name: str) -> gxe.Expectation:
    """Tag with the check's name; the Data Docs show it in place of GX's own sentence."""
    expectation.meta = {"name": name}
    expectation.description = name
    return expectation


def _section(params: dict[str, Any], name: str) -> dict[str, Any]:
    section = params.get(name)
    if not isinstance(section, dict):
        raise RucolaError(f"params have no '{name}' section", "params.yaml")
    return section


def _number(section: dict[str, Any], key: str, where: str) -> float:
    value = section.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RucolaError(f"{where}.{key} must be a number, not {value!r}", "params.yaml")
    return value


def error_types(params: dict[str, Any]) -> list[str]:
    types = _section(params, "validate").get("error_types")
    if not isinstance(types, list) or not types or not all(isinstance(t, str) for t in types):
        raise RucolaError(
            f"validate.error_types must be a non-empty list of names, not {types!r}",
            "params.yaml",
        )
    return list(types)


def split_ratios(params: dict[str, Any], domain: str) -> list[float]:
    ratios = _section(params, "split").get("ratios", {}).get(domain)
    if ratios is None:
        raise RucolaError(f"split.ratios has no entry for domain '{domain}'", "params.yaml")
    return check_split_ratios(ratios, f"split.ratios.{domain}")


def row_checks(params: dict[str, Any]) -> list[Check]:
    """The expectations on the split data, in report order."""
    flt = _section(params, "filter")
    min_tokens = _number(flt, "min_tokens", "filter")
    max_tokens = _number(flt, "max_tokens", "filter")
    types = error_types(params)
    # validate.exempt_published: a published release rebuilt as it is keeps its repeats and
    # artefacts; the text checks then look at the other rows only.
    exempt: dict[str, Any] = {}
    exempt_name = ""
    if _section(params, "validate").get("exempt_published", False):
        exempt = {"row_condition": Column("published_id").is_null()}
        exempt_name = " (rows of a published release exempt)"
    checks: list[tuple[str, gxe.Expectation, bool]] = [
        ("table: has rows", gxe.ExpectTableRowCountToBeBetween(min_value=1), False),
        (
            "table: required columns present",
            gxe.ExpectTableColumnsToMatchSet(column_set=REQUIRED_COLUMNS, exact_match=False),
            False,
        ),
    ]
    for column in REQUIRED_COLUMNS:
        if column in STRING_COLUMNS:
            type_ = "str"
        elif column in INTEGER_COLUMNS:
            type_ = "int64"
        else:
            type_ = "float64"
        checks.append(
            (
                f"{column}: of type {type_}",
                gxe.ExpectColumnValuesToBeOfType(column=column, type_=type_),
                False,
            )
        )
    for column in REQUIRED_COLUMNS:
        if column not in NULLABLE_COLUMNS:
            checks.append(
                (f"{column}: not null", gxe.ExpectColumnValuesToNotBeNull(column=column), True)
            )
    for column in sorted(LABELLED_ONLY_COLUMNS):
        checks.append(
            (
                f"{column}: not null for labelled rows",
                gxe.ExpectColumnValuesToNotBeNull(
                    column=column, row_condition=Column("label") != schema.UNLABELLED
                ),
                True,
            )
        )
    checks += [
        (
            "label: 0 or 1 (-1: a published test row whose gold we do not hold)",
            gxe.ExpectColumnValuesToBeInSet(
                column="label",
                value_set=[schema.UNACCEPTABLE, schema.ACCEPTABLE, schema.UNLABELLED],
            ),
            True,
        ),
        (
            "label: 0 or 1 outside test",
            gxe.ExpectColumnValuesToBeInSet(
                column="label",
                value_set=[schema.UNACCEPTABLE, schema.ACCEPTABLE],
                row_condition=Column("split") != "test",
            ),
            True,
        ),
        (
            "error_type: null for unlabelled rows",
            gxe.ExpectColumnValuesToBeNull(
                column="error_type", row_condition=Column("label") == schema.UNLABELLED
            ),
            True,
        ),
        (
            "split: pinned rows keep the split of their pin or published release",
            gxe.ExpectColumnPairValuesToBeEqual(
                column_A="split", column_B="pinned_split", ignore_row_if="either_value_is_missing"
            ),
            True,
        ),
        (
            "split: " + ", ".join(schema.SPLITS),
            gxe.ExpectColumnValuesToBeInSet(column="split", value_set=list(schema.SPLITS)),
            True,
        ),
        (
            "domain: " + ", ".join(schema.DOMAINS),
            gxe.ExpectColumnValuesToBeInSet(column="domain", value_set=list(schema.DOMAINS)),
            True,
        ),
        (
            "error_type: null for acceptable rows",
            gxe.ExpectColumnValuesToBeNull(
                column="error_type", row_condition=Column("label") == schema.ACCEPTABLE
            ),
            True,
        ),
        (
            "error_type: set for unacceptable rows",
            gxe.ExpectColumnValuesToNotBeNull(
                column="error_type", row_condition=Column("label") == schema.UNACCEPTABLE
            ),
            True,
        ),
        (
            "error_type: one of " + ", ".join(types),
            gxe.ExpectColumnValuesToBeInSet(column="error_type", value_set=types),
            True,
        ),
        (
            f"error_type: {HALLUCINATION} only out of domain",
            gxe.ExpectColumnValuesToNotBeInSet(
                column="error_type",
                value_set=[HALLUCINATION],
                row_condition=Column("domain") != schema.OUT_OF_DOMAIN,
            ),
            True,
        ),
        (
            f"n_tokens: between {min_tokens} and {max_tokens}",
            gxe.ExpectColumnValuesToBeBetween(
                column="n_tokens", min_value=min_tokens, max_value=max_tokens
            ),
            True,
        ),
        (
            "sentence: unique across all splits" + exempt_name,
            gxe.ExpectColumnValuesToBeUnique(column="sentence_key", **exempt),
            True,
        ),
        (
            "id: unique per split (and, outside test, per domain, as published)",
            gxe.ExpectCompoundColumnsToBeUnique(column_list=["split", "id_scope", "id"]),
            True,
        ),
        (
            # never exempt: a published row is no exception to text being text
            UNPRINTABLE_NAME,
            gxe.ExpectColumnValuesToNotMatchRegex(column="sentence", regex=UNPRINTABLE),
            True,
        ),
        (
            "sentence: no judgment mark at the start" + exempt_name,
            gxe.ExpectColumnValuesToNotMatchRegex(column="sentence", regex=LEADING_MARK, **exempt),
            True,
        ),
        (
            "sentence: no marked or slashed parenthesis" + exempt_name,
            gxe.ExpectColumnValuesToNotMatchRegex(
                column="sentence", regex=MARKED_PARENTHESIS, **exempt
            ),
            True,
        ),
    ]
    policy = new_rows_policy(_section(params, "split"))
    if policy != STRATIFIED:
        checks.append(
            (
                f"new rows: all in {policy} (split.new_rows), where the domain has pinned rows",
                gxe.ExpectColumnValuesToBeInSet(
                    column="split", value_set=[policy], row_condition=Column("placed_new") == 1
                ),
                True,
            )
        )
    return [Check(name, ROWS, _named(e, name), row_level) for name, e, row_level in checks]


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


def balance_checks(params: dict[str, Any]) -> list[Check]:
    """The expectations on :func:`balance_table`, in report order."""
    validate = _section(params, "validate")
    max_split = _number(validate, "max_split_deviation", "validate")
    max_share = _number(validate, "max_acceptable_share_deviation", "validate")
    checks = [
        (
            f"split sizes: within max({max_split}, 2 groups / rows) of split.ratios",
            gxe.ExpectColumnValuesToBeBetween(
                column="excess", max_value=0, row_condition=Column("check") == SPLIT_SIZE
            ),
        ),
        (
            "split sizes: empty where split.ratios is 0",
            gxe.ExpectColumnValuesToBeBetween(
                column="rows",
                max_value=0,
                row_condition=(Column("check") == SPLIT_SIZE) & (Column("target") == 0),
            ),
        ),
        (
            f"acceptable share: within max({max_share}, 2 standard errors) of the domain's",
            gxe.ExpectColumnValuesToBeBetween(
                column="excess",
                max_value=0,
                row_condition=(Column("check") == ACCEPTABLE_SHARE) & (Column("rows") > 0),
            ),
        ),
    ]
    return [Check(name, BALANCE, _named(e, name), True) for name, e in checks]


def all_checks(params: dict[str, Any]) -> list[Check]:
    checks = row_checks(params) + balance_checks(params)
    names = [c.name for c in checks]
    if len(set(names)) != len(names):  # results are matched back by name
        raise AssertionError(f"duplicate check names: {names}")
    return checks


def build_suite(name: str, checks: list[Check]) -> gx.ExpectationSuite:
    return gx.ExpectationSuite(name=name, expectations=[c.expectation for c in checks])


def placed_new(frame: pd.DataFrame) -> pd.Series:
    """1 for a row ``split.new_rows`` places (:func:`corpus.pin.placed_by_policy`), 0 for
    every other row: a column GX's row conditions can compare."""
    return placed_by_policy(frame).astype("int64")


def balance_table(frame: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
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
    validate = _section(params, "validate")
    max_split = _number(validate, "max_split_deviation", "validate")
    max_share = _number(validate, "max_acceptable_share_deviation", "validate")
    stratified = new_rows_policy(_section(params, "split")) == STRATIFIED
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
        ratios = split_ratios(params, domain)
        domain_share = float(label[checked].mean())
        for split, ratio in zip(schema.SPLITS, ratios, strict=True):
            part = checked & (frame["split"] == split).to_numpy()
            count = int(part.sum())
            deviation = abs(count / total - ratio)
            tolerance = size_tolerance(max_split, total, largest)
            rows.append(
                _balance_row(
                    SPLIT_SIZE,
                    domain,
                    rows_of,
                    split,
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
                    split,
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
