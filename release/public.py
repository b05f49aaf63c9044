"""The public form of the release's rows: the one place that decides what of a row is public.

Every public artefact (the Hugging Face parquet files, the CSV layout, the card, the plots,
the public diff and the changelog) is built from what this module returns, never from the
split rows themselves, so none of them can see a hidden value: a test row's public form is
its ``id`` and ``sentence``, ``label = -1`` and every other released column null, whatever
the row held. ``n_tokens`` is kept (it is a function of the sentence) for the length plot.

Configurations: ``default`` is RuCoLA's two domains (and the published test rows whose
domain is not even known to us); a domain beyond them (``learner``) is a configuration of
its own, with its own hidden test split: its domain is no secret, its labels are. Which
configuration a test row goes to is therefore the one thing read from its domain, and only
as "learner or not". ``in_domain`` and ``out_of_domain`` have no test split: a per-domain
test file would tell which hidden test row is which domain.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from rucola.corpus import schema

RELEASE_COLUMNS = schema.RELEASE_SCHEMA.names
HIDDEN_LABEL = -1
DEFAULT = "default"
# config -> domains of its rows, in the order of the card and the folder
CONFIGS = {
    DEFAULT: schema.RUCOLA_DOMAINS,
    schema.IN_DOMAIN: [schema.IN_DOMAIN],
    schema.OUT_OF_DOMAIN: [schema.OUT_OF_DOMAIN],
    schema.LEARNER: [schema.LEARNER],
}
# the configs with a (hidden) test split: each test row is in exactly one of them, and
# each config's gold goes to its own file of the private folder (``rucola evaluate --config``)
TEST_CONFIGS = [DEFAULT, schema.LEARNER]
GOLD_FILES = {DEFAULT: "test_gold.parquet", schema.LEARNER: "learner_test_gold.parquet"}
# the validated split data's hash, which ``publish`` checks: a hash of the hidden labels
# too, so it is kept in the private folder, never on the public card
SOURCE_FILE = "source.json"
_STRING_COLUMNS = schema.columns_of_type(schema.RELEASE_SCHEMA, pa.types.is_string)


def test_config(domain: pd.Series) -> pd.Series:
    """The config a row's test split belongs to: ``learner`` for learner rows, else
    ``default`` (RuCoLA's domains, and published test rows with no known domain)."""
    return domain.map(lambda d: schema.LEARNER if d == schema.LEARNER else DEFAULT)


def hide(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (released columns, ``split`` and optional extras) with every test row in its
    public form: ``label = -1`` and every released column but ``id`` and ``sentence`` null.
    The one function that hides; every public writer goes through it."""
    out = rows.reset_index(drop=True).copy()
    out = out.astype({c: object for c in _STRING_COLUMNS if c in out.columns})
    out = out.where(out.notna(), None)
    test = (out["split"] == "test").to_numpy()
    if test.any():
        if "label" in out.columns:
            label = out["label"].astype(object)
            label[test] = HIDDEN_LABEL
            out["label"] = label if label.isna().any() else label.astype("int64")
        for column in out.columns:
            if column in RELEASE_COLUMNS and column not in ("id", "sentence", "label"):
                out[column] = out[column].astype(object)
                out.loc[test, column] = None
    return out


def public_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Every released row once, in public form, with ``split``, its test ``config`` and
    ``n_tokens``: what the card, the plots and the CSV layout are drawn from."""
    columns = [c for c in [*RELEASE_COLUMNS, "split", "n_tokens"] if c in frame.columns]
    rows = frame[columns].assign(config=test_config(frame["domain"]).to_numpy())
    return hide(rows)


def public_configs(public: pd.DataFrame) -> dict[str, dict[str, pd.DataFrame]]:
    """config -> split -> public rows (the released columns), in the order of ``CONFIGS``
    and ``schema.SPLITS``; combinations without rows are left out. ``public`` is
    :func:`public_frame`'s: the configs of a test row come from its public ``config``."""
    out: dict[str, dict[str, pd.DataFrame]] = {}
    for config, domains in CONFIGS.items():
        splits = {}
        for split in schema.SPLITS:
            if split == "test":
                if config not in TEST_CONFIGS:
                    continue
                part = public[(public["split"] == "test") & (public["config"] == config)]
            else:
                part = public[(public["split"] == split) & public["domain"].isin(domains)]
            if len(part):
                splits[split] = part[RELEASE_COLUMNS].reset_index(drop=True)
        if splits:
            out[config] = splits
    return out
