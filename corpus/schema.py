"""The row that travels through the stages, and the names every stage agrees on.

A row only gains columns on its way: extract gives the base columns, measure adds
attributes, filter the derived share, split the ``split`` and ``id``.
"""

from __future__ import annotations

import pyarrow as pa

ACCEPTABLE = 1
UNACCEPTABLE = 0
LABEL_NAMES = ["unacceptable", "acceptable"]

IN_DOMAIN = "in_domain"
OUT_OF_DOMAIN = "out_of_domain"
DOMAINS = [IN_DOMAIN, OUT_OF_DOMAIN]

SPLITS = ["train", "validation", "test"]
SPLIT_INDEX = {name: i for i, name in enumerate(SPLITS)}  # the order files and rows follow
UNLABELLED = -1  # a published test row whose gold the maintainer does not hold

IN_DOMAIN_ERROR_TYPES = ["Morphology", "Syntax", "Semantics"]
ALL_ERROR_TYPES = [*IN_DOMAIN_ERROR_TYPES, "Hallucination"]

BASE_COLUMNS = [
    "sentence",
    "label",
    "error_type",
    "domain",
    "detailed_source",
    "mark",
    "group",
    "origin",
    "provenance",
    "artefacts",
    "published_id",
    "published_split",
    "corrections",
]

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

REJECTED_SCHEMA = pa.schema(
    [
        ("origin", pa.string()),
        ("raw", pa.string()),
        ("reason", pa.string()),
        ("sentence", pa.string()),
        ("detailed_source", pa.string()),
        ("detail", pa.string()),  # e.g. the origin of the row a duplicate repeats
        ("published_id", pa.int64()),  # set aside rows of a published release: their id
        ("published_split", pa.string()),
        ("domain", pa.string()),
    ]
)
