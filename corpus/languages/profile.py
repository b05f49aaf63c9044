"""What a language profile is: the libraries that read one language's sentences.

A profile bundles what ``measure`` (and the stages that count tokens or repair letters)
need to know about a language: how a sentence is cut into tokens (punctuation marks are
tokens, so ``filter.min_tokens``/``max_tokens`` mean the same in every language), how a
word becomes the lemma looked up in the frequency list, which wordfreq list serves it,
which script its words are written in (``corpus.homoglyphs`` repairs toward it) and which
perturbation rules (``generation.perturb``) can act on it. Profiles register under their
ISO 639-1 code (``LANGUAGES``); ``corpus.language`` picks one, and :func:`profile`
gives the one instance per process, so caches and loaded dictionaries are shared.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import ClassVar

from rucola.errors import RucolaError
from rucola.registry import LANGUAGES


class LanguageProfile:
    """One language: subclass, set the class attributes, register with
    ``@LANGUAGES.register``.

    ``name``: the ISO 639-1 code (``corpus.language``); ``title``: the language in English;
    ``wordfreq``: the wordfreq code of its list (None: none, only a user's own list);
    ``script``: the ISO 15924 code of the script its words are written in (``Cyrl``,
    ``Latn``, ``Jpan``...); ``perturbation_rules``: the rules of ``generation.perturb``
    that act on it (their tests show them producing sensible candidates); ``extra``: the
    pip extra of rucola its tokenizer needs (None: the base install has it);
    ``format_characters``: the invisible format characters (Unicode Cf) that spell its
    words, which ``corpus.normalize`` keeps rather than drops (Persian ``می‌خواهم`` is
    another word without its zero-width non-joiner; Hindi ``क्‍ष`` another glyph without
    its joiner). Read from the class, never an instance: normalisation must not load a
    tokenizer.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    wordfreq: ClassVar[str | None]
    script: ClassVar[str]
    perturbation_rules: ClassVar[tuple[str, ...]] = ()
    extra: ClassVar[str | None] = None
    format_characters: ClassVar[frozenset[str]] = frozenset()
    # the modules the extra installs: checked before the first sentence, one line if absent
    extra_modules: ClassVar[tuple[str, ...]] = ()
    # what the length plots call its tokens
    tokens_named: ClassVar[str] = "tokens"

    def tokenize(self, sentence: str) -> list[str]:
        """The sentence's tokens, punctuation marks included."""
        raise NotImplementedError

    def lemma(self, word: str) -> str:
        """The form of ``word`` (lower case) that the frequency list holds."""
        return word

    def check_installed(self) -> None:
        """One line naming the pip extra when a module it installs is missing."""
        for module in self.extra_modules:
            try:
                importlib.import_module(module)
            except ImportError:
                raise RucolaError(
                    f"corpus.language {self.name!r} ({self.title}) needs the {module!r} "
                    f"package: pip install 'rucola[{self.extra}]'"
                ) from None


@cache
def profile(code: str) -> LanguageProfile:
    """The profile registered as ``code`` (one instance per process); an unknown code is
    one line listing the known ones. Its extra is checked here, before any work."""
    found = LANGUAGES[code]()
    found.check_installed()
    return found
