"""Pinned splits: rows of a previous release keep their split and id in the next one.

A new version must never move a sentence from train into test, nor renumber a row that
leaderboard submissions refer to. The pin can be a release folder (``data/release/rucola``),
the split stage's parquet, or a folder in the published RuCoLA CSV layout. A row is matched
to the pin by its published identity (split, id scope, id) when it carries one, so a row
whose text a correction changed keeps its place; otherwise by its text
(``corpus.dedup.sentence_key``: the same sentence).

A kept release (``rucola release keep``: ``data/releases/vX.Y.Z/rucola``) is a release
folder like any other. Its test rows have no domain there (the public form hides it), and
the pin needs none: a test row's identity is its split and id (``id_scope``), and a row is
matched by that identity or by its text, never by its domain. So the pin does not read the
private gold beside a kept folder; only ``release diff --private`` does, for the labels.

Rows the pins leave free (:func:`new_rows`) are split among themselves; a row no pin names
but whose group holds pinned rows follows its group (:func:`group_splits`), so a group is
never cut by a new row.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rucola.corpus import schema
from rucola.corpus.dedup import sentence_key
from rucola.corpus.sources.rucola_csv import is_published_layout, published_frame
from rucola.errors import RucolaError
from rucola.stage import read_frame, read_table

# split.new_rows: split new rows by the ratios, or send them all to one split (the schema,
# rucola.settings.NewRows, holds the key to these values when params are read).
STRATIFIED = "stratified"


def group_splits(frame: pd.DataFrame) -> dict[str, str]:
    """The split of every group that holds pinned rows (``pinned_split`` set): where most
    of its pinned rows are, the earlier split on a tie. The group's other rows join it
    there; its pinned rows stay where they are even when they disagree (a straddling
    group). Computed over all rows, whatever their domain: an unlabelled published test
    row has none, yet a new near-duplicate of it must follow it into test."""
    pinned = frame.loc[frame["pinned_split"].notna(), ["group", "pinned_split"]]
    if pinned.empty:
        return {}
    tally = pinned.value_counts(["group", "pinned_split"]).reset_index(name="n")
    tally["rank"] = tally["pinned_split"].map(schema.SPLIT_INDEX)
    tally = tally.sort_values(["group", "n", "rank"], ascending=[True, False, True])
    first = tally.drop_duplicates("group")
    return dict(zip(first["group"], first["pinned_split"], strict=True))


def new_rows(frame: pd.DataFrame) -> pd.Series:
    """True for the rows no pin holds, neither themselves (``pinned_split``) nor through
    their group: the rows ``split.new_rows`` places and validation checks against
    ``split.ratios``. Without any pin every row is new."""
    unpinned = frame["pinned_split"].isna()
    held = frame["group"].isin(group_splits(frame).keys())
    return unpinned & ~held


def placed_by_policy(frame: pd.DataFrame) -> pd.Series:
    """True for the new rows (:func:`new_rows`) of a domain with pinned rows: the rows a
    ``split.new_rows`` naming one split sends there. A domain new in this version has no
    published split to keep, so its rows are split by the ratios whatever the policy."""
    pinned_domains = frame.loc[frame["pinned_split"].notna(), "domain"].dropna().unique()
    return new_rows(frame) & frame["domain"].isin(pinned_domains)


def id_scopes(frame: pd.DataFrame) -> list[str]:
    """:func:`id_scope` of every row of a frame with ``split`` and ``domain`` columns."""
    return [id_scope(s, d) for s, d in zip(frame["split"], frame["domain"], strict=True)]


def id_scope(split: object, domain: object) -> str:
    """Ids are unique per published file: per split and domain in train and validation,
    per split in the test file, which hides the domain."""
    if split == "test" or domain is None or (isinstance(domain, float) and pd.isna(domain)):
        return ""
    return str(domain)


def read_release_folder(folder: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """The rows of a release folder's ``default`` config (every split) with a ``split``
    column, file by file in name order: the folder ``release build`` writes. The
    ``learner`` config's rows follow: they are in no other config (``release.public``)."""
    files = sorted((folder / "default").glob("*.parquet"))
    if not files:
        raise RucolaError("no default/*.parquet files: not a release folder", folder)
    files += sorted((folder / schema.LEARNER).glob("*.parquet"))
    parts = []
    for path in files:
        table = read_frame(path, "release file", columns)
        table["split"] = path.stem.split("-")[0]
        parts.append(table)
    return pd.concat(parts, ignore_index=True)


def _from_parquet(path: Path) -> pd.DataFrame:
    table = read_table(path, "pinned release")
    if not {"sentence", "split"} <= set(table.column_names):
        raise RucolaError("a pinned parquet needs 'sentence' and 'split' columns", path)
    columns = [c for c in ("sentence", "split", "id", "domain") if c in table.column_names]
    return table.select(columns).to_pandas()


def load_pin(path: str | Path, language: str = "ru") -> pd.DataFrame:
    """One row per pinned sentence: normalised ``key`` (``sentence_key`` in ``language``,
    ``corpus.language``), ``split``, id ``scope`` and ``id`` (null when the pin has no
    ids), in the pin's order (earlier rows win on a repeat)."""
    path = Path(path)
    if path.is_dir():
        if is_published_layout(path):  # in the published order: earlier rows win on a repeat
            frame = published_frame(path)
        else:
            frame = read_release_folder(path, ["id", "sentence", "domain"]).sort_values(
                "split", key=lambda s: s.map(schema.SPLIT_INDEX), kind="stable"
            )  # train first: a sentence a model was trained on stays in train
    elif path.is_file() and path.suffix == ".parquet":
        frame = _from_parquet(path)
    else:
        raise RucolaError(
            "split.pin must be a release folder, a parquet file or a folder of "
            "published RuCoLA CSVs",
            path,
        )
    unknown = set(frame["split"]) - set(schema.SPLITS)
    if unknown:
        raise RucolaError(f"unknown split name(s) {sorted(unknown)} in the pin", path)
    if "domain" not in frame.columns:
        frame = frame.assign(domain=None)
    ids = frame["id"] if "id" in frame.columns else pd.Series(None, index=frame.index)
    return pd.DataFrame(
        {
            "key": [sentence_key(s, language) for s in frame["sentence"]],
            "split": frame["split"].astype(str).to_numpy(),
            "scope": id_scopes(frame),
            "id": pd.array(ids.to_numpy(), dtype="Int64"),
        }
    ).reset_index(drop=True)
