"""Rule-based perturbations: ungrammatical candidates with no model, on the CPU.

Each rule takes a Russian sentence and, when it finds a place to act, returns the sentence
with one violation: broken agreement in gender, number or case, wrong government after a
preposition or a transitive verb, two neighbouring words swapped, a function word or verb
dropped, a word repeated. pymorphy3 analyses and inflects the words. A rule records its
name as the candidate's generator, so annotators' verdicts can be traced back per rule.
Choices are seeded by the sentence and the rule, so a rerun gives the same candidates.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, get_args

import razdel

from rucola.corpus.frequency import morph_analyzer
from rucola.corpus.normalize import normalize_text, tidy_after_edit
from rucola.io import stable_hash
from rucola.settings import PerturbationRule


@dataclass
class Token:
    text: str
    start: int
    stop: int

    @property
    def is_word(self) -> bool:
        return any(ch.isalpha() for ch in self.text)


@lru_cache(maxsize=200_000)
def _parse(word: str) -> Any:
    """The most probable analysis; cached because the same words recur across sentences."""
    return morph_analyzer().parse(word)[0]


def _tokens(sentence: str) -> list[Token]:
    return [Token(t.text, t.start, t.stop) for t in razdel.tokenize(sentence)]


def _match_case(new: str, old: str) -> str:
    if old.isupper() and len(old) > 1:
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _replace(sentence: str, tokens: list[Token], index: int, new: str) -> str:
    token = tokens[index]
    return sentence[: token.start] + _match_case(new, token.text) + sentence[token.stop :]


def _inflect(word: str, grammemes: set[str]) -> str | None:
    parsed = _parse(word.lower())
    form = parsed.inflect(grammemes)
    if form is None or form.word == word.lower():
        return None
    return form.word


def _is_proper(word: str) -> bool:
    tag = _parse(word.lower()).tag
    return any(g in tag for g in ("Name", "Surn", "Patr", "Geox", "Orgn"))


def _agreeing_pairs(tokens: list[Token]) -> list[tuple[int, int]]:
    """(modifier, noun) index pairs of an adjective or participle next to its noun."""
    pairs = []
    for i, token in enumerate(tokens):
        if not token.is_word:
            continue
        tag = _parse(token.text.lower()).tag
        if tag.POS not in {"ADJF", "PRTF"}:
            continue
        for j in (i + 1, i - 1):
            if 0 <= j < len(tokens) and tokens[j].is_word:
                noun = _parse(tokens[j].text.lower()).tag
                if noun.POS == "NOUN" and noun.case == tag.case and noun.number == tag.number:
                    pairs.append((i, j))
                    break
    return pairs


OTHER_GENDER = {"masc": "femn", "femn": "neut", "neut": "masc"}
OTHER_CASE = {"nomn": "datv", "gent": "nomn", "datv": "nomn", "accs": "datv", "ablt": "nomn"}
OTHER_CASE_DEFAULT = "nomn"


def gender_agreement(sentence: str, tokens: list[Token], rng: random.Random) -> str | None:
    """An adjective, participle or past-tense verb in the wrong gender."""
    options = []
    for i, _ in _agreeing_pairs(tokens):
        tag = _parse(tokens[i].text.lower()).tag
        if tag.number == "sing" and tag.gender in OTHER_GENDER:
            options.append((i, tag.gender))
    for i, token in enumerate(tokens):
        if token.is_word:
            tag = _parse(token.text.lower()).tag
            if tag.POS == "VERB" and tag.tense == "past" and tag.gender in OTHER_GENDER:
                options.append((i, tag.gender))
    rng.shuffle(options)
    for i, gender in options:
        new = _inflect(tokens[i].text, {OTHER_GENDER[gender]})
        if new:
            return _replace(sentence, tokens, i, new)
    return None


def number_agreement(sentence: str, tokens: list[Token], rng: random.Random) -> str | None:
    """A finite verb in the wrong number."""
    options = [
        i
        for i, t in enumerate(tokens)
        if t.is_word
        and _parse(t.text.lower()).tag.POS == "VERB"
        and _parse(t.text.lower()).tag.mood == "indc"
        and _parse(t.text.lower()).tag.number
    ]
    rng.shuffle(options)
    for i in options:
        tag = _parse(tokens[i].text.lower()).tag
        target = {"plur"} if tag.number == "sing" else {"sing"}
        if tag.number == "plur" and tag.tense == "past":
            target.add("masc")
        new = _inflect(tokens[i].text, target)
        if new:
            return _replace(sentence, tokens, i, new)
    return None


def case_agreement(sentence: str, tokens: list[Token], rng: random.Random) -> str | None:
    """An adjective or participle in a case its noun does not have."""
    pairs = _agreeing_pairs(tokens)
    rng.shuffle(pairs)
    for i, _ in pairs:
        case = _parse(tokens[i].text.lower()).tag.case
        new = _inflect(tokens[i].text, {OTHER_CASE.get(case, OTHER_CASE_DEFAULT)})
        if new:
            return _replace(sentence, tokens, i, new)
    return None


def government(sentence: str, tokens: list[Token], rng: random.Random) -> str | None:
    """The noun after a preposition or a transitive verb in a case it does not govern."""
    options = []
    for i in range(len(tokens) - 1):
        head, dep = tokens[i], tokens[i + 1]
        if not (head.is_word and dep.is_word):
            continue
        head_tag = _parse(head.text.lower()).tag
        dep_tag = _parse(dep.text.lower()).tag
        if dep_tag.POS not in {"NOUN", "NPRO"} or _is_proper(dep.text):
            continue
        if head_tag.POS == "PREP" or (
            head_tag.POS == "VERB" and "tran" in head_tag and dep_tag.case == "accs"
        ):
            options.append(i + 1)
    rng.shuffle(options)
    for i in options:
        case = _parse(tokens[i].text.lower()).tag.case
        new = _inflect(tokens[i].text, {OTHER_CASE.get(case, OTHER_CASE_DEFAULT)})
        if new:
            return _replace(sentence, tokens, i, new)
    return None


def word_order(sentence: str, tokens: list[Token], rng: random.Random) -> str | None:
    """Two neighbouring words swapped (a preposition after its noun, say)."""
    options = [
        i
        for i in range(len(tokens) - 1)
        if tokens[i].is_word
        and tokens[i + 1].is_word
        and tokens[i].text.lower() != tokens[i + 1].text.lower()
        and sentence[tokens[i].stop : tokens[i + 1].start] == " "
    ]
    if not options:
        return None
    i = rng.choice(options)
    first, second = tokens[i].text, tokens[i + 1].text
    if i == 0 and not _is_proper(first):
        second, first = _match_case(second, first), first.lower()
    return sentence[: tokens[i].start] + second + " " + first + sentence[tokens[i + 1].stop :]


DROPPABLE = {"PREP", "CONJ", "VERB", "PRCL"}


def drop_word(sentence: str, tokens: list[Token], rng: random.Random) -> str | None:
    """A preposition, conjunction, particle or verb left out."""
    words = [i for i, t in enumerate(tokens) if t.is_word]
    options = [i for i in words if _parse(tokens[i].text.lower()).tag.POS in DROPPABLE]
    if len(words) < 3 or not options:
        return None
    i = rng.choice(options)
    text = tidy_after_edit(sentence[: tokens[i].start] + sentence[tokens[i].stop :])
    if i == 0 and text:
        text = text[:1].upper() + text[1:]
    return text


def repeat_word(sentence: str, tokens: list[Token], rng: random.Random) -> str | None:
    """One word said twice."""
    options = [i for i, t in enumerate(tokens) if t.is_word]
    if not options:
        return None
    i = rng.choice(options)
    token = tokens[i]
    copy = token.text.lower() if i == 0 and not _is_proper(token.text) else token.text
    return sentence[: token.stop] + " " + copy + sentence[token.stop :]


Rule = Callable[[str, list[Token], random.Random], "str | None"]
_FUNCTIONS: dict[str, Rule] = {
    rule.__name__: rule
    for rule in (
        gender_agreement,
        number_agreement,
        case_agreement,
        government,
        word_order,
        drop_word,
        repeat_word,
    )
}
# The rules, named and ordered as the schema's ``PerturbationRule`` names them (a rule the
# schema allows without a function here fails at import, not in the middle of a run).
RULES: dict[str, Rule] = {name: _FUNCTIONS[name] for name in get_args(PerturbationRule)}


def perturb(
    sentence: str, rules: list[str], per_sentence: int, seed: int, language: str = "ru"
) -> list[tuple[str, str]]:
    """Up to ``per_sentence`` (rule, candidate) pairs, each from a different rule; a
    candidate is normalised as ``language``'s text (the sentence's language).

    The order in which rules are tried is shuffled per sentence, so the rules share the
    candidates evenly instead of the first rule in the list winning every time.
    """
    tokens = _tokens(sentence)
    order = list(rules)
    random.Random(int(stable_hash(str(seed), sentence), 16)).shuffle(order)
    out: list[tuple[str, str]] = []
    seen = {sentence}
    for name in order:
        if len(out) >= per_sentence:
            break
        rng = random.Random(int(stable_hash(str(seed), sentence, name), 16))
        candidate = RULES[name](sentence, tokens, rng)
        if candidate is None:
            continue
        candidate = normalize_text(candidate, language)
        if candidate and candidate not in seen:
            seen.add(candidate)
            out.append((name, candidate))
    return out
