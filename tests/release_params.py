"""The params of a release built in a temporary project: the split parquet and its
validation report under ``data/``, the public, private and CSV folders under ``out/``
(``RELEASE_PARAMS``), or typed for a build called in code (``typed``)."""

from __future__ import annotations

from pathlib import Path

from identity import rucola_corpus

from rucola.settings import Params

RELEASE_PARAMS = (
    # what release reads (split.out, validate.private_report: the data's hash)
    "split:\n  out: data/split.parquet\n"
    "validate:\n  private_report: data/validation.json\n"
    "release:\n"
    "  out: out/rucola\n"
    "  private: out/private\n"
    "  compat: out/rucola_csv\n"
    "  report: out/release.json\n"
    "extract:\n  rejected: data/rejected.parquet\n"
)


def merged(base: dict, over: dict) -> dict:
    """``base`` with ``over`` laid on it, mapping by mapping."""
    out = dict(base)
    for key, value in over.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = merged(out[key], value) if both else value
    return out


def typed(data: dict, folder: Path) -> Params:
    """``data`` as the typed params a build reads, of a RuCoLA-like corpus (RuCoLA's identity
    under ``data``'s own ``corpus`` keys), with every other file the release reads
    (the annotation report and votes, set-aside rows, the baseline report) under
    ``folder/none``, where none exists, and no source of sentences: the test rows alone."""
    none = folder / "none"
    base = {
        "corpus": rucola_corpus(),
        "extract": {"sources": [], "rejected": str(none / "extract.parquet")},
        "generate": {"sources": {}, "generators": {}},
        "filter": {"rejected": str(none / "filter.parquet")},
        "split": {"rejected": str(none / "split.parquet")},
        "annotate": {
            "report": str(none / "annotation.json"),
            "votes_out": str(none / "votes.parquet"),
            "human_eval": {
                "report": str(none / "human_evaluation.json"),
                "votes_out": str(none / "human_votes.parquet"),
            },
            "corpus": {"rejected": str(none / "annotate.parquet")},
        },
        "baseline": {"report": str(none / "baseline.json")},
        "release": {"private_report": str(folder / "reports/private/release.json")},
    }
    return Params.model_validate(merged(base, data))
