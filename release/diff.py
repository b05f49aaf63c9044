"""What changed between two releases, row by row, and which correction caused each change.

Rows are matched by their identity, the published key that submissions and users rely on:
split, id scope (the domain in train and validation, nothing in test) and id. A row present
in both with other text was corrected; with another label relabelled; with another category
re-categorised. A row only in the old release whose text reappears only in the new one under
another identity moved (a pin forbids that; the diff shows it if it happens). The rest were
added or removed. The cause of a change comes from the new build's ledger
(``private/corrections.parquet`` beside the release folder, written by ``release build``;
see ``release.ledger``), from the entries of that change's own action: a row whose text
extraction repaired and whose label an erratum changed is listed as corrected with the
repair as its cause and as relabelled with the erratum's reason.

Two diffs. The public one (``rucola release diff``, the published CHANGELOG) compares the
public form of both releases (``release.public.hide``): a test row there is its id and
text, so for test rows it can list only rows added, removed, moved or with corrected text,
and never a cause (the ledger's test entries are not read). The private one
(``rucola release diff --private``, for the maintainers) reads the hidden gold from
``../private`` and the whole ledger: relabelled and recategorised test rows and every
cause. It must never be published.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pandas as pd

from rucola.corpus.dedup import sentence_key
from rucola.corpus.pin import id_scopes, read_release_folder
from rucola.corpus.sources.rucola_csv import (
    FRAME_COLUMNS,
    GOLD_FILE,
    PUBLISHED_FILES,
    is_published_layout,
    published_frame,
)
from rucola.corpus.sources.text import read_text
from rucola.csvfile import locate_error
from rucola.errors import RucolaError
from rucola.release.ledger import LEDGER_FILE
from rucola.release.public import GOLD_FILES, hide
from rucola.stage import read_frame

COLUMNS = FRAME_COLUMNS
KEY = ["split", "scope", "id"]
KINDS = ["added", "removed", "corrected", "relabelled", "recategorised", "moved"]
CAUSED = ("removed", "corrected", "relabelled", "recategorised")  # the ledger's actions
LEDGER = LEDGER_FILE
LISTED = 200  # rows listed per kind in the Markdown section


def _from_folder(path: Path, private: bool) -> pd.DataFrame:
    """A release folder; with ``private``, its test rows labelled from ``../private`` where
    the gold holds them."""
    frame = read_release_folder(path).astype(object)
    test = frame["split"] == "test"
    golds = [path.parent / "private" / name for name in GOLD_FILES.values()] if private else []
    golds = [read_frame(p, "private gold") for p in golds if p.is_file()]
    if golds and test.any():
        gold = pd.concat(golds, ignore_index=True).set_index("id")
        held = test & frame["id"].isin(gold.index)  # published test rows may lack gold
        for column in ("label", "error_type", "detailed_source", "domain"):
            if column in gold.columns:
                values = gold[column].astype(object)
                frame.loc[held, column] = frame.loc[held, "id"].map(values).to_numpy()
    return frame


def _published(folder: Path) -> pd.DataFrame:
    """A folder in the published CSV layout; a ``csv.Error`` of its reader (a cell beyond
    the csv module's field size limit) names the file and line it came from."""
    try:
        return published_frame(folder)
    except csv.Error as exc:
        for name in (GOLD_FILE, *PUBLISHED_FILES):  # the order the reader reads them in
            file = folder / name
            found = locate_error(file, read_text(file, "utf-8")) if file.is_file() else None
            if found is not None:
                raise found from None
        raise RucolaError(f"not a readable CSV: {exc}", folder) from None


def read_release(path: str | Path, private: bool = False) -> pd.DataFrame:
    """A release folder, a split parquet, or a folder in the published RuCoLA layout,
    indexed by identity: in public form unless ``private`` (then with the hidden test
    labels, from ``../private`` for a folder)."""
    path = Path(path)
    if path.is_file() and path.suffix == ".parquet":
        frame = read_frame(path, "release")
    elif is_published_layout(path):
        frame = _published(path)
    elif path.is_dir():
        frame = _from_folder(path, private)
    else:
        raise RucolaError(
            "expected a release folder, a split parquet or a published RuCoLA folder", path
        )
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise RucolaError(f"missing column(s) {', '.join(missing)}", path)
    frame = frame[COLUMNS].copy()
    frame = frame.astype(object).where(frame.notna(), None)
    if not private:  # what the public diff may see of a row: its public form only
        frame = hide(frame)
    frame["id"] = frame["id"].astype("int64")
    frame["scope"] = id_scopes(frame)
    repeated = frame.duplicated(KEY)
    if repeated.any():
        first = frame.loc[repeated].iloc[0]
        raise RucolaError(f"id {first['id']} occurs twice in split '{first['split']}'", path)
    return frame.set_index(KEY, drop=False).rename_axis(["_split", "_scope", "_id"])


def read_ledger(path: str | Path, private: bool = False) -> pd.DataFrame | None:
    """The new build's corrections ledger, when the release folder has one beside it;
    without ``private``, its train and validation entries only (a test row's cause is
    private: "relabelled by the annotators" would tell what its label was)."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    ledger = folder.parent / "private" / LEDGER
    if not ledger.is_file():
        return None
    frame = read_frame(ledger, "corrections ledger")
    if not private:
        frame = frame[frame["split"] != "test"].reset_index(drop=True)
    frame["scope"] = id_scopes(frame)
    return frame.set_index(["split", "scope", "id"])


def _causes(ledger: pd.DataFrame | None) -> dict[tuple, list[tuple[str, str]]]:
    """Identity -> (action, reason) of every ledger entry, in the ledger's order."""
    out: dict[tuple, list[tuple[str, str]]] = {}
    if ledger is None:
        return out
    for identity, action, reason in zip(
        ledger.index, ledger["action"], ledger["reason"], strict=True
    ):
        out.setdefault(identity, []).append((str(action), str(reason)))
    return out


def _same(a: Any, b: Any) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and str(a) == str(b))


HIDDEN = "(hidden)"


def _place(identity: tuple) -> str:
    """Where a row was, as the listing writes it: ``split domain id`` in train and
    validation (ids repeat across domains there), ``split id`` in test (one numbering)."""
    split, scope, id_ = identity
    return " ".join(str(part) for part in (split, scope, id_) if part != "")


def _row(identity: tuple, frame: pd.DataFrame, private: bool, **extra: Any) -> dict[str, Any]:
    """One listed change. A test row's domain, source, labels and categories stay hidden
    unless ``private``: the changelog is published."""
    row = frame.loc[identity]
    test = identity[0] == "test" and not private
    if test and "after" in extra:
        extra = {**extra, "before": HIDDEN, "after": HIDDEN}
    return {
        "split": identity[0],
        "domain": None if test else row["domain"],
        "id": int(identity[2]),
        "sentence": row["sentence"],
        "detailed_source": HIDDEN if test else row["detailed_source"],
        **extra,
    }


def diff_releases(
    old: pd.DataFrame,
    new: pd.DataFrame,
    ledger: pd.DataFrame | None = None,
    private: bool = False,
    language: str = "ru",
) -> dict[str, Any]:
    """The changes from ``old`` to ``new``; ``private`` shows test rows' hidden values (the
    frames must then have them: ``read_release(..., private=True)``); a row moved is
    matched by ``sentence_key`` in ``language`` (``corpus.language``)."""
    rows: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    causes = _causes(ledger)

    def cause(identity: tuple, action: str | None) -> str | None:
        """The ledger's reasons for ``identity``'s change ``action`` (any action: None),
        joined when there are several (homoglyphs repaired, then an erratum's text)."""
        entries = causes.get(identity, [])
        reasons = [r for a, r in entries if action is None or a == action]
        return "; ".join(dict.fromkeys(reasons)) if reasons else None

    common = old.index.intersection(new.index, sort=False)
    for identity in common:
        a, b = old.loc[identity], new.loc[identity]
        if a["sentence"] != b["sentence"]:
            rows["corrected"].append(
                _row(
                    identity,
                    new,
                    private,
                    before=a["sentence"],
                    cause=cause(identity, "corrected"),
                )
            )
        if not _same(a["label"], b["label"]):
            rows["relabelled"].append(
                _row(
                    identity,
                    new,
                    private,
                    before=a["label"],
                    after=b["label"],
                    cause=cause(identity, "relabelled"),
                )
            )
        if not _same(a["error_type"], b["error_type"]):
            rows["recategorised"].append(
                _row(
                    identity,
                    new,
                    private,
                    before=a["error_type"],
                    after=b["error_type"],
                    cause=cause(identity, "recategorised"),
                )
            )
    only_old = old.index.difference(new.index, sort=False)
    only_new = new.index.difference(old.index, sort=False)
    new_by_key: dict[str, tuple] = {}
    for identity in only_new:
        new_by_key.setdefault(sentence_key(new.loc[identity, "sentence"], language), identity)
    moved_to: set[tuple] = set()
    for identity in only_old:
        target = new_by_key.get(sentence_key(old.loc[identity, "sentence"], language))
        if target is not None and target not in moved_to:
            moved_to.add(target)
            rows["moved"].append(
                _row(
                    target,
                    new,
                    private,
                    before=_place(identity),
                    cause=cause(target, None),
                )
            )
        else:
            rows["removed"].append(_row(identity, old, private, cause=cause(identity, "removed")))
    for identity in only_new:
        if identity not in moved_to:
            rows["added"].append(_row(identity, new, private))

    result: dict[str, Any] = {"old_rows": int(len(old)), "new_rows": int(len(new))}
    for kind, listed in rows.items():
        frame = pd.DataFrame(listed, columns=["split", "detailed_source", "before"])
        entry: dict[str, Any] = {
            "rows": len(listed),
            "by_source": {
                str(k): int(v)
                for k, v in sorted(frame["detailed_source"].fillna(HIDDEN).value_counts().items())
            },
            "by_split": {str(k): int(v) for k, v in sorted(frame["split"].value_counts().items())},
            "list": listed,
        }
        if kind == "moved":
            moves = [f"{r['before'].split()[0]} -> {r['split']}" for r in listed]
            entry["by_move"] = {k: moves.count(k) for k in sorted(set(moves))}
            entry["train_to_test"] = moves.count("train -> test")
        if kind in CAUSED:
            causes = [r["cause"] or "(no recorded cause)" for r in listed]
            entry["by_cause"] = {k: causes.count(k) for k in sorted(set(causes))}
        result[kind] = entry
    return result


def _cell(value: Any) -> str:
    return "–" if value is None else str(value).replace("|", "\\|").replace("\n", " ")


def _domain_cell(row: dict[str, Any]) -> str:
    """The listing's domain: a train or validation row's own (its id is unique only within
    its domain), ``(hidden)`` for a public test row (one numbering; its domain is hidden)."""
    if row["domain"] is None:
        return HIDDEN if row["split"] == "test" else "–"
    return _cell(row["domain"])


def to_markdown(result: dict[str, Any], title: str) -> str:
    """The diff as Markdown: the counts, then every kind of change listed row by row (up to
    ``LISTED`` rows each), added rows too, each row named by split, domain and id."""
    lines = [
        f"## {title}",
        "",
        f"{result['old_rows']} rows before, {result['new_rows']} rows after.",
        "",
        "| change | rows | by split | by source |",
        "|---|---|---|---|",
    ]
    for kind in KINDS:
        entry = result[kind]
        by_split = (
            ", ".join(f"{k} {v}" for k, v in entry.get("by_move", entry["by_split"]).items()) or "-"
        )
        by_source = ", ".join(f"{k} {v}" for k, v in entry["by_source"].items()) or "-"
        lines.append(f"| {kind} | {entry['rows']} | {by_split} | {by_source} |")
    for kind in ("added", "corrected", "removed", "relabelled", "recategorised", "moved"):
        listed = result[kind]["list"]
        if not listed:
            continue
        lines += ["", f"### {kind.capitalize()}", ""]
        lines += [
            "| split | domain | id | sentence | change | cause |",
            "|---|---|---|---|---|---|",
        ]
        for row in listed[:LISTED]:
            if kind == "corrected":
                change = f"was: {row['before']}"
            elif kind in ("relabelled", "recategorised"):
                change = f"{_cell(row['before'])} -> {_cell(row['after'])}"
            elif kind == "moved":
                change = f"from {row['before']}"
            else:
                change = kind
            lines.append(
                f"| {row['split']} | {_domain_cell(row)} | {row['id']} "
                f"| {_cell(row['sentence'])} | {_cell(change)} | {_cell(row.get('cause'))} |"
            )
        if len(listed) > LISTED:
            lines.append(f"| … | | | {len(listed) - LISTED} more | | |")
    return "\n".join(lines) + "\n"


def release_diff(
    old_path: str | Path, new_path: str | Path, private: bool = False, language: str = "ru"
) -> dict[str, Any]:
    """The public diff of two releases (``private``: the maintainers' one, see above) of a
    corpus in ``language`` (``corpus.language``)."""
    return diff_releases(
        read_release(old_path, private),
        read_release(new_path, private),
        read_ledger(new_path, private),
        private,
        language,
    )
