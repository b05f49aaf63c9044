"""The measure stage: attributes computed once per sentence, thresholds applied later.

Following dolma, the expensive part (tokenising, lemmatising, looking up frequencies) runs
here, and ``filter`` only compares numbers; so a changed threshold never repeats this work.
We keep the ipm of every word's lemma rather than a share at one threshold, so even
``filter.min_ipm`` can change without measuring again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import razdel
from rich.progress import track

from corpus.frequency import Frequencies, load_frequencies, morph_analyzer
from rucola.errors import RucolaError
from rucola.io import write_parquet


def is_word(token: str) -> bool:
    """Word tokens carry a letter; numbers and punctuation do not count for frequency."""
    return any(ch.isalpha() for ch in token)


class SentenceMeter:
    """Token count and per-word lemma frequencies, with lemma look-ups cached."""

    def __init__(self, frequencies: Frequencies) -> None:
        self.frequencies = frequencies
        self.morph = morph_analyzer()
        self._ipm: dict[str, float] = {}

    def word_ipm(self, word: str) -> float:
        key = word.lower()
        value = self._ipm.get(key)
        if value is None:
            lemma = self.morph.parse(key)[0].normal_form
            value = self.frequencies.ipm(lemma)
            self._ipm[key] = value
        return value

    def measure(self, sentence: str) -> tuple[int, list[float]]:
        tokens = [t.text for t in razdel.tokenize(sentence)]
        return len(tokens), [self.word_ipm(t) for t in tokens if is_word(t)]


def measure(
    input_path: str | Path, out: str | Path, frequency: dict[str, Any], progress: bool = True
) -> dict[str, Any]:
    input_path = Path(input_path)
    if not input_path.exists():
        raise RucolaError("input not found; run the previous stage first", input_path)
    table = pq.read_table(input_path)
    if "sentence" not in table.column_names:
        raise RucolaError("no 'sentence' column", input_path)
    meter = SentenceMeter(load_frequencies(frequency))
    sentences = table.column("sentence").to_pylist()
    counts: list[int] = []
    ipms: list[list[float]] = []
    for sentence in track(sentences, description="measuring", disable=not progress, transient=True):
        n, values = meter.measure(sentence)
        counts.append(n)
        ipms.append(values)
    for name in ("n_tokens", "word_ipm"):
        if name in table.column_names:
            table = table.drop_columns(name)
    table = table.append_column("n_tokens", pa.array(counts, pa.int64()))
    table = table.append_column("word_ipm", pa.array(ipms, pa.list_(pa.float32())))
    write_parquet(table, out)
    return {
        "rows": len(sentences),
        "frequency_source": meter.frequencies.name,
        "distinct_words": len(meter._ipm),
    }
