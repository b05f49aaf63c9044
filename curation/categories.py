"""``category_mismatch``: a violation category that contradicts the row, or that a
classifier finds unlikely.

Rules (score 1.0: always wrong, whatever a model thinks), the ones validation enforces,
so a corpus built with ``validate.exempt_published`` or read from elsewhere shows them
row by row: an acceptable row with a category, an unacceptable row without one (only in a
domain that declares categories: CoLA and ItaCoLA declare none, and their unacceptable
rows have none), an unlabelled row with one, a category in no domain's list of
``corpus.categories`` (any category, in a corpus that declares none), and a category
outside the domains whose lists hold it (RuCoLA's Hallucination, a generator's invention:
outside the out-of-domain rows).

Classifier: per domain, over the unacceptable rows, a cross-validated multiclass TF-IDF
logistic regression (the folds, seed and C of ``audit.likely_label_error``) over the
categories with at least ``folds`` rows; a row is flagged as confident learning flags a
label (``rucola.curation.label_errors.confident_learning``), with score
``1 - p(given category)``: the categories overlap (a wrong case ending is Morphology or
Syntax by convention), so this finds rows whose category differs from the one the rest of
the corpus gives to sentences like them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rucola.corpus import schema
from rucola.curation.label_errors import confident_learning, out_of_fold, trainable
from rucola.curation.queue import findings_frame
from rucola.settings import Categories, LabelErrors


def rule_findings(rows: pd.DataFrame, categories: Categories) -> dict[int, list[str]]:
    """Row position -> what each rule says is wrong with its category (``categories``:
    ``corpus.categories``)."""
    allowed = set(categories.all())
    declared = set(categories.declared())
    found: dict[int, list[str]] = {}
    for position, (label, category, domain) in enumerate(
        zip(rows["label"], rows["error_type"], rows["domain"], strict=True)
    ):
        has = isinstance(category, str)
        why = []
        if label == schema.ACCEPTABLE and has:
            why.append(f"acceptable but has the category {category}")
        elif label == schema.UNACCEPTABLE and not has and _asks(domain, declared):
            why.append("unacceptable without a category")
        elif label == schema.UNLABELLED and has:
            why.append(f"unlabelled but has the category {category}")
        if has and not allowed:
            why.append(f"{category}, but corpus.categories declares none")
        elif has and category not in allowed:
            why.append(f"{category} is not one of corpus.categories")
        elif has and isinstance(domain, str) and category not in _allowed_in(categories, domain):
            why.append(f"{category} outside {', '.join(categories.domains_with(category))}")
        if why:
            found[position] = why
    return found


def _asks(domain: object, declared: set[str]) -> bool:
    """Whether an unacceptable row of ``domain`` needs a category: its domain declares
    some; a row without a known domain, when any domain does."""
    if isinstance(domain, str) and domain in schema.DOMAINS:
        return domain in declared
    return bool(declared)


def _allowed_in(categories: Categories, domain: str) -> list[str]:
    """The categories of ``domain``; none for a name that is no domain."""
    return categories.of(domain) if domain in schema.DOMAINS else []


def classifier_findings(
    rows: pd.DataFrame, settings: LabelErrors, categories: Categories
) -> tuple[dict[int, tuple[float, str]], int]:
    """Row position -> (1 - p(given category), evidence) for the rows confident learning
    flags, and how many rows the classifiers scored."""
    unacceptable = (rows["label"] == schema.UNACCEPTABLE) & rows["error_type"].isin(
        categories.all()
    )
    candidates = rows[unacceptable & rows["domain"].notna()]
    found: dict[int, tuple[float, str]] = {}
    total = 0
    how = f"{settings.folds}-fold TF-IDF logistic regression over categories"
    for _, part in candidates.groupby("domain", sort=True):
        classes = trainable(part["error_type"], settings.folds)
        if len(classes) < 2:
            continue
        part = part[part["error_type"].isin(classes)]
        given = np.searchsorted(classes, part["error_type"].to_numpy())
        probabilities = out_of_fold(
            part["sentence"].tolist(), given, settings.folds, settings.seed, settings.C
        )
        flagged, guess, thresholds = confident_learning(probabilities, given)
        total += len(part)
        positions = part.index.to_numpy()
        for j in np.flatnonzero(flagged):
            mine, other = int(given[j]), int(guess[j])
            found[int(positions[j])] = (
                float(1.0 - probabilities[j, mine]),
                f"out-of-fold p({classes[mine]}) = {probabilities[j, mine]:.2f}, "
                f"p({classes[other]}) = {probabilities[j, other]:.2f} >= "
                f"{thresholds[other]:.2f} (its threshold; {how})",
            )
    return found, total


def category_mismatches(
    rows: pd.DataFrame, settings: LabelErrors, categories: Categories
) -> tuple[pd.DataFrame, int]:
    """Findings of the rules and the classifier, one per row (a rule's score, 1.0, wins;
    the evidence says both), and how many rows the classifier scored."""
    rules = rule_findings(rows, categories)
    model, scored = classifier_findings(rows, settings, categories)
    found_rows, scores, evidence = [], [], []
    for position in sorted(set(rules) | set(model)):
        lines = list(rules.get(position, []))
        score = 1.0 if lines else model[position][0]
        if position in model:
            lines.append(model[position][1])
        found_rows.append(position)
        scores.append(score)
        evidence.append("; ".join(lines))
    return findings_frame(found_rows, scores, evidence), scored
