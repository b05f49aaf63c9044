"""The ``audit`` section: what ``rucola audit`` looks for in the split rows, and how
``rucola audit export`` hands the most suspicious rows to expert reviewers.

Every kind of finding is on by default and has its own subsection here, so one section
says everything the audit does.
"""

from typing import Literal

from rucola.settings.corpus import NearDuplicates
from rucola.settings.types import (
    Inputs,
    Output,
    Positive,
    Section,
    Seed,
    _count,
    _key,
    _number,
)

AuditKind = Literal[
    "cross_split_duplicate", "conflicting_duplicate", "likely_label_error", "category_mismatch"
]
AuditFeatures = Literal["tfidf", "embeddings"]


class CrossSplitDuplicates(Section):
    enabled: bool = _key(True, "exact or near-duplicate rows in different splits")
    near_duplicates: NearDuplicates = _key(
        NearDuplicates, "MinHash LSH near-duplicates (`enabled: false`: exact repeats only)"
    )


class ConflictingDuplicates(Section):
    enabled: bool = _key(True, "the same sentence (normalised) with different labels")


class LabelErrors(Section):
    enabled: bool = _key(True, "confident learning on out-of-fold predicted probabilities")
    folds: _count(20, least=2) = _key(5, "cross-validation folds")
    seed: Seed = _key(42, "fold assignment")
    features: AuditFeatures = _key(
        "tfidf", "`tfidf` word n-grams, or `embeddings` of a local Hugging Face model"
    )
    model: Inputs = _key(
        list,
        "`embeddings`: `[a local Hugging Face model folder]` (never downloaded)",
        max_length=1,
    )
    sources: bool = _key(
        False, "each row's `detailed_source` a feature too (off: see docs/curating.md)"
    )
    C: Positive = _key(1.0, "inverse regularisation of the logistic regression")
    batch_size: _count(4096) = _key(32, "`embeddings`: sentences per forward pass")
    min_auc: _number(ge=0.5, le=1) = _key(
        0.75, "out-of-fold ROC AUC a domain needs for flags (below: ranked only)"
    )


class CategoryMismatch(Section):
    enabled: bool = _key(
        True,
        "a category that contradicts the label or domain, or that a cross-validated "
        "TF-IDF classifier (`likely_label_error`'s folds, seed and C) finds unlikely",
    )


class AuditExport(Section):
    out: Output = _key(
        "data/interim/review", "Label Studio tasks and review config (private: test rows)"
    )
    top: _count(100_000) = _key(50, "rows per kind, most suspicious first")


class Audit(Section):
    out: Output = _key(
        "data/interim/audit.parquet", "the review queue (private: hidden test labels)"
    )
    report: Output = _key("reports/audit.json", "counts per kind in train and validation")
    private_report: Output = _key(
        "reports/private/audit.json", "counts per kind and split, test included (private)"
    )
    cross_split_duplicate: CrossSplitDuplicates = _key(CrossSplitDuplicates, "leakage")
    conflicting_duplicate: ConflictingDuplicates = _key(ConflictingDuplicates, "conflicts")
    likely_label_error: LabelErrors = _key(LabelErrors, "label errors")
    category_mismatch: CategoryMismatch = _key(CategoryMismatch, "doubtful categories")
    export: AuditExport = _key(AuditExport, "`rucola audit export`")
