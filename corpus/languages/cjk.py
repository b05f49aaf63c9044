"""Japanese and Chinese: written without spaces, cut by dictionary tokenizers.

The tokenizers are the ones wordfreq itself cuts with before it looks a word up
(``wordfreq.tokenize(text, 'ja'|'zh', include_punctuation=True)``: MeCab with the ipadic
dictionary for Japanese, jieba with wordfreq's own word list for Chinese), so every word
counted is a word its list can hold: another segmenter (SudachiPy, fugashi with UniDic)
would cut words the list never saw and read them as rare. Punctuation marks are tokens.
The packages are optional extras (``pip install 'rucola[ja]'``, ``'rucola[zh]'``; jieba and
ipadic ship as source only), checked before the first sentence. A token is its own lemma:
the lists hold surface forms. No perturbation rule acts on them: the word-order and
repetition rules join words with a space.
"""

from __future__ import annotations

from typing import ClassVar

from rucola.corpus.languages.profile import LanguageProfile
from rucola.registry import LANGUAGES


class DictionarySegmented(LanguageProfile):
    """A language cut into words by wordfreq's dictionary tokenizer for it."""

    def __init__(self) -> None:
        from wordfreq import tokenize

        self._tokenize = tokenize

    def tokenize(self, sentence: str) -> list[str]:
        return self._tokenize(sentence, self.wordfreq, include_punctuation=True)


@LANGUAGES.register
class Japanese(DictionarySegmented):
    name = "ja"
    title = "Japanese"
    wordfreq = "ja"
    script = "Jpan"
    extra = "ja"
    extra_modules: ClassVar[tuple[str, ...]] = ("MeCab", "ipadic")


@LANGUAGES.register
class Chinese(DictionarySegmented):
    name = "zh"
    title = "Chinese"
    wordfreq = "zh"
    script = "Hani"
    extra = "zh"
    extra_modules: ClassVar[tuple[str, ...]] = ("jieba",)
