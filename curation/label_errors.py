"""``likely_label_error``: confident learning on out-of-fold predicted probabilities.

Acceptability labels are noisy, and benchmarks keep label errors even in their test sets
(Northcutt et al., "Pervasive Label Errors in Test Sets", 2021). A classifier trained on
the other folds gives every labelled row a probability for each label
(``sklearn.model_selection.cross_val_predict`` over a seeded ``StratifiedKFold``), so no
row is judged by a model that saw it. Then, as confident learning does (cleanlab's
confident joint): each class's threshold is the mean probability of that class over the
rows labelled with it, and a row is flagged when the model is confident of another class
(its probability at least that class's threshold, and the more likely one if the given
class passes its threshold too). Flagged rows go to the queue, most suspicious first by
``score = 1 - p(given label)`` (cleanlab's default, self-confidence): on the published
training file with 150 flipped labels this ranks more of them into the top 10% than
cleanlab's threshold-adjusted ranking, a posterior with per-label noise rates or flagged
rows first, on the same probabilities (``benchmarks/audit.py``, docs/curating.md).

Features: ``tfidf`` (word 1-3-grams, case kept, as the paper's baseline) fitted inside
each fold, or ``embeddings``: mean-pooled last hidden states of a local Hugging Face
encoder, computed once (the encoder is never fine-tuned, so nothing leaks between folds),
with the logistic regression fitted per fold. ``sources: true`` puts each row's
``detailed_source`` one-hot beside either, where a domain has two sources or more. It is
off by default: a publication's share of unacceptable examples then decides more than the
words (on the published RuCoLA it flags 110 of the 111 unacceptable rows of
Paducheva2004, a mostly acceptable source, and no row of USE8, an unacceptable one), so
the flags follow the sources' priors rather than errors; the 150-flip benchmark, whose
flips fall uniformly over the sources, rewards exactly that (6.8x random instead of
4.2x). One model per domain: what is acceptable in
generated out-of-domain text is not learnt from in-domain linguistics examples. A domain
needs both labels with at least ``folds`` rows each.

The audit knows its limits: a flag is worth a linguist's time only when the model tells
the labels apart. Each domain's out-of-fold ROC AUC (:func:`separation`: the chance that
a row labelled 1 gets a higher p(label 1) than a row labelled 0; 0.5 is chance) is
measured first; below ``min_auc`` the domain's rows are flagged never and ranked only:
they go to the queue with their score and an evidence line that says so, and the report
counts no finding for them. ROC AUC, rather than accuracy or MCC, because it needs no
decision threshold and does not move with the share of acceptable rows (70 to 85% in
CoLA, RuCoLA and ItaCoLA); and it is a rank statistic of the rounded probabilities, so
the same inputs give the same figure on every machine. TF-IDF separates the labels of
the published corpora barely (0.57 to 0.70: docs/curating.md), and on a corpus of
minimal pairs, a textbook's or the sample's, worse than chance (each row's pair, in the
other folds, carries the other label), where confident learning would flag most rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rucola.corpus import schema
from rucola.curation.queue import findings_frame
from rucola.determinism import rounded
from rucola.errors import RucolaError, params_error
from rucola.settings import LabelErrors

MAX_ITER = 5000  # lbfgs converges in a few hundred on RuCoLA; more never changes the result
AUC_DECIMALS = 4  # the separation a report and an evidence line show, and the one compared
SENTENCE, SOURCE = "sentence", "detailed_source"


@dataclass
class LabelErrorFindings:
    """What :func:`likely_label_errors` found: the flagged rows (findings), the rows of the
    domains the model does not separate (ranked only: findings too, never counted as
    flags), how many rows were scored, and each scored domain's out-of-fold ROC AUC."""

    flagged: pd.DataFrame
    ranked: pd.DataFrame
    scored: int = 0
    separation: dict[str, float] = field(default_factory=dict)

    def queued(self) -> pd.DataFrame:
        """The findings the queue holds: flagged rows, then ranked-only ones."""
        parts = [part for part in (self.flagged, self.ranked) if not part.empty]
        return pd.concat(parts, ignore_index=True) if parts else self.flagged


def describe(settings: LabelErrors, sources: bool = False) -> str:
    """``5-fold TF-IDF logistic regression``: how the probabilities were made (``, with
    the source`` where each row's ``detailed_source`` was a feature)."""
    features = "TF-IDF" if settings.features == "tfidf" else "embedding"
    with_source = ", with the source" if sources else ""
    return f"{settings.folds}-fold {features} logistic regression{with_source}"


def _classifier(c: float, tfidf: bool, sources: bool = False) -> object:
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    model = LogisticRegression(C=c, max_iter=MAX_ITER)
    if not tfidf:
        return model
    words = TfidfVectorizer(ngram_range=(1, 3), lowercase=False)
    if not sources:
        return make_pipeline(words, model)
    columns = ColumnTransformer(
        [
            ("words", words, SENTENCE),
            ("source", OneHotEncoder(handle_unknown="ignore"), [SOURCE]),
        ]
    )
    return make_pipeline(columns, model)


def out_of_fold(
    inputs: Sequence[str] | np.ndarray | pd.DataFrame,
    classes: np.ndarray,
    folds: int,
    seed: int,
    c: float,
) -> np.ndarray:
    """Out-of-fold probabilities (rows x sorted classes) of a logistic regression on
    ``inputs``: sentences (TF-IDF fitted inside each fold), a frame of sentences and their
    sources (TF-IDF and the sources' one-hot columns, both fitted inside each fold) or a
    matrix of features; rounded (``rucola.determinism``) before any threshold, flag or
    score is taken from them, so a last-bit difference between machines decides nothing."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    tfidf = not isinstance(inputs, np.ndarray)
    sources = isinstance(inputs, pd.DataFrame)
    data = inputs if sources or not tfidf else list(inputs)
    splitter = StratifiedKFold(folds, shuffle=True, random_state=seed)
    return rounded(
        cross_val_predict(
            _classifier(c, tfidf, sources), data, classes, cv=splitter, method="predict_proba"
        )
    )


def out_of_fold_probabilities(
    sentences: Sequence[str],
    labels: Sequence[int] | np.ndarray,
    settings: LabelErrors,
    features: np.ndarray | None = None,
    sources: Sequence[str | None] | None = None,
) -> np.ndarray:
    """p(label 0), p(label 1) for each labelled row, out of fold; ``features`` (one row
    per sentence) replaces TF-IDF (``settings.features: embeddings``); ``sources`` (each
    row's ``detailed_source``), when given, are one-hot features beside either."""
    labels = np.asarray(labels, dtype=np.int64)
    if sources is not None:
        names = [source or "" for source in sources]
        if features is not None:
            features = np.hstack([features, one_hot(names)])
        else:
            inputs = pd.DataFrame({SENTENCE: list(sentences), SOURCE: names})
            return out_of_fold(inputs, labels, settings.folds, settings.seed, settings.C)
    inputs = features if features is not None else list(sentences)
    return out_of_fold(inputs, labels, settings.folds, settings.seed, settings.C)


def one_hot(names: Sequence[str]) -> np.ndarray:
    """One column per distinct name (sorted), 1.0 where the row has it: the sources beside
    embeddings. Which sources exist says nothing of the labels, so the columns are made
    once for the domain, not per fold."""
    columns = sorted(set(names))
    index = {name: i for i, name in enumerate(columns)}
    matrix = np.zeros((len(names), len(columns)))
    matrix[np.arange(len(names)), [index[name] for name in names]] = 1.0
    return matrix


def domain_sources(part: pd.DataFrame, settings: LabelErrors) -> list[str | None] | None:
    """The domain's ``detailed_source`` values when they are features: ``sources: true``
    and two sources or more among its rows (one source says nothing a row's words do not)."""
    if not settings.sources or SOURCE not in part.columns:
        return None
    values = part[SOURCE].astype(object).where(part[SOURCE].notna(), None).tolist()
    return values if len({value or "" for value in values}) > 1 else None


def label_error_scores(probabilities: np.ndarray, labels: Sequence[int] | np.ndarray) -> np.ndarray:
    """``1 - p(given label)`` for every row: the ranking of the queue and the benchmark."""
    labels = np.asarray(labels, dtype=np.int64)
    return 1.0 - probabilities[np.arange(len(labels)), labels]


def separation(probabilities: np.ndarray, given: np.ndarray) -> float:
    """Out-of-fold ROC AUC of p(label 1) against the given labels, rounded to
    :data:`AUC_DECIMALS`: 0.5 is chance, 1 a model that ranks every row labelled 1 above
    every row labelled 0, below 0.5 a model that learnt the opposite (minimal pairs)."""
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(given, probabilities[:, 1])), AUC_DECIMALS)


def confident_learning(
    probabilities: np.ndarray, given: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(flagged, the class the model is confident of, the thresholds): cleanlab's confident
    joint, off its diagonal. ``given`` are column indices of ``probabilities``; a class no
    row is given has threshold 1 (never confident of it)."""
    k = probabilities.shape[1]
    thresholds = np.ones(k)
    for c in range(k):
        if (given == c).any():
            thresholds[c] = probabilities[given == c, c].mean()
    confident = probabilities >= thresholds - 1e-6  # cleanlab's tolerance
    count = confident.sum(axis=1)
    guess = np.where(count > 1, probabilities.argmax(axis=1), confident.argmax(axis=1))
    flagged = (count > 0) & (guess != given)
    return flagged, guess, thresholds


def trainable(classes: pd.Series, folds: int) -> list[object]:
    """The classes with at least ``folds`` rows (a stratified fold needs one of each)."""
    counts = classes.value_counts()
    return sorted(counts.index[counts >= folds].tolist())


def embed(sentences: Sequence[str], model: str | Path, batch_size: int) -> np.ndarray:
    """Mean-pooled last hidden states of a local Hugging Face encoder (never downloaded,
    never trained), one row per sentence, in float64."""
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as transformers_logging
    except ImportError:
        raise RucolaError(
            "audit.likely_label_error.features: embeddings needs torch and transformers",
            None,
            hint="install the gpu extra: pip install -c requirements/constraints.txt '.[gpu]'",
        ) from None
    folder = Path(model)
    if not folder.is_dir():
        raise RucolaError(
            "audit.likely_label_error.model: not a folder", folder, hint="a local model folder"
        )
    transformers_logging.disable_progress_bar()  # the command prints its own lines only
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        encoder = AutoModel.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RucolaError(
            f"audit.likely_label_error.model: not a Hugging Face model ({reason})", folder
        ) from None
    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder.to(device).eval()
    limit = min(int(getattr(tokenizer, "model_max_length", 512) or 512), 512)
    parts = []
    with torch.no_grad():
        for start in range(0, len(sentences), batch_size):
            batch = tokenizer(
                list(sentences[start : start + batch_size]),
                padding=True,
                truncation=True,
                max_length=limit,
                return_tensors="pt",
            ).to(device)
            hidden = encoder(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
            parts.append(pooled.float().cpu().numpy().astype(np.float64))
    if not parts:
        return np.zeros((0, 0))
    return np.concatenate(parts)


def likely_label_errors(rows: pd.DataFrame, settings: LabelErrors) -> LabelErrorFindings:
    """Findings of the labelled rows confident learning flags in the domains whose model
    separates the labels (out-of-fold ROC AUC at least ``settings.min_auc``), the ranked
    rows of the others, how many rows were scored (labelled rows of the domains with
    enough of both labels) and each domain's ROC AUC."""
    labels = rows["label"].to_numpy()
    labelled = np.isin(labels, [schema.UNACCEPTABLE, schema.ACCEPTABLE]) & rows["domain"].notna()
    candidates = rows[labelled]
    domains = []
    for domain, part in candidates.groupby("domain", sort=True):
        if trainable(part["label"], settings.folds) == [0, 1]:
            domains.append((domain, part.index.to_numpy()))
    if not domains:
        empty = findings_frame([], [], [])
        return LabelErrorFindings(empty, empty.copy())
    features = None
    if settings.features == "embeddings":
        if not settings.model:
            raise params_error(
                "audit.likely_label_error.model: features: embeddings needs a local model folder",
                hint="set audit.likely_label_error.model: [path/to/model]",
            )
        scored = np.concatenate([positions for _, positions in domains])
        vectors = embed(
            rows["sentence"].to_numpy()[scored].tolist(), settings.model[0], settings.batch_size
        )
        features = dict(zip(scored.tolist(), vectors, strict=True))
    flagged_rows, flagged_scores, flagged_evidence = [], [], []
    ranked_rows, ranked_scores, ranked_evidence = [], [], []
    total = 0
    aucs: dict[str, float] = {}
    for domain, positions in domains:
        given = labels[positions].astype(np.int64)
        sentences = rows["sentence"].to_numpy()[positions].tolist()
        matrix = None if features is None else np.stack([features[p] for p in positions])
        sources = domain_sources(rows.iloc[positions], settings)
        how = describe(settings, sources is not None)
        probabilities = out_of_fold_probabilities(sentences, given, settings, matrix, sources)
        score = label_error_scores(probabilities, given)
        total += len(positions)
        auc = aucs[str(domain)] = separation(probabilities, given)
        if auc < settings.min_auc:
            ranked_rows.extend(int(p) for p in positions)
            ranked_scores.extend(float(x) for x in score)
            ranked_evidence.extend(
                f"ranked only, not flagged: the {domain} model does not separate the labels "
                f"(out-of-fold ROC AUC {auc:.{AUC_DECIMALS}f} < min_auc {settings.min_auc}); "
                f"labelled {g}: out-of-fold p(label {g}) = {probabilities[j, g]:.2f} ({how})"
                for j, g in enumerate(given)
            )
            continue
        flagged, guess, thresholds = confident_learning(probabilities, given)
        for j in np.flatnonzero(flagged):
            flagged_rows.append(int(positions[j]))
            flagged_scores.append(float(score[j]))
            other = int(guess[j])
            flagged_evidence.append(
                f"labelled {given[j]}: out-of-fold p(label {given[j]}) = "
                f"{probabilities[j, given[j]]:.2f}, p(label {other}) = "
                f"{probabilities[j, other]:.2f} >= {thresholds[other]:.2f} (its threshold; "
                f"{how}, ROC AUC {auc:.{AUC_DECIMALS}f})"
            )
    return LabelErrorFindings(
        findings_frame(flagged_rows, flagged_scores, flagged_evidence),
        findings_frame(ranked_rows, ranked_scores, ranked_evidence),
        total,
        aucs,
    )
