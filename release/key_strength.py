"""How many bits a new annotator key is worth, by a stated estimate.

An annotator id is an HMAC of a worker id under the key (:mod:`rucola.release.votes`); a
worker id is easy to guess (a crowd platform's ids are short), so whoever finds the key
can tell which released votes are whose. A new key must be worth at least
:data:`MIN_KEY_BITS` (128) by this estimate, an upper bound on what an attacker's search
would cost, kept simple enough to state:

1. **Alphabet.** Each character is worth ``log2(A)`` bits, ``A`` the smallest of these that
   holds every character: the 16 hex digits (one case), the 64 characters of base64 (and
   base64url: ``+/-_=``), the 95 printable ASCII characters; a key of at most 6 distinct
   characters gets ``A`` = their number (``abab...`` is a 2-letter alphabet); anything
   else counts 95 a character.
2. **Repeats and runs.** A stretch of 10 or more characters that repeats an earlier one
   (``keykeykey...``, ``aaaa...``) or runs on by one code point (``abcdefghij``,
   ``9876543210``) is worth one character.
3. **Words.** A key that reads as words is worth 16 bits a word (a list of 65,536 words)
   and ``log2(5)`` a separator (space, ``_``, ``.``, ``,``, ``-``), when that is less:
   nothing but runs of 3 or more letters (lower case after a first capital:
   ``CorrectHorseBatteryStaple``) and separators, three-quarters of it letters, a third of
   those vowels and never five consonants in a row. Words run together count one per 5
   letters. Keys of hex digits are counted by 1 and 2 only.

``secrets.token_hex(16)`` (32 hex digits: 128 bits) and ``secrets.token_urlsafe(16)`` (22
base64url characters: 132) pass: a random one would fail step 2 only with a repeat or a
run of 10 (about once in 10^9 keys), step 3 never in 10^6 tried (a random token has a
digit or a capital inside a word, or too few vowels). ``aaaaaaaaaaaaaaaa`` is worth 2 bits,
``correct horse battery staple`` 87; a long run of few characters little more.
"""

from __future__ import annotations

import math
import re
import string

MIN_KEY_BITS = 128
GOOD_KEY_COMMAND = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"

_HEX = (frozenset("0123456789abcdef"), frozenset("0123456789ABCDEF"))
_BASE64 = frozenset(string.ascii_letters + string.digits + "+/-_=")
_PRINTABLE = 95
FEW = 6  # at most this many distinct characters: the key's own alphabet
STRETCH = 10  # a repeat or a run this long is worth one character
WORD_BITS = 16.0
# Read as words: nothing but runs of 3 or more letters, lower case after a first capital,
# and separators; three-quarters of it letters, a third of them vowels and never five
# consonants in a row (random letters have a vowel in five or six).
SEPARATORS = " _.,-"
WORDY = re.compile(r"(?:[A-Z]?[a-z]{2,}|[ _.,\-])+")
WORD = re.compile(r"[A-Z]?[a-z]+")
CONSONANTS = re.compile(r"[bcdfghjklmnpqrstvwxz]{5}", re.IGNORECASE)
VOWELS = frozenset("aeiouyAEIOUY")
VOWEL_SHARE = 3  # at least one letter in this many
WORD_SHARE = 0.75
WORD_LETTERS = 5  # words run together: one a 5 letters


def _alphabet(key: str) -> int:
    chars = frozenset(key)
    if len(chars) <= FEW:
        return max(len(chars), 2)
    if any(chars <= hex_digits for hex_digits in _HEX):
        return 16
    if chars <= _BASE64:
        return 64
    return _PRINTABLE


def _stretch(key: str, at: int) -> int:
    """How many characters from ``at`` repeat an earlier stretch (overlap allowed) or run
    on by one code point (or stay on one) from the character before."""
    longest = 0
    head = key[at : at + STRETCH]
    # an earlier start of the same STRETCH characters (overlapping ``at`` is fine)
    start = key.find(head, 0, at + STRETCH - 1) if len(head) == STRETCH else -1
    while 0 <= start < at:
        length = STRETCH
        while at + length < len(key) and key[start + length] == key[at + length]:
            length += 1
        longest = max(longest, length)
        start = key.find(head, start + 1, at + STRETCH - 1)
    if at:
        step = ord(key[at]) - ord(key[at - 1])
        if step in (-1, 0, 1):
            length = 1
            while (
                at + length < len(key) and ord(key[at + length]) - ord(key[at + length - 1]) == step
            ):
                length += 1
            longest = max(longest, length)
    return longest


def _characters(key: str) -> int:
    """The key's characters, each stretch of :data:`STRETCH` or more counted as one."""
    count, at = 0, 0
    while at < len(key):
        length = _stretch(key, at)
        at += length if length >= STRETCH else 1
        count += 1
    return count


def _words_bits(key: str) -> float | None:
    """Bits of the key read as words: None unless it is all words (and separators), with
    the vowels of a language's words (see :data:`WORDY`)."""
    if not WORDY.fullmatch(key) or CONSONANTS.search(key):
        return None
    letters = [c for c in key if c.isalpha()]
    vowels = sum(c in VOWELS for c in letters)
    if len(letters) < WORD_SHARE * len(key) or vowels * VOWEL_SHARE < len(letters):
        return None
    words = max(len(WORD.findall(key)), math.ceil(len(letters) / WORD_LETTERS))
    return words * WORD_BITS + (len(key) - len(letters)) * math.log2(len(SEPARATORS))


def key_bits(key: str) -> float:
    """The estimate (see the module's docstring) of the bits a key is worth."""
    if not key:
        return 0.0
    bits = _characters(key) * math.log2(_alphabet(key))
    if _alphabet(key) != 16:
        words = _words_bits(key)
        if words is not None:
            bits = min(bits, words)
    return bits
