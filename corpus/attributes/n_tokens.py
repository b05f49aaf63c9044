"""``n_tokens``: a sentence's length in its language profile's tokens (razdel's for
Russian): the length filter's attribute, and the length plots'."""

from __future__ import annotations

import pyarrow as pa

from rucola.corpus import schema
from rucola.corpus.measured import MEASURED_ATTRIBUTES, Batch, MeasuredAttribute


@MEASURED_ATTRIBUTES.register
class TokenCount(MeasuredAttribute):
    name = "n_tokens"
    fields = (schema.N_TOKENS,)

    def compute(self, batch: Batch) -> list[pa.Array]:
        return [pa.array([len(tokens) for tokens in batch.tokens], pa.int64())]
