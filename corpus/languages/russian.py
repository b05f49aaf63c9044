"""Russian, exactly as RuCoLA was built: razdel tokens (``corpus.tokens``), pymorphy3's
most probable lemma, wordfreq's ``ru`` list or the RNC dictionary, Cyrillic script, and
every perturbation rule (they are written with pymorphy3's Russian grammemes)."""

from __future__ import annotations

from typing import ClassVar, get_args

from rucola.corpus.languages.profile import LanguageProfile
from rucola.registry import LANGUAGES
from rucola.settings.types import PerturbationRule


@LANGUAGES.register
class Russian(LanguageProfile):
    name = "ru"
    title = "Russian"
    wordfreq = "ru"
    script = "Cyrl"
    tokens_named = "razdel tokens"
    perturbation_rules: ClassVar[tuple[str, ...]] = get_args(PerturbationRule)

    def __init__(self) -> None:
        from rucola.corpus.frequency import morph_analyzer
        from rucola.corpus.tokens import tokenize

        self._morph = morph_analyzer()
        self.tokenize = tokenize  # type: ignore[method-assign]  # no wrapper per sentence

    def tokenize(self, sentence: str) -> list[str]:
        from rucola.corpus.tokens import tokenize

        return tokenize(sentence)

    def lemma(self, word: str) -> str:
        return self._morph.parse(word)[0].normal_form
