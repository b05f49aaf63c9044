"""Reading ``params.yaml``: the file DVC tracks, merged over the defaults below.

Defaults live in code so that a params file only needs what it changes; a key that is not
known here is an error, because a typo in a threshold would otherwise be ignored silently.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from rucola.errors import RucolaError
from rucola.names import check_name, check_output_path

DEFAULT_MARKS: dict[str, str] = {
    "": "acceptable",
    "*": "unacceptable",
    "*?": "unacceptable",
    "?*": "unacceptable",
    "??": "unacceptable",
    "**": "unacceptable",
    "?": "exclude",
    "#": "exclude",
    "%": "exclude",
}

# Mappings whose keys the user names (marks, generators, sources): merged whole, not checked.
FREE_FORM = {"marks", "generators", "sources"}

DEFAULTS: dict[str, Any] = {
    "extract": {
        "sources": [{"path": "data/sample/in_domain", "type": None}],
        "out": "data/interim/in_domain.parquet",
        "rejected": "data/interim/rejected/extract.parquet",
        "report": "reports/extract.json",
        "marks": DEFAULT_MARKS,
        "unknown_mark": "error",
        "on_conflict": "reject",
        "expand_alternations": True,
        "normalize": True,  # false: text exactly as read (rebuilding a published release)
        "deduplicate": True,  # false: repeated sentences kept (rebuilding a published release)
        "fix_homoglyphs": True,
        "artefacts": "reject",
        "require_error_type": True,
        "error_types": ["Morphology", "Syntax", "Semantics"],
        "encoding": "utf-8",
    },
    "generate": {
        "seed": 42,
        "engine": "local",  # local | ray
        "ray": {"address": None, "actors": 1, "gpus_per_actor": 0, "batch_size": 256},
        "shard_size": 2000,
        "out_dir": "data/interim/candidates",
        "report_dir": "reports/generate",
        "work_dir": ".cache/rucola/generation",
        "cache_dir": ".cache/rucola",
        "sources": {},
        "generators": {},
        "merge": {
            "out": "data/interim/candidates.parquet",
            "report": "reports/candidates.json",
        },
    },
    "measure": {
        "input": "data/interim/in_domain.parquet",
        "out": "data/interim/measured.parquet",
        "batch_rows": 10000,  # rows per streamed batch
    },
    "filter": {
        "input": "data/interim/measured.parquet",
        "out": "data/interim/filtered.parquet",
        "rejected": "data/interim/rejected/filter.parquet",
        "report": "reports/filter.json",
        "plot": "reports/plots/token_lengths.csv",
        "plot_png": "reports/plots/token_lengths.png",
        "min_tokens": 4,
        "max_tokens": 30,
        "min_ipm": 1.0,
        "min_high_freq_share": 0.6,
        "frequency": {"source": "wordfreq", "path": []},  # rnc: [the dictionary file]
        "near_duplicates": {
            "enabled": True,
            "threshold": 0.7,  # Jaccard of character shingles
            "shingle": 5,
            "num_perm": 64,
            "seed": 42,
        },
        "reference": None,  # parquet files whose sentences rank first (screening)
        "workers": None,  # processes for measuring; null: all cores
    },
    "screen": {
        # Candidates through the filter's thresholds and duplicate step before annotation
        # money is spent; thresholds come from the filter section.
        "input": "data/interim/candidates_measured.parquet",
        "out": "data/interim/screened.parquet",
        "rejected": "data/interim/rejected/screen.parquet",
        "report": "reports/screen.json",
        "plot": "reports/plots/candidate_token_lengths.csv",
        "plot_png": "reports/plots/candidate_token_lengths.png",
        "reference": ["data/interim/in_domain.parquet"],
    },
    "split": {
        "input": "data/interim/filtered.parquet",
        "out": "data/interim/split.parquet",
        "report": "reports/split.json",
        "seed": 42,
        "ratios": {"in_domain": [0.8, 0.1, 0.1], "out_of_domain": [0.0, 0.5, 0.5]},
        "pin": [],  # previous releases whose rows keep their split
    },
    "validate": {
        "input": "data/interim/split.parquet",
        "report": "reports/validation.json",
        "docs": "reports/validation_docs",
        "max_split_deviation": 0.02,
        "max_acceptable_share_deviation": 0.03,
        "exempt_published": False,  # true: published rows skip the text checks (v1 as is)
        "error_types": ["Morphology", "Syntax", "Semantics", "Hallucination"],
    },
    "baseline": {
        "input": "data/interim/split.parquet",
        "report": "reports/baseline.json",
    },
    "annotate": {
        # Inputs: candidates to annotate, the golden set, people's answers.
        "candidates": "data/interim/candidates.parquet",
        "controls": ["data/sample/annotations/controls.tsv"],  # at most one golden set
        "stage1": ["data/sample/annotations/stage1"],
        "stage2": ["data/sample/annotations/stage2"],
        "votes": [],
        "output_field": "violation",
        # Task pools (annotate export).
        "export_dir": "data/interim/annotation_tasks",
        "page_size": 5,
        "controls_per_page": 1,
        "seed": 42,
        # Cleaning and aggregation (annotate merge).
        "method": "majority",
        "min_votes": 3,
        "min_control_accuracy": 0.5,
        "min_page_seconds": 30,
        "out": "data/interim/annotated.parquet",
        "report": "reports/annotation.json",
        "workers": "reports/annotation_workers.csv",
        "plot": "reports/plots/annotation_agreement.csv",
        "plot_png": "reports/plots/annotation_agreement.png",
        # Labelled out-of-domain rows into the corpus stream (annotate corpus).
        "corpus": {
            "input": "data/interim/in_domain.parquet",
            "annotated": "data/interim/annotated.parquet",
            "candidates": "data/interim/candidates.parquet",
            "out": "data/interim/combined.parquet",
            "rejected": "data/interim/rejected/annotate.parquet",
            "report": "reports/annotate_corpus.json",
        },
        # The worker model of annotate simulate.
        "simulate": {
            "truth": None,
            "out_dir": None,
            "report": "reports/annotation_simulation.json",
            "overlap": 3,
            "max_overlap": 5,
            "confidence": 0.75,
            "workers": 60,
            "accuracy": [0.75, 0.95],
            "spammer_share": 0.2,
            "not_sure_rate": 0.02,
            "expired_rate": 0.02,
            "stage2_workers": 20,
            "stage2_accuracy": [0.8, 0.95],
            "stage2_spammer_share": 0.05,
            "methods": ["majority", "dawid_skene", "wawa", "glad"],
        },
    },
    "release": {
        "input": "data/interim/split.parquet",
        "validation": "reports/validation.json",
        "out": "data/release/rucola",
        "private": "data/release/private",
        "compat": "data/release/rucola_csv",
        "changelog": "release/CHANGELOG.md",
        "annotation_report": "reports/annotation.json",
        "pretty_name": "RuCoLA: Russian Corpus of Linguistic Acceptability",
        "license": "apache-2.0",
    },
}


# Every params key whose value is a path a command writes or replaces (checked on load:
# relative paths stay inside the repository, see ``rucola.names``).
OUTPUT_KEYS = [
    "extract.out",
    "extract.rejected",
    "extract.report",
    "generate.out_dir",
    "generate.report_dir",
    "generate.work_dir",
    "generate.cache_dir",
    "generate.merge.out",
    "generate.merge.report",
    "measure.out",
    "filter.out",
    "filter.rejected",
    "filter.report",
    "filter.plot",
    "filter.plot_png",
    "screen.out",
    "screen.rejected",
    "screen.report",
    "screen.plot",
    "screen.plot_png",
    "split.out",
    "split.report",
    "validate.report",
    "validate.docs",
    "baseline.report",
    "annotate.export_dir",
    "annotate.out",
    "annotate.report",
    "annotate.workers",
    "annotate.plot",
    "annotate.plot_png",
    "annotate.corpus.out",
    "annotate.corpus.rejected",
    "annotate.corpus.report",
    "annotate.simulate.out_dir",
    "annotate.simulate.report",
    "release.out",
    "release.private",
    "release.compat",
    "release.changelog",
]
# Mappings whose keys become file names: generate.generators.<name> (its candidates, report
# and work folder) and generate.sources.<id> (its input fingerprint).
NAMED_KEYS = ["generate.generators", "generate.sources"]


def lookup(params: dict[str, Any], dotted: str) -> Any:
    """The value of a dotted key (``filter.frequency.path``); None when any level lacks it."""
    value: Any = params
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def path_list(value: object, key: str) -> list[str]:
    """A params value naming inputs: a list of paths (what DVC tracks, one stage per item),
    or a plain path or null as the command line and older params give it."""
    if value is None or value == "":
        return []
    if isinstance(value, str | Path):
        return [str(value)]
    if isinstance(value, list | tuple) and all(isinstance(v, str | Path) for v in value):
        return [str(v) for v in value if v]
    raise RucolaError(f"{key} must be a path or a list of paths, not {value!r}", "params.yaml")


def optional_path(value: object, key: str, what: str = "file") -> str | None:
    """:func:`path_list` for a key that names at most one input."""
    paths = path_list(value, key)
    if len(paths) > 1:
        raise RucolaError(f"{key} names {len(paths)} files; give at most one {what}", "params.yaml")
    return paths[0] if paths else None


def check_paths_and_names(params: dict[str, Any], path: str | Path = "params.yaml") -> None:
    """Exit 1 naming the params key of the first output path that leaves the repository or
    the first generator or source name that is not a plain name."""
    for key in OUTPUT_KEYS:
        value = lookup(params, key)
        if value is not None:  # optional outputs (annotate.simulate.out_dir) may be null
            check_output_path(value, key, path)
    for key in NAMED_KEYS:
        mapping = lookup(params, key)
        if isinstance(mapping, dict):
            for name in mapping:
                check_name(name, f"{key}[{name!r}]", path)


def check_keys(given: dict[str, Any], known: dict[str, Any], where: str, path: str | Path) -> None:
    """Fail on the first key of ``given`` that ``known`` lacks (a typo is never ignored)."""
    for key in given:
        if key not in known:
            raise RucolaError(
                f"unknown parameter '{where}.{key}'",
                path,
                hint=f"known keys: {', '.join(sorted(known))}",
            )


def _merge(base: dict[str, Any], override: dict[str, Any], where: str, path: Path) -> None:
    for key, value in override.items():
        if key not in base:
            raise RucolaError(
                f"unknown parameter '{where}{key}'",
                path,
                hint="check the spelling against the README's params table",
            )
        if isinstance(base[key], dict) and isinstance(value, dict) and key not in FREE_FORM:
            _merge(base[key], value, f"{where}{key}.", path)
        else:
            base[key] = value


def load_params(path: str | Path = "params.yaml") -> dict[str, Any]:
    """Defaults overlaid with ``path`` (missing file: defaults alone)."""
    params = copy.deepcopy(DEFAULTS)
    path = Path(path)
    if not path.exists():
        return params
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise RucolaError(
            f"not valid YAML: {exc}", path, None if line is None else line + 1
        ) from exc
    if not isinstance(data, dict):
        raise RucolaError("expected a mapping of stage sections", path)
    # Sections for later stages (generate, annotate, ...) are tolerated and passed through.
    known = {k: v for k, v in data.items() if k in params}
    _merge(params, known, "", path)
    for key, value in data.items():
        if key not in params:
            params[key] = value
    check_paths_and_names(params, path)
    return params
