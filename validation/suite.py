"""The expectation suites of the validate stage.

Two tables go through Great Expectations: the split data itself (one row per sentence) and
a small derived table with one row per check x domain x rows checked x split
(``validation.balance``: split sizes against ``split.ratios``, acceptable shares against
the domain's), so that every rule, row-level or distributional, ends up in one GX run and
one report. Each expectation carries a readable name in ``meta["name"]``; results are
matched back to their check by that name.

The suites read typed params: the schema already holds every value to its type and range,
so nothing here checks them again. A bound the schema allows to be null (``filter``'s
``min_tokens`` and ``max_tokens``: "off") is off here too, as in the filter.
"""

from __future__ import annotations

import os

os.environ["GX_ANALYTICS_ENABLED"] = "False"  # before great_expectations is imported

from dataclasses import dataclass  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

import great_expectations as gx  # noqa: E402
import great_expectations.expectations as gxe  # noqa: E402
import pyarrow as pa  # noqa: E402
from great_expectations.expectations.row_conditions import Column  # noqa: E402

from rucola.corpus import schema  # noqa: E402
from rucola.corpus.normalize import unprintable_class  # noqa: E402
from rucola.corpus.pin import STRATIFIED  # noqa: E402
from rucola.validation.balance import ACCEPTABLE_SHARE, BALANCE, SPLIT_SIZE  # noqa: E402
from rucola.validation.properties import (  # noqa: E402
    LEADING_MARK_COLUMN,
    MARKED_PARENTHESIS_COLUMN,
    PROPERTY_COLUMNS,
)

if TYPE_CHECKING:
    from rucola.settings import Categories, Filter, Params, Validate

ROWS = "rows"  # the split data

# The split row's columns by type, from the one schema (``corpus.schema``).
STRING_COLUMNS = schema.columns_of_type(schema.SPLIT_ROW_SCHEMA, pa.types.is_string)
INTEGER_COLUMNS = schema.columns_of_type(schema.SPLIT_ROW_SCHEMA, pa.types.is_integer)
REQUIRED_COLUMNS = schema.SPLIT_ROW_SCHEMA.names
# Not null for labelled rows; an unlabelled published test row (label -1) has neither.
LABELLED_ONLY_COLUMNS = {"domain", "detailed_source"}
NULLABLE_COLUMNS = {"error_type", *LABELLED_ONLY_COLUMNS}
# Derived in validation.run from the split data: the published identity, the pin,
# whether split.new_rows placed the row (1: a new row of a domain with pinned rows), and the
# text checks' row properties, computed by extract's own rules (``validation.properties``).
OPTIONAL_COLUMNS = [
    "published_id",
    "pinned_split",
    "id_scope",
    "sentence_key",
    "placed_new",
    *PROPERTY_COLUMNS,
]

# Columns that name an offending row in the results (GX's unexpected_index_column_names).
ROW_ID_COLUMNS = ["split", "id", "origin", "sentence"]

# Any control or other non-printing character that the extract stage sets aside (NUL, BEL,
# ESC, DEL, C1 controls, bidi embeddings, overrides and isolates, private use, unassigned
# code points), generated from ``corpus.normalize`` for the corpus's language
# (:func:`unprintable_pattern`) so that both stages agree on what is text, plus the
# whitespace controls and line separators (tab, line feed, vertical tab, form feed,
# carriage return, U+2028, U+2029), which normalisation turns into spaces and a text kept
# as read must not bring into a release either. \xHH escapes and literal characters:
# Python re and RE2 alike. The invisible characters normalisation drops (soft hyphen,
# zero-width ...) and the directional marks (LRM, RLM, ALM) are not in it: no fault to
# extract, they stay in a text kept as read (a published release rebuilt as read keeps its
# one soft hyphen), so validate accepts what extract kept; a language's own format
# characters (Persian ZWNJ) are text.
WHITESPACE_CONTROLS = "\t\n\v\f\r\u2028\u2029"


def unprintable_pattern(language: str = "ru") -> str:
    """The class of characters no sentence of a corpus in ``language`` may hold."""
    return unprintable_class(also=WHITESPACE_CONTROLS, language=language)


# Russian's; every profile's is the same unless it declares a format character that
# normalisation would otherwise find unprintable
UNPRINTABLE = unprintable_pattern()
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


def _tokens_check(filter_: Filter) -> list[tuple[str, gxe.Expectation, bool]]:
    """The token-count check of the filter's bounds. A bound that is null is off, as it
    is in the filter; with both off there is no check."""
    low, high = filter_.min_tokens, filter_.max_tokens
    if low is None and high is None:
        return []
    if low is None:
        name = f"n_tokens: at most {high}"
    elif high is None:
        name = f"n_tokens: at least {low}"
    else:
        name = f"n_tokens: between {low} and {high}"
    expectation = gxe.ExpectColumnValuesToBeBetween(
        column="n_tokens", min_value=low, max_value=high
    )
    return [(name, expectation, True)]


def _domain_category_checks(categories: Categories) -> list[tuple[str, gxe.Expectation, bool]]:
    """A category that only some domains' lists hold (``corpus.categories``) is refused
    on every other row (RuCoLA's Hallucination: out of domain only), one check each."""
    checks: list[tuple[str, gxe.Expectation, bool]] = []
    for category in categories.all():
        domains = categories.domains_with(category)
        if len(domains) == len(schema.DOMAINS):
            continue
        where = " or ".join(d.replace("_", " ") for d in domains)
        condition = (
            Column("domain") != domains[0]
            if len(domains) == 1
            else Column("domain").is_not_in(domains)
        )
        expectation = gxe.ExpectColumnValuesToNotBeInSet(
            column="error_type", value_set=[category], row_condition=condition
        )
        checks.append((f"error_type: {category} only {where}", expectation, True))
    return checks


def _category_checks(categories: Categories) -> list[tuple[str, gxe.Expectation, bool]]:
    """What ``error_type`` must be, from ``corpus.categories``: set on an unacceptable row
    only where its domain declares categories (CoLA and ItaCoLA have none), and one of the
    declared ones; with none declared anywhere, null on every row. The names of RuCoLA's
    checks (every domain declares categories) are the ones they always had."""
    declared, types = categories.declared(), categories.all()
    if not types:
        return [
            (
                "error_type: null (corpus.categories declares none)",
                gxe.ExpectColumnValuesToBeNull(column="error_type"),
                True,
            )
        ]
    unacceptable = Column("label") == schema.UNACCEPTABLE
    if len(declared) == len(schema.DOMAINS):
        needed, where = unacceptable, ""
    else:
        needed = unacceptable & Column("domain").is_in(declared)
        where = " in " + ", ".join(d.replace("_", " ") for d in declared)
    return [
        (
            f"error_type: set for unacceptable rows{where}",
            gxe.ExpectColumnValuesToNotBeNull(column="error_type", row_condition=needed),
            True,
        ),
        (
            "error_type: one of " + ", ".join(types),
            gxe.ExpectColumnValuesToBeInSet(column="error_type", value_set=types),
            True,
        ),
        *_domain_category_checks(categories),
    ]


def row_checks(params: Params) -> list[Check]:
    """The expectations on the split data, in report order."""
    settings = params.validate
    categories = params.corpus.categories
    # validate.exempt_published: a published release rebuilt as it is keeps its repeats and
    # artefacts; the text checks then look at the other rows only.
    exempt: dict[str, object] = {}
    exempt_name = ""
    if settings.exempt_published:
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
        *_category_checks(categories),
    ]
    checks += _tokens_check(params.filter)
    checks += [
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
            gxe.ExpectColumnValuesToNotMatchRegex(
                column="sentence", regex=unprintable_pattern(params.corpus.language)
            ),
            True,
        ),
        # The text checks read the row properties extract's own rules compute
        # (``validation.properties``): '*Иван пришла.', '*/??Lesið ...' start with a
        # mark; '(*не убивал)', '(в/*на)', '(に/で)' are a marked or slashed parenthesis,
        # '(как обычно)', '(почему?)' or a fraction '(1/5%)' are not.
        (
            "sentence: no judgment mark at the start" + exempt_name,
            gxe.ExpectColumnValuesToBeNull(column=LEADING_MARK_COLUMN, **exempt),
            True,
        ),
        (
            # a row extract kept flagged (extract.artefacts: keep) is not refused here
            "sentence: no marked or slashed parenthesis" + exempt_name,
            gxe.ExpectColumnValuesToBeNull(column=MARKED_PARENTHESIS_COLUMN, **exempt),
            True,
        ),
    ]
    policy = params.split.new_rows
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


def balance_checks(settings: Validate) -> list[Check]:
    """The expectations on ``validation.balance.balance_table``, in report order."""
    max_split = settings.max_split_deviation
    max_share = settings.max_acceptable_share_deviation
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


def all_checks(params: Params) -> list[Check]:
    """Every check of the validate stage, in report order (the split data's, then the
    balance table's)."""
    checks = row_checks(params) + balance_checks(params.validate)
    names = [c.name for c in checks]
    if len(set(names)) != len(names):  # results are matched back by name
        raise AssertionError(f"duplicate check names: {names}")
    return checks


def build_suite(name: str, checks: list[Check]) -> gx.ExpectationSuite:
    return gx.ExpectationSuite(name=name, expectations=[c.expectation for c in checks])
