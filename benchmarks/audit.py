"""`make bench`: how well the audit's ``likely_label_error`` ranking finds label errors.

On the published RuCoLA training file (``$RUCOLA_SHARED_DATA/rucola/in_domain_train.csv``,
7,869 rows), 150 labels are flipped at random (seeded); the audit's classifier (the
params' defaults: 5-fold TF-IDF word 1-3-gram logistic regression, C = 1) gives every row
its out-of-fold probabilities, and the rows are ranked three ways:

- ``1 - p``: one minus the probability of the given label (the audit's ``score``);
- ``adjusted``: the same after cleanlab's ``adjust_pred_probs`` (each class's confident
  threshold subtracted, then renormalised);
- ``margin``: cleanlab's normalised margin (the given label's probability minus the
  largest other one; with two classes it ranks exactly as ``1 - p``).

It prints how many flipped rows each ranking puts in its top 10%, against the 10% a
random ranking finds, for several seeds and their mean. Figures only, never asserted.
``--sentences N`` runs on a synthetic stand-in of N sentences instead (the test suite's
check that the benchmark runs; its figures mean nothing).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from rucola.curation.label_errors import (
    confident_learning,
    label_error_scores,
    out_of_fold_probabilities,
)
from rucola.settings import LabelErrors

ROOT = Path(__file__).resolve().parents[1]
FLIPS = 150
TOP = 0.10


def published(shared: str) -> tuple[list[str], np.ndarray]:
    path = (ROOT / shared).resolve() / "rucola" / "in_domain_train.csv"
    frame = pd.read_csv(path, dtype={"sentence": str, "acceptable": int}, keep_default_na=False)
    return frame["sentence"].tolist(), frame["acceptable"].to_numpy(dtype=np.int64)


def synthetic(n: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """Sentences of sample-like words; an unacceptable one carries a marker word, so the
    classifier has something to learn."""
    rng = np.random.default_rng(seed)
    words = ["мама", "мыла", "раму", "дети", "играли", "во", "дворе", "старый", "мост", "реку"]
    sentences, labels = [], []
    for i in range(n):
        label = int(rng.random() < 0.7)
        tokens = list(rng.choice(words, rng.integers(4, 9)))
        if not label:
            tokens.insert(int(rng.integers(len(tokens))), "быть")
        sentences.append(" ".join(tokens).capitalize() + f" {i}.")
        labels.append(label)
    return sentences, np.asarray(labels, dtype=np.int64)


def adjusted_scores(probabilities: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """1 - cleanlab's self-confidence after ``adjust_pred_probs``."""
    _, _, thresholds = confident_learning(probabilities, labels)
    adjusted = probabilities - thresholds + thresholds.max()
    adjusted /= adjusted.sum(axis=1, keepdims=True)
    return 1.0 - adjusted[np.arange(len(labels)), labels]


def margin_scores(probabilities: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """1 - cleanlab's normalised margin."""
    rows = np.arange(len(labels))
    own = probabilities[rows, labels]
    others = probabilities.copy()
    others[rows, labels] = -np.inf
    return 1.0 - (own - others.max(axis=1) + 1) / 2


def in_top(scores: np.ndarray, flipped: np.ndarray, top: int) -> int:
    """Flipped rows among the ``top`` highest scores (ties by position: stable)."""
    order = np.argsort(-scores, kind="stable")[:top]
    return int(np.isin(order, flipped).sum())


def run(sentences: list[str], labels: np.ndarray, seeds: int, flips: int) -> None:
    settings = LabelErrors()
    n = len(labels)
    top = round(n * TOP)
    expected = flips * top / n
    print(
        f"{n} rows, {flips} labels flipped, top {TOP:.0%} = {top} rows; a random ranking "
        f"finds {expected:.1f}; {settings.folds}-fold TF-IDF logistic regression, C = "
        f"{settings.C}"
    )
    found: dict[str, list[int]] = {"1 - p": [], "adjusted": [], "margin": []}
    seconds = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        flipped = np.sort(rng.choice(n, flips, replace=False))
        noisy = labels.copy()
        noisy[flipped] = 1 - noisy[flipped]
        start = time.perf_counter()
        probabilities = out_of_fold_probabilities(sentences, noisy, settings)
        rankings = {
            "1 - p": label_error_scores(probabilities, noisy),
            "adjusted": adjusted_scores(probabilities, noisy),
            "margin": margin_scores(probabilities, noisy),
        }
        seconds.append(time.perf_counter() - start)
        for name, scores in rankings.items():
            found[name].append(in_top(scores, flipped, top))
        print(
            f"seed {seed}: "
            + "; ".join(
                f"{name} {hits[-1]} of {flips} ({hits[-1] / expected:.1f}x random)"
                for name, hits in found.items()
            )
            + f"; {seconds[-1]:.1f} s"
        )
    print(
        f"mean of {seeds} seeds: "
        + "; ".join(
            f"{name} {np.mean(hits):.1f} ({np.mean(hits) / expected:.1f}x random)"
            for name, hits in found.items()
        )
        + f"; {np.mean(seconds):.1f} s per ranking (cross-validation included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--sentences", type=int, help="a synthetic stand-in of this many sentences instead"
    )
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    if args.sentences:
        sentences, labels = synthetic(args.sentences)
        flips = max(1, min(FLIPS, args.sentences // 10))
        print(f"label errors, synthetic stand-in ({args.sentences} sentences):")
    else:
        shared = os.environ.get("RUCOLA_SHARED_DATA")
        if not shared:
            print("label errors: skipped (RUCOLA_SHARED_DATA not set)")
            return
        sentences, labels = published(shared)
        flips = FLIPS
        print("label errors, published RuCoLA in_domain_train.csv:")
    run(sentences, labels, args.seeds, flips)


if __name__ == "__main__":
    main()
