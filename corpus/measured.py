"""What a measured attribute is, what the attributes of a run share, and their registry.

``measure`` computes every registered attribute once per sentence (the slow part:
tokenising, lemmatising, frequency look-ups); ``filter`` and ``screen`` only compare the
columns with thresholds, and a rule names the attributes it reads (``FilterRule.needs``).
An attribute is a :class:`MeasuredAttribute` in a module of ``corpus.attributes``,
registered under its ``name`` (``@MEASURED_ATTRIBUTES.register``), with the columns it
writes (``fields``, their Arrow types). It is given the sentences of one record batch
(:class:`Batch`): their tokens are computed once, the first time an attribute asks, and
the look-ups that are costly (the morphological analyser, the frequency list) sit in the
:class:`MeasureContext`, built once per run before the workers fork and cached per token,
so no attribute repeats another's work.

In a module of its own, so that the attributes and the stages that read them import it
without importing each other.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import pyarrow as pa

from rucola.corpus.frequency import Frequencies
from rucola.corpus.languages.profile import LanguageProfile, profile
from rucola.registry import Registry

_WORD = re.compile(r"[^\W\d_]")


class MeasureContext:
    """What the attributes of one run share: the frequency list and the language profile
    (``corpus.language``: its tokenizer and lemmatizer), with a cache keyed by token.

    The cache maps a token as written to its lemma's ipm (None for numbers and
    punctuation), so each distinct token is analysed once per process; on a million
    sentences almost every token is a cache hit and tokenising is the cost.
    """

    def __init__(self, frequencies: Frequencies, language: LanguageProfile | None = None) -> None:
        self.frequencies = frequencies
        self.language = profile("ru") if language is None else language
        self.tokenize = self.language.tokenize
        self._lemma = self.language.lemma
        self._ipm: dict[str, float] = {}
        self._token: dict[str, float | None] = {}

    def word_ipm(self, word: str) -> float:
        """The ipm of ``word``'s most likely lemma (0 when the list lacks it)."""
        key = word.lower()
        value = self._ipm.get(key)
        if value is None:
            lemma = self._lemma(key)
            value = self.frequencies.ipm(lemma)
            self._ipm[key] = value
        return value

    def token_ipms(self, tokens: Sequence[str]) -> list[float]:
        """The lemma ipm of each word among ``tokens`` (numbers and punctuation skipped)."""
        cache = self._token
        values: list[float] = []
        for text in tokens:
            if text in cache:
                value = cache[text]
            else:
                value = cache[text] = self.word_ipm(text) if _WORD.search(text) else None
            if value is not None:
                values.append(value)
        return values


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence as a :class:`SentenceAttribute` sees it."""

    text: str
    tokens: list[str]  # the language profile's tokens, computed once per sentence
    context: MeasureContext


class Batch:
    """The sentences of one record batch, in file order, as every attribute sees them."""

    def __init__(self, sentences: list[str], context: MeasureContext) -> None:
        self.sentences = sentences
        self.context = context

    def __len__(self) -> int:
        return len(self.sentences)

    @cached_property
    def tokens(self) -> list[list[str]]:
        """Each sentence's tokens, computed once for every attribute that reads them."""
        tokenize = self.context.tokenize
        return [tokenize(sentence) for sentence in self.sentences]

    def __iter__(self) -> Iterator[Sentence]:
        return (
            Sentence(text, tokens, self.context)
            for text, tokens in zip(self.sentences, self.tokens, strict=True)
        )


class MeasuredAttribute:
    """One attribute ``measure`` computes for every sentence and ``filter`` reads.

    ``name``: what a rule names in its ``needs``; ``fields``: the columns it writes, each
    with its Arrow type (their names are no base column's and no other attribute's, which
    the contract tests check). :meth:`compute` returns one array per field, a value per
    sentence of the batch in its order; it runs in a worker process, so it must depend on
    nothing but the batch (and the context's caches).
    """

    name: ClassVar[str]
    fields: ClassVar[tuple[pa.Field, ...]]

    def compute(self, batch: Batch) -> list[pa.Array]:
        raise NotImplementedError


class SentenceAttribute(MeasuredAttribute):
    """An attribute of one column computed sentence by sentence: write :meth:`value`."""

    def value(self, sentence: Sentence) -> Any:
        raise NotImplementedError

    def compute(self, batch: Batch) -> list[pa.Array]:
        return [pa.array([self.value(sentence) for sentence in batch], self.fields[0].type)]


# Params name no attribute, so the registry lives with them rather than in rucola.registry.
MEASURED_ATTRIBUTES: Registry[type[MeasuredAttribute]] = Registry(
    "measured attribute", home="rucola.corpus.attributes"
)


def attribute_fields(attributes: Sequence[type[MeasuredAttribute]]) -> list[pa.Field]:
    """The columns ``attributes`` write, in their order."""
    return [field for attribute in attributes for field in attribute.fields]
