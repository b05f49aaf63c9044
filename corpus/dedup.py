"""When two sentences are the same, and when they are near-duplicates.

This module is the one place that says it; every stage that compares sentences calls it.

- **The same sentence** (:func:`sentence_key`): equal text after Unicode and whitespace
  normalisation (``corpus.normalize``) and after Latin look-alikes inside Cyrillic words are
  repaired (``corpus.homoglyphs``). Punctuation and letter case count, so a question and a
  statement are two sentences. ``extract`` and ``annotate corpus`` keep one row of the same
  sentence, ``filter``/``screen`` set the others aside as ``duplicate``, and ``split`` (pins)
  and ``release diff`` match rows of two versions by it.
- **Near-duplicates** (:func:`loose_key`, then MinHash): the key with case, punctuation
  and ``ё``/``е`` also ignored is the text the character shingles are taken from; two rows
  are near-duplicates when the Jaccard similarity of their shingles is at least a threshold
  (the same sentence from two models, or a test sentence that reappears in train with one
  word changed). Equal loose keys are the closest near-duplicates, not the same sentence.

Everything runs on numpy arrays, in chunks, so a million sentences fit in a few hundred
MB: shingles are hashed from the code points with a rolling polynomial, MinHash takes
``num_perm`` multiply-shift hashes of them, LSH buckets rows whose band of signature
values agree, and each proposed pair is decided on its signature estimate when that is
more than four standard errors from the threshold, else on the exact Jaccard of its
shingle sets, so the signature's sampling noise does not merge or split clusters. A cluster's
representative is its earliest row, so callers order rows by preference first.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Sequence

import numpy as np

from rucola.corpus.homoglyphs import fix_homoglyphs
from rucola.corpus.normalize import normalize_text

_PUNCT = re.compile(r"[^\w\s]+", re.UNICODE)
_SPACE = re.compile(r"\s+")
_MASK32 = np.uint64(0xFFFFFFFF)
_CHUNK = 10_000
_MAX_BUCKET_PAIRS = 32  # all pairs in a bucket up to this size


def sentence_key(text: str, language: str = "ru") -> str:
    """Two sentences are the same when their keys are equal (see the module doc).

    ``language``: ``corpus.language``, whose profile says how the text is normalised and
    toward which script look-alikes are repaired, as extract does, so a text as a voter
    copied it (ItaCoLA's Cyrillic ``Ѐ``) has the key of the row extract kept (``È``)."""
    return fix_homoglyphs(normalize_text(text, language), language)[0]


def loosen(key: str) -> str:
    """A :func:`sentence_key` with case, punctuation and ``ё``/``е`` also ignored."""
    text = unicodedata.normalize("NFC", key).lower().replace("ё", "е")
    return _SPACE.sub(" ", _PUNCT.sub(" ", text)).strip()


def loose_key(text: str, language: str = "ru") -> str:
    """The text near-duplicate detection compares (its shingles feed MinHash)."""
    return loosen(sentence_key(text, language))


def shingles(key: str, size: int) -> list[str]:
    """Character n-grams of the key, padded with spaces to at least one n-gram."""
    key = key.ljust(size)
    return [key[i : i + size] for i in range(len(key) - size + 1)]


def lsh_bands(num_perm: int, threshold: float) -> int:
    """The most selective band count whose LSH threshold (1/b)^(1/r) is below ``threshold``.

    Below, so that LSH misses few true pairs; the exact check removes the extra candidates
    it proposes.
    """
    for bands in sorted(b for b in range(1, num_perm + 1) if num_perm % b == 0):
        if (1 / bands) ** (bands / num_perm) <= threshold:
            return bands
    return num_perm


def exact_roots(keys: Sequence[str]) -> np.ndarray:
    """For each row, the index of the first row with the same key."""
    first: dict[str, int] = {}
    return np.fromiter((first.setdefault(k, i) for i, k in enumerate(keys)), np.int64, len(keys))


def shingle_hashes(
    keys: Sequence[str], size: int, distinct: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Shingle hashes of every key, flat and grouped by row, with row offsets.

    ``distinct`` sorts each row's hashes and drops repeats (needed for exact Jaccard,
    not for MinHash, where a repeat cannot change a minimum).
    """
    padded = [k.ljust(size) for k in keys]
    lengths = np.fromiter((len(k) for k in padded), np.int64, len(padded))
    codes = np.frombuffer("".join(padded).encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    counts = lengths - size + 1
    # Window start positions that stay inside their row.
    owner = np.repeat(np.arange(len(padded)), counts)
    position = np.repeat(starts[:-1] - (np.cumsum(counts) - counts), counts) + np.arange(
        counts.sum()
    )
    h = np.zeros(len(position), np.uint64)
    for j in range(size):
        h = h * np.uint64(1_000_003) + codes[position + j]
    if distinct:
        order = np.lexsort((h, owner))
        h, owner = h[order], owner[order]
        keep = np.ones(len(h), bool)
        keep[1:] = (h[1:] != h[:-1]) | (owner[1:] != owner[:-1])
        h, owner = h[keep], owner[keep]
    offsets = np.searchsorted(owner, np.arange(len(padded) + 1))
    return h, offsets


def _distinct_hashes(keys: Sequence[str], size: int) -> tuple[np.ndarray, np.ndarray]:
    """``shingle_hashes(distinct=True)`` in chunks, so the sort's temporaries stay small."""
    parts, lengths = [], []
    for start in range(0, len(keys), _CHUNK):
        hashes, offsets = shingle_hashes(keys[start : start + _CHUNK], size, distinct=True)
        parts.append(hashes)
        lengths.append(np.diff(offsets))
    lengths_all = np.concatenate(lengths) if lengths else np.zeros(0, np.int64)
    offsets_all = np.concatenate([[0], np.cumsum(lengths_all)])
    return (np.concatenate(parts) if parts else np.zeros(0, np.uint64)), offsets_all


def _signatures(
    hashes: np.ndarray, offsets: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """MinHash: per row and permutation, the top 16 bits of the least multiply-shift hash.

    Keeping 16 bits (b-bit MinHash) halves the memory of a million signatures; taking the
    top bits commutes with the minimum, and two different minima agree in them with
    probability 2^-16, which biases the Jaccard estimate by less than that.
    """
    sig = np.empty((len(offsets) - 1, len(a)), np.uint16)
    starts = offsets[:-1]
    for p in range(len(a)):
        values = ((hashes * a[p] + b[p]) >> np.uint64(48)).astype(np.uint16)
        sig[:, p] = np.minimum.reduceat(values, starts)
    return sig


def _find(parent: np.ndarray, i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def near_roots(
    keys: Sequence[str],
    threshold: float = 0.7,
    shingle: int = 5,
    num_perm: int = 64,
    seed: int = 42,
) -> np.ndarray:
    """For each row, the index of the first row of its near-duplicate cluster.

    Give distinct keys (exact duplicates removed first): identical keys would all be
    proposed by LSH and only cost time.
    """
    n = len(keys)
    parent = np.arange(n, dtype=np.int64)
    if n < 2:
        return parent
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 2**63, num_perm, dtype=np.uint64) | np.uint64(1)  # odd multipliers
    b = rng.integers(0, 2**63, num_perm, dtype=np.uint64)
    signatures = np.empty((n, num_perm), np.uint16)
    for start in range(0, n, _CHUNK):
        hashes, offsets = shingle_hashes(keys[start : start + _CHUNK], shingle, distinct=False)
        signatures[start : start + _CHUNK] = _signatures(hashes, offsets, a, b)
    bands = lsh_bands(num_perm, threshold)
    rows = num_perm // bands
    left: list[np.ndarray] = []
    right: list[np.ndarray] = []
    for band in range(bands):
        block = signatures[:, band * rows : (band + 1) * rows].astype(np.uint64)
        bucket = np.zeros(n, np.uint64)
        for column in range(rows):
            bucket = bucket * np.uint64(0x9E3779B97F4A7C15) + block[:, column]
        order = np.argsort(bucket, kind="stable")
        sorted_bucket = bucket[order]
        boundary = np.flatnonzero(np.r_[True, sorted_bucket[1:] != sorted_bucket[:-1], True])
        sizes = np.diff(boundary)
        pairs_of_two = boundary[:-1][sizes == 2]  # most buckets: one pair, vectorised
        left.append(np.minimum(order[pairs_of_two], order[pairs_of_two + 1]))
        right.append(np.maximum(order[pairs_of_two], order[pairs_of_two + 1]))
        for run_start, size in zip(boundary[:-1][sizes > 2], sizes[sizes > 2], strict=True):
            members = np.sort(order[run_start : run_start + size])
            if size <= _MAX_BUCKET_PAIRS:
                i, j = np.triu_indices(size, 1)
            else:  # a huge bucket: link all to its first row rather than every pair
                i, j = np.zeros(size - 1, np.int64), np.arange(1, size)
            left.append(members[i])
            right.append(members[j])
    pairs = np.unique(np.stack([np.concatenate(left), np.concatenate(right)], axis=1), axis=0)
    if len(pairs) == 0:
        return parent
    # The signatures decide pairs far from the threshold (more than 4 standard errors of
    # the estimate); the exact Jaccard of the shingle sets decides the rest.
    estimate = np.empty(len(pairs))
    for start in range(0, len(pairs), _CHUNK):
        i, j = pairs[start : start + _CHUNK, 0], pairs[start : start + _CHUNK, 1]
        estimate[start : start + _CHUNK] = (signatures[i] == signatures[j]).mean(axis=1)
    margin = 4 * np.sqrt(max(threshold * (1 - threshold), 0.01) / num_perm)
    accepted = pairs[estimate >= threshold + margin].tolist()
    unsure = pairs[np.abs(estimate - threshold) < margin]
    if len(unsure):
        involved = np.unique(unsure)
        slot = {int(row): k for k, row in enumerate(involved)}
        hashes, offsets = _distinct_hashes([keys[i] for i in involved], shingle)
        for i, j in unsure.tolist():
            x, y = slot[i], slot[j]
            hx = hashes[offsets[x] : offsets[x + 1]]
            hy = hashes[offsets[y] : offsets[y + 1]]
            shared = np.intersect1d(hx, hy, assume_unique=True).size
            if shared >= threshold * (len(hx) + len(hy) - shared):
                accepted.append((i, j))
    for i, j in accepted:
        ri, rj = _find(parent, i), _find(parent, j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    return np.fromiter((_find(parent, i) for i in range(n)), np.int64, n)


def exact_duplicates(
    keys: Sequence[Hashable], labels: Sequence[Hashable] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The one exact-duplicate rule every stage uses: for each row, the index of the first
    row with the same key (its own index when it is the first), and whether the rows of its
    key disagree in ``labels`` (a value of None is no label and disagrees with nothing).

    Callers choose the key (:func:`sentence_key` of the text, a candidate id) and what to do:
    keep the first, set the repeats aside as ``duplicate`` and every row of a conflicting
    key as ``conflicting_labels``."""
    first = exact_roots(keys)
    conflict = np.zeros(len(first), dtype=bool)
    if labels is not None:
        seen: dict[int, set[Hashable]] = {}
        for root, label in zip(first.tolist(), labels, strict=True):
            if label is not None:
                seen.setdefault(root, set()).add(label)
        conflict = np.fromiter((len(seen.get(r, ())) > 1 for r in first.tolist()), bool, len(first))
    return first, conflict
