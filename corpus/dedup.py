"""Exact and near-duplicate clusters: one key per sentence, MinHash LSH over its shingles.

Two rows are exact duplicates when their normalised keys are equal (case, punctuation,
whitespace and ``ё``/``е`` ignored), and near-duplicates when the Jaccard similarity of
their character shingles is at least a threshold (the same sentence from two models, or
a test sentence that reappears in train with one word changed). MinHash signatures
come from rensa (Rust); LSH proposes pairs and every pair is checked on its exact
shingle Jaccard before it joins a cluster. A cluster's representative is its earliest
row, so callers order rows by preference (in-domain before generated, earlier source
before later) first.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np

_PUNCT = re.compile(r"[^\w\s]+", re.UNICODE)
_SPACE = re.compile(r"\s+")


def dedup_key(text: str) -> str:
    """The sentence as duplicate detection sees it."""
    text = unicodedata.normalize("NFC", text).lower().replace("ё", "е")
    return _SPACE.sub(" ", _PUNCT.sub(" ", text)).strip()


def shingles(key: str, size: int) -> list[str]:
    """Character n-grams of the key (the whole key when shorter than n)."""
    if len(key) <= size:
        return [key]
    return [key[i : i + size] for i in range(len(key) - size + 1)]


def lsh_bands(num_perm: int, threshold: float) -> int:
    """The most selective band count whose LSH threshold (1/b)^(1/r) is below ``threshold``.

    Below, so that LSH misses few true pairs; the exact check on the signatures removes the
    extra candidates it proposes.
    """
    best = num_perm
    for bands in sorted(b for b in range(1, num_perm + 1) if num_perm % b == 0):
        rows = num_perm // bands
        if (1 / bands) ** (1 / rows) <= threshold:
            best = bands
            break
    return best


def exact_roots(keys: Sequence[str]) -> np.ndarray:
    """For each row, the index of the first row with the same key."""
    first: dict[str, int] = {}
    return np.fromiter((first.setdefault(k, i) for i, k in enumerate(keys)), np.int64, len(keys))


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
    from rensa import RMinHash, RMinHashLSH

    n = len(keys)
    parent = np.arange(n, dtype=np.int64)
    if n < 2:
        return parent
    sets = [shingles(k, shingle) for k in keys]
    matrix = RMinHash.digest_matrix_from_token_sets(sets, num_perm, seed)
    lsh = RMinHashLSH(threshold, num_perm, lsh_bands(num_perm, threshold))
    flags = np.asarray(lsh.insert_matrix_and_query_duplicate_flags(matrix, 0), dtype=bool)
    flagged = np.flatnonzero(flags)
    if flagged.size == 0:
        return parent
    hashes = dict(
        zip(
            flagged.tolist(),
            RMinHash.from_token_sets([sets[i] for i in flagged], num_perm, seed),
            strict=True,
        )
    )
    exact_sets = {i: set(sets[i]) for i in flagged.tolist()}
    for i in flagged.tolist():
        for j in lsh.query(hashes[i]):
            if j <= i or j not in hashes:
                continue
            # LSH proposes; the exact Jaccard of the shingle sets decides, so the
            # signature's sampling noise never merges or splits a cluster.
            a_set, b_set = exact_sets[i], exact_sets[j]
            if len(a_set & b_set) >= threshold * len(a_set | b_set):
                a, b = _find(parent, i), _find(parent, j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return np.fromiter((_find(parent, i) for i in range(n)), np.int64, n)
