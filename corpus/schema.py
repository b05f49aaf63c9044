"""The row that travels through the stages, and the names every stage agrees on.

A row only gains columns on its way: extract gives the base columns, measure adds
attributes, filter the derived share, split the ``split`` and ``id`` (and ``review``: the
errata applied to the row).
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

# The domains are the settings' (``rucola.settings.types``: one list, in its order; the
# stages name them from here); the categories of unacceptable rows are params
# (``corpus.categories``, one list per domain).
from rucola.settings import DOMAINS as _DOMAINS
from rucola.settings import IN_DOMAIN as IN_DOMAIN
from rucola.settings import LEARNER as LEARNER
from rucola.settings import OUT_OF_DOMAIN as OUT_OF_DOMAIN
from rucola.settings import UNLABELLED as UNLABELLED

ACCEPTABLE = 1
UNACCEPTABLE = 0
LABEL_NAMES = ["unacceptable", "acceptable"]

DOMAINS: list[str] = list(_DOMAINS)
RUCOLA_DOMAINS = [IN_DOMAIN, OUT_OF_DOMAIN]  # the published corpus and its CSV layout

SPLITS = ["train", "validation", "test"]
SPLIT_INDEX = {name: i for i, name in enumerate(SPLITS)}  # the order files and rows follow

BASE_SCHEMA = pa.schema(
    [
        ("sentence", pa.string()),
        ("label", pa.int64()),
        ("error_type", pa.string()),
        ("domain", pa.string()),
        ("detailed_source", pa.string()),
        ("mark", pa.string()),
        ("group", pa.string()),
        ("origin", pa.string()),
        ("provenance", pa.string()),  # JSON of the source's extra columns
        ("artefacts", pa.string()),  # kinds found, when extract.artefacts is 'keep'
        # A row of a published release keeps its id and split in every later version.
        ("published_id", pa.int64()),
        ("published_split", pa.string()),
        ("corrections", pa.string()),  # what extraction changed in the text, e.g. homoglyphs
    ]
)
BASE_COLUMNS = BASE_SCHEMA.names

# What the later stages add, in the order they add it.
OUT_OF_DOMAIN_FIELDS = [  # annotate corpus: which generator made a labelled candidate
    pa.field("generator", pa.string()),
    pa.field("method", pa.string()),
]
# measure adds the columns of every registered attribute (``corpus.attributes``); the
# split row keeps this one (the length plots and the release read it)
N_TOKENS = pa.field("n_tokens", pa.int64())  # the language profile's tokens
FILTER_FIELDS = [pa.field("high_freq_share", pa.float64())]  # replaces word_ipm
SPLIT_FIELDS = [pa.field("split", pa.string()), pa.field("id", pa.int64())]
# What the split stage records of the errata it applied to a row (``corpus.errata``): a JSON
# list of ``{"field", "old", "new", "reason", "source": "FILE:LINE"}``, null for a row no
# erratum touched. The release's corrections ledger reads it; the release never publishes it.
REVIEW_FIELD = pa.field("review", pa.string())

# What validation and the release rely on in a split row: the base columns every row has
# (the optional ones left out), the token count, the derived share, the split and the id.
SPLIT_ROW_SCHEMA = pa.schema(
    [
        *(
            BASE_SCHEMA.field(name)
            for name in BASE_COLUMNS[: BASE_COLUMNS.index("origin") + 1]  # sentence .. origin
        ),
        N_TOKENS,
        *FILTER_FIELDS,
        *SPLIT_FIELDS,
    ]
)


# The row a release publishes (public parquet and the private gold): an id, then the judgment.
RELEASE_SCHEMA = pa.schema(
    [
        SPLIT_FIELDS[1],
        *(
            BASE_SCHEMA.field(name)
            for name in ["sentence", "label", "error_type", "domain", "detailed_source"]
        ),
        # the soft label of a crowd-labelled row: its share of stage-1 votes for acceptable
        # (from the row's provenance JSON); null for other rows
        pa.field("share_acceptable", pa.float64()),
    ]
)
# One kept vote of a crowd round (``annotate.votes_out``, private: ``worker`` is the raw id).
# ``answer``: stage 1 ``acceptable`` | ``unacceptable``; stage 2 the checked categories
# joined by ``|`` (``syntax``, ``morphology|semantics``) or ``no_violation``.
VOTES_SCHEMA = pa.schema(
    [
        ("task", pa.string()),
        ("stage", pa.int64()),
        ("worker", pa.string()),
        ("answer", pa.string()),
    ]
)
ROW_TASK = "row:"  # a vote's task naming a released row (human evaluation), not a candidate


def row_task(split: str, domain: str | None, row_id: int) -> str:
    """The task of votes on an existing row, ``row:<split>:<domain>:<id>`` (ids are unique
    per split and domain): what ``annotate human-eval`` keeps and the release joins on. A
    row whose domain is hidden from the maintainer (an unlabelled published test row) has
    an empty domain here, however the frame spells the null (None, NaN, NA)."""
    known = isinstance(domain, str) and domain != ""
    return f"{ROW_TASK}{split}:{domain if known else ''}:{int(row_id)}"


# What the hidden test set hides besides the label (null in the public test files).
HIDDEN_COLUMNS = ["error_type", "domain", "detailed_source", "share_acceptable"]


def columns_of_type(row: pa.Schema, predicate: Callable[[pa.DataType], bool]) -> list[str]:
    """The names of ``row``'s columns whose type passes ``predicate`` (``pa.types.is_string``)."""
    return [field.name for field in row if predicate(field.type)]


# Rows a stage sets aside (``rucola.stage.StageRun.set_aside``), one schema for every stage:
# which stage, why, a detail (e.g. the origin of the row a duplicate repeats), the row's
# origin, the raw text as read where there is one, then the row's own columns.
SET_ASIDE_SCHEMA = pa.schema(
    [
        ("stage", pa.string()),
        ("reason", pa.string()),
        ("detail", pa.string()),
        ("origin", pa.string()),
        ("raw", pa.string()),
        *(field for field in BASE_SCHEMA if field.name != "origin"),
    ]
)


def set_aside_schema(row: pa.Schema | None = None) -> pa.Schema:
    """:data:`SET_ASIDE_SCHEMA`, then the columns of a stage's own row that it lacks (the
    filter's measured attributes, a candidate's columns), so no column of a set-aside row
    is lost."""
    if row is None:
        return SET_ASIDE_SCHEMA
    extra = [f for f in row if f.name not in SET_ASIDE_SCHEMA.names]
    return pa.schema([*SET_ASIDE_SCHEMA, *extra])
