"""`make bench`: how well the audit's ``likely_label_error`` ranking finds label errors,
against cleanlab's default ranking on the same out-of-fold probabilities, in one run.

On the published RuCoLA training file (``$RUCOLA_SHARED_DATA/rucola/in_domain_train.csv``,
7,869 rows), 150 labels are flipped at random (seeded); the audit's classifier (the
params' defaults: 5-fold TF-IDF word 1-3-gram logistic regression, C = 1) gives every row
its out-of-fold probabilities, and the rows are ranked:

- ``audit``: the audit's ``score``, 1 - p(given label), the queue's order;
- ``cleanlab default``: cleanlab's ``get_label_quality_scores(labels, pred_probs)`` with
  its defaults (``method="self_confidence"``, ``adjust_pred_probs=False``: p(given label),
  lowest first; ``find_label_issues`` ranks by the same score), on the same probabilities.
  cleanlab is no dependency of this project, so its two-line default is written here
  (:func:`cleanlab_default_scores`); with two labels it orders rows as ``audit`` does;
- ``cleanlab adjusted``: the same after cleanlab's ``adjust_pred_probs`` (each class's
  confident threshold subtracted, then renormalised), on the same probabilities;
- ``with the source``: the audit with ``sources: true`` (each row's ``detailed_source`` a
  feature): higher here, because these flips fall uniformly over the publications, but off
  by default (docs/curating.md: on real errors it follows the publications' priors).

It prints how many flipped rows each ranking puts in its top 10%, against the 10% a
random ranking finds, the out-of-fold ROC AUC (``min_auc``: below it the audit flags
nothing) and how many rows confident learning flags, for several seeds and their mean.
Figures only, never asserted. ``--sentences N`` runs on a synthetic stand-in of N
sentences instead (the test suite's check that the benchmark runs; its figures mean
nothing).
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
    separation,
)
from rucola.settings import LabelErrors

ROOT = Path(__file__).resolve().parents[1]
FLIPS = 150
TOP = 0.10


def published(shared: str) -> tuple[list[str], np.ndarray, list[str]]:
    path = (ROOT / shared).resolve() / "rucola" / "in_domain_train.csv"
    read = {"dtype": {"sentence": str, "acceptable": int, "detailed_source": str}}
    frame = pd.read_csv(path, keep_default_na=False, **read)
    return (
        frame["sentence"].tolist(),
        frame["acceptable"].to_numpy(dtype=np.int64),
        frame["detailed_source"].tolist(),
    )


def synthetic(n: int, seed: int = 0) -> tuple[list[str], np.ndarray, list[str]]:
    """Sentences of sample-like words; an unacceptable one carries a marker word, so the
    classifier has something to learn; three sources, one with more unacceptable rows."""
    rng = np.random.default_rng(seed)
    words = ["мама", "мыла", "раму", "дети", "играли", "во", "дворе", "старый", "мост", "реку"]
    sentences, labels, sources = [], [], []
    for i in range(n):
        source = f"source{i % 3}"
        label = int(rng.random() < (0.4 if source == "source0" else 0.8))
        tokens = list(rng.choice(words, rng.integers(4, 9)))
        if not label:
            tokens.insert(int(rng.integers(len(tokens))), "быть")
        sentences.append(" ".join(tokens).capitalize() + f" {i}.")
        labels.append(label)
        sources.append(source)
    return sentences, np.asarray(labels, dtype=np.int64), sources


def cleanlab_default_scores(probabilities: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """1 - cleanlab's default label quality score (``self_confidence``, unadjusted):
    higher is more suspicious, as the audit's score."""
    return 1.0 - probabilities[np.arange(len(labels)), labels]


def adjusted_scores(probabilities: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """1 - cleanlab's self-confidence after ``adjust_pred_probs``."""
    _, _, thresholds = confident_learning(probabilities, labels)
    adjusted = probabilities - thresholds + thresholds.max()
    adjusted /= adjusted.sum(axis=1, keepdims=True)
    return 1.0 - adjusted[np.arange(len(labels)), labels]


def in_top(scores: np.ndarray, flipped: np.ndarray, top: int) -> int:
    """Flipped rows among the ``top`` highest scores (ties by position: stable)."""
    order = np.argsort(-scores, kind="stable")[:top]
    return int(np.isin(order, flipped).sum())


RANKINGS = ["audit", "cleanlab default", "cleanlab adjusted", "with the source"]


def run(
    sentences: list[str], labels: np.ndarray, sources: list[str], seeds: int, flips: int
) -> None:
    settings = LabelErrors()
    with_source = LabelErrors(sources=True)
    n = len(labels)
    top = round(n * TOP)
    expected = flips * top / n
    print(
        f"{n} rows, {flips} labels flipped, top {TOP:.0%} = {top} rows; a random ranking "
        f"finds {expected:.1f}; {settings.folds}-fold TF-IDF logistic regression, C = "
        f"{settings.C}; min_auc "
        f"{settings.min_auc}"
    )
    found: dict[str, list[int]] = {name: [] for name in RANKINGS}
    aucs, flags, seconds = [], [], []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        flipped = np.sort(rng.choice(n, flips, replace=False))
        noisy = labels.copy()
        noisy[flipped] = 1 - noisy[flipped]
        start = time.perf_counter()
        probabilities = out_of_fold_probabilities(sentences, noisy, settings)
        seconds.append(time.perf_counter() - start)
        aucs.append(separation(probabilities, noisy))
        # below min_auc the audit flags nothing (it ranks only)
        flagged = confident_learning(probabilities, noisy)[0] & (aucs[-1] >= settings.min_auc)
        flags.append(int(flagged.sum()))
        source = out_of_fold_probabilities(sentences, noisy, with_source, None, sources)
        rankings = {
            "audit": label_error_scores(probabilities, noisy),
            "cleanlab default": cleanlab_default_scores(probabilities, noisy),
            "cleanlab adjusted": adjusted_scores(probabilities, noisy),
            "with the source": label_error_scores(source, noisy),
        }
        for name, scores in rankings.items():
            found[name].append(in_top(scores, flipped, top))
        print(
            f"seed {seed}: "
            + "; ".join(
                f"{name} {hits[-1]} of {flips} ({hits[-1] / expected:.1f}x random)"
                for name, hits in found.items()
            )
            + f"; ROC AUC {aucs[-1]:.3f} (with the source {separation(source, noisy):.3f}), "
            f"{flags[-1]} flagged ({flagged[flipped].sum()} of them flipped); "
            f"{seconds[-1]:.1f} s"
        )
    print(
        f"mean of {seeds} seeds: "
        + "; ".join(
            f"{name} {np.mean(hits):.1f} ({np.mean(hits) / expected:.1f}x random)"
            for name, hits in found.items()
        )
        + f"; ROC AUC {np.mean(aucs):.3f}, {np.mean(flags):.0f} flagged; "
        f"{np.mean(seconds):.1f} s per ranking (cross-validation included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--sentences", type=int, help="a synthetic stand-in of this many sentences instead"
    )
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    if args.sentences:
        sentences, labels, sources = synthetic(args.sentences)
        flips = max(1, min(FLIPS, args.sentences // 10))
        print(f"label errors, synthetic stand-in ({args.sentences} sentences):")
    else:
        shared = os.environ.get("RUCOLA_SHARED_DATA")
        if not shared:
            print("label errors: skipped (RUCOLA_SHARED_DATA not set)")
            return
        sentences, labels, sources = published(shared)
        flips = FLIPS
        print("label errors, published RuCoLA in_domain_train.csv:")
    run(sentences, labels, sources, args.seeds, flips)


if __name__ == "__main__":
    main()
