"""The dataset card: YAML that the Hub and ``datasets`` read, and a body with computed tables.

The prose lives in ``templates/card.md.j2``; this module only computes what goes into it.
Label statistics are computed from train and validation rows only, so the card cannot show
a hidden test label: of the test split it gives row counts, nothing else. The ``votes``
configuration is described from its public files only (test-row votes are private).

Who the corpus is comes from params (``corpus``: name, title, language, description, a line
per domain, homepage, licence, citations, categories), so a card is never corrected by hand
(the publish manifest refuses an edited one): change params and build again. A domain's line
is said only of a domain the release has rows of, and the card's comparisons with the RuCoLA
paper and its published files only of RuCoLA (``corpus.name`` ``rucola``); a corpus without
categories gets no category columns or plot, and one without test rows no test split.

The card follows the corpus the params describe (issue 45): the folders by the names they
have (``release.out``, ``release.compat``), the length plot in the language profile's
tokens, the categories of the domains with rows only, votes described as what they are
(crowd rounds on candidates, or votes on existing rows), and the CSV layout only where the
release has one (:func:`has_csv_layout`).

A build of the embedded sample says so: when every source of sentences that params name
(``extract.sources``, ``generate.sources``) lies under ``data/sample/``, the sentences were
written by this project, so the card's title, ``pretty_name`` and description call it a
sample, and it neither cites the RuCoLA paper as its source nor says its sentences come
from publications. A build with any other source is described as the corpus it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import pandas as pd
import yaml

from rucola.corpus import schema
from rucola.package_version import version
from rucola.registry import LANGUAGES
from rucola.release.layout import SplitFile
from rucola.release.manifest import COMPAT_PREFIX
from rucola.release.votes import ENV_VARIABLE, ID_LENGTH, KEY_PARAM, VOTES_CONFIG

if TYPE_CHECKING:
    from rucola.settings import Params

TEMPLATES = Path(__file__).parent / "templates"
TEMPLATE = "card.md.j2"
SAMPLE_DIR = Path("data/sample")  # the embedded sample, written by this project
# a sample's title when ``corpus.pretty_name`` does not say it is one
SAMPLE_NAME = "rucola sample: examples written for the pipeline, not RuCoLA"
# how the card names a licence (``corpus.license``, a Hub licence id); another id as it is
LICENSE_NAMES = {
    "apache-2.0": "the Apache License 2.0 (Apache-2.0)",
    "mit": "the MIT License",
    "cc0-1.0": "CC0 1.0 (public domain dedication)",
    "cc-by-4.0": "the Creative Commons Attribution 4.0 licence (CC BY 4.0)",
    "cc-by-sa-4.0": "the Creative Commons Attribution-ShareAlike 4.0 licence (CC BY-SA 4.0)",
    "cc-by-nc-4.0": "the Creative Commons Attribution-NonCommercial 4.0 licence (CC BY-NC 4.0)",
    "cc-by-nc-sa-4.0": (
        "the Creative Commons Attribution-NonCommercial-ShareAlike 4.0 licence (CC BY-NC-SA 4.0)"
    ),
    "other": "the terms below",
    "unknown": "terms their authors have not stated",
}
# the card's name of each domain, at the start of its line (``corpus.domain_descriptions``)
DOMAIN_LABELS = {
    schema.IN_DOMAIN: "In-domain",
    schema.OUT_OF_DOMAIN: "Out-of-domain",
    schema.LEARNER: "Learner",
}

# The Hub's size_categories values.
_SIZES = [
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
    (1_000_000_000, "100M<n<1B"),
    (10_000_000_000, "1B<n<10B"),
    (100_000_000_000, "10B<n<100B"),
    (1_000_000_000_000, "100B<n<1T"),
]


def size_category(n: int) -> str:
    for limit, name in _SIZES:
        if n < limit:
            return name
    return "n>1T"


def dataset_info_yaml(
    files: Sequence[SplitFile], features: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """``dataset_info`` as ``datasets`` itself writes it (``push_to_hub``): one entry per
    config, sorted by name, with features (``features[config]``), splits (name, num_bytes,
    num_examples; all three are required, or ``datasets`` ignores the splits),
    download_size and dataset_size."""
    from datasets import DatasetInfo, SplitDict, SplitInfo
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    infos = DatasetInfosDict()
    for config in dict.fromkeys(f.config for f in files):
        mine = [f for f in files if f.config == config]
        splits = SplitDict()
        for f in mine:
            splits.add(SplitInfo(name=f.split, num_bytes=f.num_bytes, num_examples=f.num_examples))
        infos[config] = DatasetInfo(
            features=features[config],
            splits=splits,
            download_size=sum(f.file_size for f in mine),
            dataset_size=sum(f.num_bytes for f in mine),
            config_name=config,
        )
    card_data = DatasetCardData()
    infos.to_dataset_card_data(card_data)
    info = card_data["dataset_info"]
    return info if isinstance(info, list) else [{"config_name": next(iter(infos)), **info}]


def configs_yaml(files: Sequence[SplitFile]) -> list[dict[str, Any]]:
    """``configs``: one per config with rows, ``default: true`` on ``default``."""
    configs: list[dict[str, Any]] = []
    for config in dict.fromkeys(f.config for f in files):
        entry: dict[str, Any] = {
            "config_name": config,
            "data_files": [{"split": f.split, "path": f.path} for f in files if f.config == config],
        }
        if config == "default":
            entry["default"] = True
        configs.append(entry)
    return configs


def source_paths(params: Params) -> list[str]:
    """Every path params name as a source of sentences: ``extract.sources`` (labelled
    sentences) and ``generate.sources`` (what out-of-domain candidates are made from)."""
    entries = [*params.extract.sources, *params.generate.sources.values()]
    return [str(e.path) for e in entries]


# RuCoLA's corpus.name (rucola/presets/rucola.yaml): only RuCoLA's card compares it with
# the paper and the published files
RUCOLA_NAME = "rucola"


def is_sample(params: Params) -> bool:
    """Whether the build is of the embedded sample: params name sources of sentences and
    every one lies under ``data/sample/`` (params paths are relative to the repository
    root, the folder every stage runs in)."""
    sample = SAMPLE_DIR.resolve()
    paths = [Path(p).resolve() for p in source_paths(params)]
    return bool(paths) and all(p == sample or sample in p.parents for p in paths)


def pretty_name(params: Params) -> str:
    """The card's title and ``pretty_name``: ``corpus.pretty_name``, unless the build is
    the sample and that name does not say so; ``corpus.name`` when it gives none."""
    name = params.corpus.pretty_name or params.corpus.name or ""
    return SAMPLE_NAME if is_sample(params) and "sample" not in name.lower() else name


def is_rucola(params: Params) -> bool:
    """Whether the corpus is RuCoLA (or the sample in its layout): only then does the card
    compare it with the RuCoLA paper and the published RuCoLA files, or announce one of
    RuCoLA's two domains that a release lacks. Params refuse RuCoLA's description and
    citation for a corpus of another name (``rucola.settings.problems.identity_problems``)."""
    return params.corpus.name == RUCOLA_NAME


def domains_of(frame: pd.DataFrame) -> list[str]:
    """The domains the release has rows of, in their order (a hidden test row counts in its
    config's domain: the ``learner`` config's are learner rows)."""
    present = set(frame["domain"].dropna()) | set(frame["config"])
    return [d for d in schema.DOMAINS if d in present]


def card_categories(params: Params, domains: Sequence[str]) -> list[str]:
    """The categories of the domains the release has rows of (``domains``), each once: the
    card's columns and plot name no category of a domain it lacks (RuCoLA's Hallucination,
    out of domain only, is no column of a corpus without out-of-domain rows)."""
    declared = params.corpus.categories
    return list(dict.fromkeys(c for d in domains for c in declared.of(d)))


def has_csv_layout(params: Params, domains: Sequence[str]) -> bool:
    """Whether the release is written in the published RuCoLA CSV layout too
    (``release.compat``): RuCoLA itself, or a corpus in its layout: rows of both of RuCoLA's
    domains (its files are ``in_domain_*`` and ``out_of_domain_dev``), each declaring
    categories (its ``error_type`` column). Another corpus's files in that layout would be
    an empty out-of-domain file or an ``error_type`` of 0 in every row, so it has none."""
    if is_rucola(params):
        return True
    categories = params.corpus.categories
    return all(d in domains and categories.of(d) for d in schema.RUCOLA_DOMAINS)


def tokens_named(params: Params) -> str:
    """What the length plot calls a token: ``corpus.language``'s profile's name for them
    (razdel tokens for Russian; read from the class, so no tokenizer loads)."""
    return LANGUAGES[params.corpus.language].tokens_named


def csv_lines(folder: str | None) -> dict[str, str] | None:
    """Where the card says the CSV layout is: its folder beside this one (``folder``, the
    name ``release.compat`` gives it) and its folder in the Hub repository (the manifest's);
    None: the release has no CSV layout."""
    if folder is None:
        return None
    return {"folder": folder, "hub": COMPAT_PREFIX.rstrip("/")}


def domain_lines(params: Params, domains: Sequence[str]) -> list[tuple[str, str]]:
    """(the domain's name, its line) for each domain in ``domains`` (those with rows) that
    ``corpus.domain_descriptions`` describes; a line of several keeps its breaks, the
    later ones indented under the bullet."""
    lines = []
    for domain in domains:
        text = params.corpus.domain_descriptions.of(domain)
        if text is not None:
            lines.append((DOMAIN_LABELS[domain], text.strip().replace("\n", "\n  ")))
    return lines


def load_lines(params: Params, folder: str | None = None) -> dict[str, str]:
    """The card's ``load_dataset`` lines: the public folder's own name (``folder``, the one
    the build writes; else ``release.out``'s last part), its comment aligned with the next
    line's, and the Hub name ``corpus.name``."""
    folder = folder or Path(params.release.out).name
    path = f'ds = load_dataset("path/to/{folder}", "in_domain")'
    return {
        "folder": folder,
        "local": f'ds = load_dataset("{folder}")'.ljust(len(path) + 2),
        "path": path + "  ",
        "name": params.corpus.name,
    }


def yaml_header(
    files: Sequence[SplitFile], params: Params, total: int, features: Mapping[str, Any]
) -> str:
    header = {
        "configs": configs_yaml(files),
        "dataset_info": dataset_info_yaml(files, features),
        "language": [params.corpus.language],
        "license": params.corpus.license,
        "multilinguality": ["monolingual"],
        "pretty_name": pretty_name(params),
        "size_categories": [size_category(total)],
        "task_categories": ["text-classification"],
        "task_ids": ["acceptability-classification"],
    }
    # Top-level keys sorted; inside the entries the order is the one ``datasets`` writes
    # (config_name first; features in column order), the same on every build.
    return yaml.safe_dump(
        dict(sorted(header.items())), allow_unicode=True, sort_keys=False, width=100
    )


def _share(part: pd.Series) -> str:
    return f"{part.mean():.1%}" if len(part) else "–"


def source_rows(frame: pd.DataFrame, categories: Sequence[str]) -> list[dict[str, Any]]:
    """Per (detailed_source, domain): labelled sentences, share acceptable and the share of
    each of ``categories`` among unacceptable ones, over train and validation only.
    ``frame`` is the public form (``release.public.public_frame``): a test row has no
    source here to count."""
    labelled = frame[frame["split"] != "test"]
    rows = []
    keys = labelled.loc[labelled["domain"].notna(), ["detailed_source", "domain"]]
    keys = keys.drop_duplicates()
    keys = keys.sort_values(["domain", "detailed_source"], kind="stable")
    for source, domain in keys.itertuples(index=False):
        mine = (labelled["detailed_source"] == source) & (labelled["domain"] == domain)
        known = labelled[mine]
        bad = known.loc[known["label"] == schema.UNACCEPTABLE, "error_type"]
        rows.append(
            {
                # a cell of the table: a `|` in a file name would split it
                "source": str(source).replace("|", "\\|"),
                "domain": domain,
                "sentences": len(known),
                "acceptable": _share(known["label"] == schema.ACCEPTABLE),
                "shares": [_share(bad == c) for c in categories],
            }
        )
    return rows


HIDDEN_DOMAIN = "RuCoLA test (domain hidden)"
# the sample's, and any corpus's but RuCoLA's
SAMPLE_HIDDEN_DOMAIN = "`default` test (domain hidden)"


def split_rows(frame: pd.DataFrame, hidden: str = HIDDEN_DOMAIN) -> list[dict[str, Any]]:
    """Rows per domain and split (sizes only), with a total row. ``frame`` is the public
    form: the ``default`` config's test rows are one row of the table, named ``hidden``
    (their domains are hidden); the ``learner`` config's test rows are learner rows (that
    domain is public)."""
    rows = []
    test = frame["split"] == "test"
    shown = frame["domain"].where(~test, frame["config"].where(frame["config"] != "default"))
    for domain in [*schema.DOMAINS, None]:
        part = frame[shown == domain] if domain is not None else frame[shown.isna()]
        if len(part):
            counts = part["split"].value_counts()
            row = {s: int(counts.get(s, 0)) for s in schema.SPLITS}
            rows.append({"domain": domain or hidden, **row, "total": len(part)})
    counts = frame["split"].value_counts()
    total = {s: int(counts.get(s, 0)) for s in schema.SPLITS}
    rows.append({"domain": "**all**", **total, "total": len(frame)})
    return rows


def config_rows(files: Sequence[SplitFile]) -> list[dict[str, Any]]:
    """Sentences per config and split (the votes config has its own section)."""
    rows: dict[str, dict[str, Any]] = {}
    for f in files:
        if f.config == VOTES_CONFIG:
            continue
        rows.setdefault(f.config, {"config": f.config})[f.split] = f.num_examples
    return [{s: row.get(s, "–") for s in ["config", *schema.SPLITS]} for row in rows.values()]


def _read_report(path: Any) -> dict[str, Any] | None:
    if not path:
        return None
    path = Path(path)
    if not path.is_file():
        return None
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return report if isinstance(report, dict) else None


def _baseline(path: str | Path) -> dict[str, Any] | None:
    """Validation scores of the baseline stage (its report, ``baseline.report``), if any,
    per domain (in-domain first, as the RuCoLA paper reports them): one score over the
    domains together would mix in-domain with out-of-domain, and match neither."""
    report = _read_report(path)
    try:
        lr = report["logistic_regression"]  # type: ignore[index]
        majority = report["majority"]["validation"]  # type: ignore[index]
        domains = [d for d in schema.DOMAINS if d in lr["validation"] and d in majority]
        if not domains:
            return None
        return {
            "domains": domains,
            "majority": {d: majority[d] for d in domains},
            "lr": {d: lr["validation"][d] for d in domains},
            "features": lr["features"],
            "C": lr["C"],
        }
    except (KeyError, TypeError):
        return None


def _annotation(path: str | Path) -> list[tuple[str, Any]] | None:
    """The card's annotation rows from ``annotate merge``'s report (``annotate.report``)."""
    report = _read_report(path)
    if report is None or report.get("has_answers") is False:
        return None  # no annotation round (params name no answers): no section
    rows: list[tuple[str, Any]] = []
    names = {"stage1": "stage 1 (violation?)", "stage2": "stage 2 (category)"}
    for stage, info in sorted((report.get("agreement") or {}).items()):
        label = names.get(stage, stage)
        for category, values in sorted((info.get("wawa") or {}).items()):
            value = values.get("wawa") if isinstance(values, dict) else values
            if value is not None:
                rows.append((f"WAWA agreement, {label}, {category}", round(float(value), 3)))
        alpha = info.get("krippendorff_alpha")
        if alpha is not None:
            rows.append((f"Krippendorff's alpha, {label}", round(float(alpha), 3)))
    for status, count in sorted(((report.get("tasks") or {}).get("by_status") or {}).items()):
        rows.append((f"tasks {status}", count))
    return rows or None


def _human_eval(path: str | Path) -> list[tuple[str, str, int, Any, Any]] | None:
    """The card's human evaluation rows (split, domain, rows, accuracy, MCC) from
    ``annotate human-eval``'s public report: the splits it publishes (test only where
    ``annotate.human_eval.test_public`` chose so), one row per split, then per domain."""
    report = _read_report(path)
    if report is None or not report.get("has_round"):
        return None
    rows = []
    for split, values in ((report.get("scores") or {}).get("by_split") or {}).items():
        rows.append((split, "all", values["n"], values["accuracy"], values["mcc"]))
        for domain, part in (values.get("by_domain") or {}).items():
            rows.append((split, domain, part["n"], part["accuracy"], part["mcc"]))
    return rows or None


def _soft_label_domains(frame: pd.DataFrame) -> list[str]:
    """The domains with a ``share_acceptable`` anywhere (train and validation: the public
    form has none in test); empty when no row has one (the published files carry no votes)."""
    if "share_acceptable" not in frame.columns:
        return []
    held = frame["share_acceptable"].notna() & (frame["split"] != "test")
    return [d for d in schema.DOMAINS if (held & (frame["domain"] == d)).any()]


def render_card(
    frame: pd.DataFrame,
    files: Sequence[SplitFile],
    params: Params,
    features: Mapping[str, Any],
    plots: Mapping[str, str | None],
    votes: dict[str, Any] | None = None,
    folder: str | None = None,
    csv_folder: str | None = None,
) -> str:
    """The card; ``features`` per config; ``plots`` the pictures written (``error_types``
    only with categories); ``votes`` (counts of the public votes, the key's fingerprint and
    whether it is the sample's) adds the votes section; ``folder``: the public folder's
    name, which ``load_dataset`` is given; ``csv_folder``: the name of the folder in the
    published CSV layout, None when the release has none (:func:`has_csv_layout`)."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    configs = list(dict.fromkeys(f.config for f in files))
    domains = domains_of(frame)
    default = set(frame.loc[frame["config"] == "default", "domain"].dropna())
    ratios = params.split.ratios.model_dump()
    identity = params.corpus
    categories = card_categories(params, domains)
    licence = identity.license
    sample = is_sample(params)
    rucola = is_rucola(params)
    has_test = bool((frame["split"] == "test").any())
    text = environment.get_template(TEMPLATE).render(
        yaml_header=yaml_header(files, params, len(frame), features),
        # which rucola built it (the release stage depends on reports/code/version.json)
        rucola_version=version(),
        pretty_name=pretty_name(params),
        sample=sample,
        rucola=rucola,
        description=(identity.description or "").strip(),
        domain_lines=domain_lines(params, domains),
        homepage=identity.homepage,
        license_name=LICENSE_NAMES.get(licence, f"`{licence}`"),
        license_note=(identity.license_note or "").strip(),
        citations=[c.strip() for c in identity.citations],
        load=load_lines(params, folder),
        configs=configs,
        config_rows=config_rows(files),
        # RuCoLA's own two domains are announced when missing; learner rows are optional
        missing_configs=[d for d in schema.RUCOLA_DOMAINS if d not in configs] if rucola else [],
        domains=domains,
        # what `load_dataset(...)` without a config gives: the default config's domains
        default_domains=[d for d in schema.DOMAINS if d in default],
        # the one-domain configs this release has (the card names no config it lacks)
        domain_configs=[c for c in configs if c in schema.DOMAINS],
        # soft labels exist only where annotator votes went into a label
        soft_labels=_soft_label_domains(frame),
        new_rows=params.split.new_rows,
        pinned=bool(params.split.pin),
        has_test=has_test,
        # a corpus without test rows (CoLA publishes none) has no test column
        splits=[s for s in schema.SPLITS if s != "test" or has_test],
        split_rows=split_rows(
            frame, HIDDEN_DOMAIN if rucola and not sample else SAMPLE_HIDDEN_DOMAIN
        ),
        ratios={d: ratios[d] for d in domains if d in ratios},
        label_names=schema.LABEL_NAMES,
        categories=categories,
        source_rows=source_rows(frame, categories),
        plots=plots,
        csv=csv_lines(csv_folder),
        # rows a generator made (RuCoLA's out-of-domain ones, published or not): a source
        # is then a publication or a generator
        generated=rucola or any(g.enabled for g in params.generate.generators.values()),
        baseline=_baseline(params.baseline.report),
        annotation=_annotation(params.annotate.report),
        human_eval=_human_eval(params.annotate.human_eval.report),
        votes=votes,
        votes_key={"param": KEY_PARAM, "variable": ENV_VARIABLE, "digits": ID_LENGTH},
    )
    return text.rstrip("\n") + "\n"
