"""``word_ipm``: the lemma frequency (ipm) of every word of a sentence, numbers and
punctuation left out. A list, not a share at one threshold, so that ``filter.min_ipm``
can change without measuring again (the filter derives ``high_freq_share``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from rucola.corpus.measured import MEASURED_ATTRIBUTES, Batch, MeasuredAttribute


@MEASURED_ATTRIBUTES.register
class WordFrequencies(MeasuredAttribute):
    name = "word_ipm"
    fields = (pa.field("word_ipm", pa.list_(pa.float32())),)

    def compute(self, batch: Batch) -> list[pa.Array]:
        offsets = np.empty(len(batch) + 1, np.int32)
        offsets[0] = 0
        values: list[float] = []
        ipms = batch.context.token_ipms
        for i, tokens in enumerate(batch.tokens):
            values.extend(ipms(tokens))
            offsets[i + 1] = len(values)
        flat = pa.array(np.asarray(values, np.float32))
        return [pa.ListArray.from_arrays(pa.array(offsets), flat)]
