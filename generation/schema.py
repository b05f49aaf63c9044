"""The candidate row: what every generator writes, whatever its method (the methods are
the params schema's ``GenerationMethod``)."""

from __future__ import annotations

import pyarrow as pa

CANDIDATE_SCHEMA = pa.schema(
    [
        ("sentence", pa.string()),
        ("detailed_source", pa.string()),
        ("generator", pa.string()),  # model id, or rule name for perturbations
        ("method", pa.string()),
        ("source_sentence", pa.string()),
        ("seed", pa.int64()),
        ("candidate_id", pa.string()),  # stable_hash(sentence, generator, source_sentence)
    ]
)
