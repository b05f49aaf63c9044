"""The split stage: stratified, group-aware, deterministic train/validation/test.

Rows that share a ``group`` (variants of one alternation, later near-duplicate clusters)
are one unit and land in one split, so no pair of minimally different sentences straddles
train and test. Units are ordered by stratum (label, source, category) and, within one, by
a seeded hash of the group; each unit then goes to the split that is furthest behind its
ratio. This is systematic sampling: split sizes and label shares match the ratios to within
one unit and every stratum is spread proportionally.

Keeping earlier assignments across releases is the job of a pin (``corpus.pin``): a pinned
row keeps its split and id, and an unpinned row of a group with pinned rows joins that
group. The other rows are new, and they are split among themselves (``split.new_rows``:
``stratified`` by ``split.ratios``, or all to one split), never "around" the pinned rows:
the pinned rows' splits are a past release's, and where their domain is hidden (published
test rows without the gold) counting around them would see an empty test split and fill
it with every new row. New rows get ids after the largest id their split ever had in their
domain (train and validation, numbered per domain as the published files are) or in the
whole split (test, one numbering that hides the domain), kept or named by a pin, so an id
once published is never given to another sentence; until a
version is published and pinned, adding rows may renumber the new rows before them.

Last come the errata (``extract.errata``, ``corpus.errata``): once every row has its split
and id, published rows are relabelled, recategorised, corrected or removed (set aside in
``split.rejected``), so a corrected row keeps its place; the report counts them.

Git tracks the report (``split.report``) and the token-length plot (``split.plot``), so
both are drawn from what is public of a row (:func:`public_report`): train and validation
rows per domain in full, the test split as one count per released configuration (a test
row's domain, label, category and source are hidden). The whole picture, test included,
goes to the private report (``split.private_report``, DVC cache only).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.corpus.dedup import sentence_key
from rucola.corpus.errata import (
    REASON,
    REVIEW,
    Applied,
    ErrataOptions,
    Erratum,
    apply_errata,
    read_errata,
)
from rucola.corpus.pin import (
    STRATIFIED,
    group_splits,
    id_scope,
    id_scopes,
    load_pin,
    new_rows,
    placed_by_policy,
)
from rucola.errors import RucolaError, params_error
from rucola.io import stable_hash, table_from_frame
from rucola.settings import Split
from rucola.stage import StageRun, read_frame

# What the split reads of a row (the base schema's columns it sorts and stratifies by).
REQUIRED = ["sentence", "label", "domain", "detailed_source", "error_type", "group"]
TEST = "test"  # the plot's column of test rows, whatever their domain
TYPES = schema.SPLIT_ROW_SCHEMA  # read_frame checks the types of the columns the input has
# A column the split does not know (a measured attribute, ``corpus.attributes``) passes
# through to its output as read; validation and the release read only their own columns.
# Rows an erratum removed (``split.rejected``): the set-aside columns, then the split row's.
REJECTED_SCHEMA = schema.set_aside_schema(schema.SPLIT_ROW_SCHEMA)


def _ratios(settings: Split, domain: str) -> list[float]:
    """The domain's train / validation / test ratios (the schema checked that they add
    up to 1), as floats so the report reads the same whatever the params file wrote."""
    if domain not in schema.DOMAINS:
        raise params_error(f"split.ratios has no entry for domain '{domain}'")
    return [float(r) for r in settings.ratios.of(domain)]


def assign_splits(frame: pd.DataFrame, ratios: list[float], seed: int) -> pd.Series:
    """Split name per row of one domain's new rows (index aligned with ``frame``).

    A unit (group) goes to the split whose rows fall furthest behind the ratios, counted per
    label and weighted by the unit's own label mix, so groups that hold both an acceptable
    and an unacceptable variant keep the label shares balanced too. Only ``frame``'s rows
    are counted: pinned rows and the rows that follow their pinned group are placed before
    and never enter this count (see the module's docstring).
    """
    if frame.empty:
        return pd.Series([], dtype=object, index=frame.index)
    ordered = frame.sort_values(["group", "sentence"], kind="stable")
    first = ordered.groupby("group", sort=True).head(1)
    mix = pd.crosstab(ordered["group"], ordered["label"]).reindex(columns=[0, 1], fill_value=0)
    units = pd.DataFrame(
        {
            "group": first["group"].to_numpy(),
            "label": first["label"].to_numpy(),
            "source": first["detailed_source"].fillna("").to_numpy(),
            "error_type": first["error_type"].fillna("").to_numpy(),
        }
    )
    units["order"] = [stable_hash(str(seed), g) for g in units["group"]]
    units = units.sort_values(["label", "source", "error_type", "order"], kind="stable")
    target = np.asarray(ratios)[:, None]  # split x label
    counts = np.zeros((3, 2))
    seen = np.zeros(2)
    choice: dict[str, str] = {}
    for group in units["group"]:
        sizes = mix.loc[group].to_numpy(dtype=float)
        seen += sizes
        behind = target * seen - counts  # split x label
        deficit = (behind * sizes).sum(axis=1)
        deficit[np.asarray(ratios) == 0] = -np.inf
        # On a tie (two splits equally behind for this unit's labels), the split furthest
        # behind over all labels: 40 rows give 32/4/4, not 32/5/3.
        tied = np.flatnonzero(deficit >= deficit.max() - 1e-9)
        index = int(tied[np.argmax(behind.sum(axis=1)[tied])])
        counts[index] += sizes
        choice[group] = schema.SPLITS[index]
    return frame["group"].map(choice)


def _distribution(frame: pd.DataFrame) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for domain, rows in frame.groupby("domain", sort=True):
        per_split: dict[str, Any] = {}
        for split in schema.SPLITS:
            part = rows[rows["split"] == split]
            unacceptable = part[part["label"] == schema.UNACCEPTABLE]
            per_split[split] = {
                "rows": int(len(part)),
                "share": round(len(part) / len(rows), 4),
                "acceptable_share": round(float(part["label"].mean()), 4) if len(part) else None,
                "sources": {
                    str(k): int(v)
                    for k, v in sorted(part["detailed_source"].value_counts().items())
                },
                "error_types": {
                    str(k): int(v)
                    for k, v in sorted(unacceptable["error_type"].value_counts().items())
                },
            }
        out[str(domain)] = {
            "rows": int(len(rows)),
            "acceptable_share": round(float(rows["label"].mean()), 4),
            "groups": int(rows["group"].nunique()),
            "splits": per_split,
        }
    return out


def _pins(
    frame: pd.DataFrame, paths: list[str], language: str = "ru"
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per row the split and id the pins demand (``pinned_split``, ``pinned_id``; null when
    free), the largest id each split and id scope ever had (``floor``, keyed by split and
    :func:`id_scope`: the domain in train and validation, ``""`` in test; kept rows and
    every row a pin names, removed ones too), every identity a pin names (``named``:
    errata tell a row set aside before the split from an unknown id with it), and what
    the pins list that is no longer in the data.

    A row of a published release is kept by its own ``published_split`` and
    ``published_id``; the pins (``split.pin``) match the other rows, by published identity
    when the row has one, else by normalised text (``sentence_key`` in ``language``,
    ``corpus.language``); earlier pins and earlier pin rows win.
    The report tells the two apart: ``published_kept`` rows kept by their own identity,
    ``matched_by_pin`` rows a pin placed (with v1.1's config, where every published row
    carries its identity, the latter is 0 and nothing is wrong).
    """
    n = len(frame)
    split = pd.Series([None] * n, index=frame.index, dtype=object)
    ids = pd.Series(pd.array([None] * n, dtype="Int64"), index=frame.index)
    if "published_split" in frame.columns:
        published = frame["published_split"].notna() & frame["published_id"].notna()
        split[published] = frame.loc[published, "published_split"]
        ids[published] = frame.loc[published, "published_id"]
    report: dict[str, Any] = {
        "paths": list(paths),
        "published_kept": int(split.notna().sum()),
        "matched_by_pin": 0,
        "removed": 0,
        "removed_examples": [],
    }
    floor: dict[tuple[str, str], int] = {}
    named: set[tuple[str, str, int]] = set()
    if not paths:
        pinned = pd.DataFrame({"pinned_split": split, "pinned_id": ids})
        return pinned, {**report, "floor": floor, "named": named}
    keys = [sentence_key(s, language) for s in frame["sentence"]]
    has_identity = split.notna()
    identity = [
        (sp, id_scope(sp, d), int(i)) if known else None
        for sp, d, i, known in zip(
            split, frame["domain"], ids.fillna(-1), has_identity, strict=True
        )
    ]
    by_pin = 0
    for path in paths:
        pins = load_pin(path, language)
        with_ids = pins.dropna(subset=["id"])
        for (name, scope), pin_ids in with_ids.groupby(["split", "scope"])["id"]:
            place = (str(name), str(scope))
            floor[place] = max(floor.get(place, -1), int(pin_ids.max()))
        named.update(
            zip(with_ids["split"], with_ids["scope"], with_ids["id"].astype(int), strict=True)
        )
        by_identity = {
            (sp, sc, int(i)): k
            for k, (sp, sc, i) in enumerate(
                zip(pins["split"], pins["scope"], pins["id"], strict=True)
            )
            if not pd.isna(i)
        }
        by_key: dict[str, int] = {}
        for k, key in enumerate(pins["key"]):
            by_key.setdefault(key, k)
        matched = np.zeros(len(pins), bool)
        for row, (key, ident) in enumerate(zip(keys, identity, strict=True)):
            k = by_identity.get(ident) if ident is not None else None
            if k is None:
                k = by_key.get(key)
            if k is None:
                continue
            matched[k] = True
            index = frame.index[row]
            if split[index] is None:
                split[index] = pins["split"].iat[k]
                if not pd.isna(pins["id"].iat[k]):
                    ids[index] = pins["id"].iat[k]
                by_pin += 1
        removed = pins.loc[~matched, "key"].tolist()
        report["removed"] += len(removed)
        report["removed_examples"] += removed[: max(0, 20 - len(report["removed_examples"]))]
    report["matched_by_pin"] = by_pin
    pinned = pd.DataFrame({"pinned_split": split, "pinned_id": ids})
    return pinned, {**report, "floor": floor, "named": named}


def _straddling(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Groups whose pinned rows sit in more than one split: the pins win, the group is
    split, and the report lists it."""
    pinned = frame[frame["pinned_split"].notna()]
    spread = pinned.groupby("group")["pinned_split"].nunique()
    out = []
    for group in sorted(spread[spread > 1].index):
        rows = frame[frame["group"] == group]
        out.append(
            {
                "group": str(group),
                "rows": [
                    {"sentence": s, "split": sp}
                    for s, sp in zip(rows["sentence"], rows["split"], strict=True)
                ],
            }
        )
    return out


def _assign_ids(frame: pd.DataFrame, seed: int, floor: dict[tuple[str, str], int]) -> pd.Series:
    """Kept ids for pinned rows; new rows get ids after the largest id of their split and
    id scope (:func:`id_scope`: in train and validation the domain, whose published files
    are numbered apart; in test the whole split, one numbering that hides the domain), in
    a seeded hash order of their text, so new test ids reveal neither domain nor label.
    "Largest" counts ``floor`` too (every id a pin names, rows removed since included):
    a removed row's id is never given to another sentence."""
    ids = frame["pinned_id"].copy()
    scopes = pd.Series(id_scopes(frame), index=frame.index)
    for split in schema.SPLITS:
        in_split = (frame["split"] == split).to_numpy()
        for scope in sorted(set(scopes[in_split])):
            place = in_split & (scopes == scope).to_numpy()
            new = frame.index[place & ids.isna().to_numpy()]
            if len(new) == 0:
                continue
            kept = ids[place].dropna()
            largest = int(kept.max()) if len(kept) else -1
            start = max(largest, floor.get((split, scope), -1)) + 1
            order = sorted(new, key=lambda i: (stable_hash(str(seed), frame.at[i, "sentence"]), i))
            ids[order] = np.arange(start, start + len(order))
    return ids.astype("int64")


def _place_new_rows(
    frame: pd.DataFrame, settings: Split, domains: list[str], seed: int
) -> pd.Series:
    """The split of every row: pinned rows keep theirs, rows of a pinned group join it,
    and each domain's new rows are split among themselves (``split.new_rows``).

    ``new_rows`` other than ``stratified`` sends a domain's new rows to that one split
    only where the domain has pinned rows (a published release whose test is fixed); a
    domain new in this version has no split to keep and is split by ``split.ratios``. A
    split whose ratio is 0 for the domain cannot take them (exit 1, naming both keys)."""
    policy = settings.new_rows
    split = frame["pinned_split"].copy()
    groups = group_splits(frame)
    follow = split.isna() & frame["group"].isin(groups.keys())
    split[follow] = frame.loc[follow, "group"].map(groups)
    new = new_rows(frame)
    placed = (
        placed_by_policy(frame) if policy != STRATIFIED else pd.Series(False, index=frame.index)
    )
    for domain in domains:
        mask = new & (frame["domain"] == domain)
        if not mask.any():
            continue
        ratios = _ratios(settings, domain)
        if not (placed & mask).any():
            split[mask] = assign_splits(frame[mask], ratios, seed)
            continue
        if ratios[schema.SPLIT_INDEX[policy]] == 0:
            raise params_error(
                f"split.new_rows is {policy}, but split.ratios.{domain} gives {policy} no "
                f"rows: {int(mask.sum())} new {domain} row(s) cannot go there",
                hint="set split.new_rows: stratified, or a split that domain has",
            )
        split[mask] = policy
    return split


def _new_row_counts(frame: pd.DataFrame, new: pd.Series) -> dict[str, Any]:
    """Per domain, how many new rows went to each split."""
    out: dict[str, Any] = {}
    for domain, rows in frame[new].groupby("domain", sort=True):
        sizes = rows["split"].value_counts()
        out[str(domain)] = {s: int(sizes.get(s, 0)) for s in schema.SPLITS}
    return out


OPEN_SPLITS = schema.SPLITS[:2]  # train and validation: public in every detail


def public_report(report: dict[str, Any], frame: pd.DataFrame) -> dict[str, Any]:
    """What git may track of the split's full ``report`` over ``frame`` (the rows kept):
    per domain only its train and validation rows; the test split as its row count per
    released configuration (``learner`` or ``default``, as the release's own folders
    show it); errata per field for train and validation. Nothing else of a test row: move
    a test row to another domain or source, flip its label or category, and this does
    not change."""
    test = frame[frame["split"] == "test"]
    # the release's configs (``rucola.release.public.test_config``): learner or default
    configs = test["domain"].map(lambda d: schema.LEARNER if d == schema.LEARNER else "default")
    configs = configs.value_counts()
    domains = {
        domain: {"splits": {s: _open_split(info["splits"][s]) for s in OPEN_SPLITS}}
        for domain, info in report["domains"].items()
    }
    new = report["new_rows"]
    errata = report["errata"]
    return {
        "seed": report["seed"],
        "ratios": report["ratios"],
        "domains": domains,
        "test": {"rows": len(test), "configs": {str(k): int(v) for k, v in configs.items()}},
        "unlabelled": report["unlabelled"],
        "pin": report["pin"],
        "new_rows": {
            "policy": new["policy"],
            "rows": new["rows"],
            "test": sum(sizes.get("test", 0) for sizes in new["by_domain"].values()),
            "by_domain": {
                domain: {s: sizes[s] for s in OPEN_SPLITS}
                for domain, sizes in new["by_domain"].items()
            },
        },
        "errata": {
            "files": errata["files"],
            "errata": sum(sum(errata[s].values()) for s in OPEN_SPLITS),
            **{s: errata[s] for s in OPEN_SPLITS},
        },
    }


def _open_split(detail: dict[str, Any]) -> dict[str, Any]:
    """A train or validation split of a domain, without its share of the domain's rows
    (the domain's total counts its hidden test rows)."""
    return {k: v for k, v in detail.items() if k != "share"}


def summary_lines(report: dict[str, Any]) -> list[str]:
    """What ``rucola split`` prints: sizes per domain, the published test rows whose
    domain is hidden (without the gold they are in no domain, so a domain's "test 0"
    would mislead), and what the pins did: rows kept by their own published identity,
    rows a ``split.pin`` entry matched, and the new rows' splits per domain."""
    lines = []
    for domain, info in report["domains"].items():
        sizes = ", ".join(f"{s} {v['rows']}" for s, v in info["splits"].items())
        lines.append(f"split: {domain}: {sizes}")
    hidden = {s: n for s, n in report["unlabelled"].items() if n}
    if hidden:
        sizes = ", ".join(f"{s} {n}" for s, n in hidden.items())
        lines.append(f"split: published rows without labels or domain (no gold): {sizes}")
    pin, new = report["pin"], report["new_rows"]
    if pin["paths"] or pin["published_kept"]:
        by_domain = "; ".join(
            f"{domain} " + ", ".join(f"{s} {n}" for s, n in sizes.items())
            for domain, sizes in new["by_domain"].items()
        )
        joined = pin["new_in_pinned_groups"]
        lines.append(
            f"split: {pin['published_kept']} published rows kept their own split and id, "
            f"{pin['matched_by_pin']} rows matched by split.pin, {pin['removed']} pinned "
            f"rows no longer in the data; {new['rows']} new rows ({new['policy']}"
            + (f": {by_domain}" if by_domain else "")
            + ")"
            + (f", {joined} more joined their pinned group" if joined else "")
        )
    return lines


def run_split(
    settings: Split, source: str | Path, errata: ErrataOptions | None = None
) -> dict[str, Any]:
    """The stage over ``source`` (the filtered rows, ``filter.out``): every row read is
    kept with a split and an id, unless an erratum (``errata``: ``extract.errata`` and what
    applying it needs) removes it; those rows go to ``split.rejected`` (reason
    ``erratum``, the erratum's reason as the detail). The errata files are read and checked
    first, and every erratum is checked against the rows before any is applied: a bad one
    is one line naming its file and line, and nothing is written. No ``errata``: none."""
    corrections = read_errata(errata) if errata is not None else []
    with StageRun(
        "split",
        report=settings.report,
        private_report=settings.private_report,
        out=settings.out,
        rejected=settings.rejected,
        outputs=[settings.plot, settings.plot_png],
        set_aside_schema=REJECTED_SCHEMA,
    ) as run:
        frame = read_frame(source, hint="run 'rucola filter' first", types=TYPES)
        run.count_read(len(frame))
        applied, full = _split(frame, settings, Path(source), corrections, errata)
        run.set_aside(applied.removed, REASON, applied.details)
        language = errata.language if errata is not None else "ru"
        _length_plot(applied.frame, run.path(settings.plot), run.path(settings.plot_png), language)
        public = public_report(full, applied.frame)
        return {**run.finish(_kept_table(applied.frame), private=full, **public), **full}


def _length_plot(frame: pd.DataFrame, csv_path: Path, png_path: Path, language: str) -> None:
    """The token-length histogram of the public rows: train and validation per domain,
    every test row in one column whatever its domain; tokens are ``language``'s profile's
    (``corpus.language``)."""
    from rucola.corpus.languages.profile import profile
    from rucola.corpus.plots import token_length_histogram

    tokens = profile(language)
    if "n_tokens" not in frame.columns:  # rows split without measuring (a test's frame)
        frame = frame.assign(n_tokens=[len(tokens.tokenize(s)) for s in frame["sentence"]])
    test = frame["split"] == "test"
    column = frame["domain"].astype("object").where(~test, TEST)
    histogram = pd.DataFrame({"domain": column, "n_tokens": frame["n_tokens"]})
    title = "Sentence length: train and validation per domain"
    if test.any():  # a corpus without test rows (CoLA publishes none) has no test series
        title += ", test as one"
    token_length_histogram(histogram, csv_path, png_path, title, tokens_named=tokens.tokens_named)


def _kept_table(frame: pd.DataFrame) -> pa.Table:
    """The split rows as written; ``review`` is text even when no row has one (a column of
    nulls would have no type the readers could check)."""
    table = table_from_frame(frame)
    where = table.schema.get_field_index(REVIEW)
    return table.set_column(where, REVIEW, table.column(REVIEW).cast(schema.REVIEW_FIELD.type))


def _split(
    frame: pd.DataFrame,
    settings: Split,
    input_path: Path,
    errata: list[Erratum] | None = None,
    options: ErrataOptions | None = None,
) -> tuple[Applied, dict[str, Any]]:
    """Splits and ids for ``frame``'s rows, then the errata; the rows kept, the rows the
    errata removed, and the report."""
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise RucolaError(f"missing column(s) {', '.join(missing)}", input_path)
    # a group of published test rows may mix their hidden domains: they are pinned to test
    # and group as their domain is hidden (``corpus.filters.duplicates.grouping_domains``)
    hidden = (
        frame["published_split"] == "test"
        if "published_split" in frame
        else pd.Series(False, index=frame.index)
    )
    mixed = frame[~hidden].groupby("group")["domain"].nunique()
    if (mixed > 1).any():
        raise RucolaError(f"group '{mixed[mixed > 1].index[0]}' spans two domains", input_path)
    seed = settings.seed
    language = options.language if options is not None else "ru"  # corpus.language
    pins, pin_report = _pins(frame, list(settings.pin), language)
    floor = pin_report.pop("floor")
    named = pin_report.pop("named")
    frame["pinned_split"] = pins["pinned_split"]
    frame["pinned_id"] = pins["pinned_id"]
    unknown = frame["domain"].isna()
    if (unknown & frame["pinned_split"].isna()).any():
        row = frame[unknown & frame["pinned_split"].isna()].iloc[0]
        raise RucolaError(
            f"row without a domain and without a published split: {row.get('origin')}",
            input_path,
        )
    domains = sorted(frame.loc[~unknown, "domain"].unique())
    frame["split"] = _place_new_rows(frame, settings, domains, seed)
    frame["id"] = _assign_ids(frame, seed, floor)
    # Rows in a fixed order: split, id scope (domain in train and validation), id.
    frame["_split"] = frame["split"].map(schema.SPLIT_INDEX)
    frame["_scope"] = id_scopes(frame)
    frame = frame.sort_values(["_split", "_scope", "id", "sentence"], kind="stable")
    frame = frame.drop(columns=["_split", "_scope", "pinned_id"]).reset_index(drop=True)
    # errata last: the rows they name have their published place and id already
    applied = apply_errata(frame, errata or [], named, options)
    frame = applied.frame
    new = new_rows(frame)
    straddling = _straddling(frame)
    unpinned = frame["pinned_split"].isna()
    report = {
        "seed": seed,
        "ratios": {d: _ratios(settings, d) for d in domains},
        "domains": _distribution(frame),
        "unlabelled": {
            split: int(((frame["split"] == split) & (frame["label"] == schema.UNLABELLED)).sum())
            for split in schema.SPLITS
        },
        "pin": {
            **pin_report,
            "new": int(unpinned.sum()),
            "new_in_pinned_groups": int((unpinned & ~new).sum()),
            "straddling_groups": len(straddling),
            "straddling": straddling[:50],
        },
        "new_rows": {
            "policy": settings.new_rows,
            "rows": int(new.sum()),
            "by_domain": _new_row_counts(frame, new),
        },
        "errata": applied.report,
    }
    return applied, report
