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
    ]
)
