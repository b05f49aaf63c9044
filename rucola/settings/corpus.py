"""The sections of the corpus stages: what every stage agrees on (``corpus``: the corpus's
identity, its language and the categories of unacceptable rows per domain), then extract,
measure, filter, screen, split, validate, baseline, release and summarize (one model per
section, in pipeline order).
"""

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from rucola.settings.text import (
    CardBibTeX,
    CardLabel,
    CardMarkdown,
    CardTitle,
    CardUrl,
    CardWord,
)
from rucola.settings.types import (
    DEFAULT_MARKS,
    DOMAINS,
    IN_DOMAIN,
    LEARNER,
    OUT_OF_DOMAIN,
    AnnotatorKey,
    CorpusName,
    Domain,
    Encoding,
    Fraction,
    Input,
    Inputs,
    Kind,
    Language,
    Length,
    LicenseId,
    NewRows,
    NonNegative,
    Output,
    Ratios,
    Section,
    Seed,
    Share,
    SourceType,
    Text,
    Verdict,
    _count,
    _key,
    per_domain,
)

# --- corpus: its identity and the categories of unacceptable rows --------------------


class Categories(
    per_domain(
        list[CardWord],
        "the categories of its unacceptable rows (`[]`: none)",
        {IN_DOMAIN: [], OUT_OF_DOMAIN: [], LEARNER: []},
    )
):
    """The categories of unacceptable rows, one list per domain: the one vocabulary that
    extraction, annotation, the split's errata, validation, the audit and the card read.
    A category in some domains' lists only is allowed in those only (RuCoLA's Hallucination:
    out of domain). An empty list (the default): the corpus gives that domain's rows no
    category (CoLA and ItaCoLA have none), so none is asked for and none is allowed there."""

    def all(self) -> list[str]:
        """Every category of every domain, each once: the domains' lists in their order;
        empty when the corpus declares none."""
        return list(dict.fromkeys(c for domain in DOMAINS for c in self.of(domain)))

    def domains_with(self, category: str) -> list[str]:
        """The domains whose list holds ``category``, in their order."""
        return [domain for domain in DOMAINS if category in self.of(domain)]

    def declared(self) -> list[str]:
        """The domains that declare categories (a non-empty list), in their order: their
        unacceptable rows need one."""
        return [domain for domain in DOMAINS if self.of(domain)]


# A corpus's identity has no defaults that name a corpus: the schema describes an empty
# corpus of no particular name, and each corpus's overlay says who it is (RuCoLA's words are
# rucola/presets/rucola.yaml, which the sample and the RuCoLA presets include). The keys
# the card cannot do without (name, language, licence) are refused while unset, all at once
# (``rucola.settings.problems.identity_problems``).


class DomainDescriptions(
    per_domain(
        CardMarkdown | None,
        "the card's line on where its rows come from, after the domain's name; null: none",
        {IN_DOMAIN: None, OUT_OF_DOMAIN: None, LEARNER: None},
    )
):
    """What the card says of each domain's rows: one bullet per domain the release holds
    rows of, so a corpus is never said to have rows (machine-made ones, say) it lacks."""


class Corpus(Section):
    name: CorpusName | None = _key(
        None, "required: the dataset's name, its Hub and `load_dataset` name"
    )
    pretty_name: CardTitle | None = _key(None, "the card's title; null: the name")
    language: Language | None = _key(
        None, "required: the language profile (ISO 639-1): tokens, lemmas"
    )
    description: CardMarkdown | None = _key(
        None, "the card's opening paragraphs (Markdown); null: none"
    )
    domain_descriptions: DomainDescriptions = _key(
        DomainDescriptions, "the card's line per domain with rows"
    )
    homepage: CardUrl | None = _key(None, "the corpus's web page, on the card; null: none")
    license: LicenseId | None = _key(None, "required: the labels' Hub licence id, or `unknown`")
    license_note: CardMarkdown | None = _key(
        None, "the card's words on the sentences' rights; null: none"
    )
    citations: list[CardBibTeX] = _key(
        list, "BibTeX entries the card asks users to cite; `[]`: none"
    )
    categories: Categories = _key(
        Categories, "the categories of unacceptable rows, per domain (`error_type`)"
    )


# --- extract -------------------------------------------------------------------------


# A column of a table: its header name, or its position from 0 (the only way without a header).
Column = Annotated[
    Annotated[int, Field(ge=0)] | Annotated[str, Field(min_length=1)],
    Kind("header name, or column position"),
]
PublishedSplit = Literal["train", "validation", "test"]


class SourceColumns(Section):
    """Which column of a table holds what (``corpus.sources.tables``); a column not named
    here goes to the row's provenance."""

    sentence: Column | None = _key(None, "the sentence; null: the column named `sentence`")
    label: Column | None = _key(None, "a published label, read through `labels`")
    mark: Column | None = _key(None, "a judgment mark (`*`, `??`); beside a label, checked")
    error_type: Column | None = _key(None, "the category of an unacceptable row")
    source: Column | None = _key(None, "`detailed_source` of the row")
    id: Column | None = _key(None, "the published id (an integer); null: the row's position")
    split: Column | None = _key(None, "the published split, read through `splits`")


DEFAULT_LABELS: dict[str, str] = {
    "1": "acceptable",
    "0": "unacceptable",
    "acceptable": "acceptable",
    "unacceptable": "unacceptable",
}
DEFAULT_SPLITS: dict[str, str] = {
    "train": "train",
    "dev": "validation",
    "validation": "validation",
    "test": "test",
}


def _text_keys(value: Any) -> Any:
    """``{1: acceptable}`` as YAML writes it: a cell is text, so a number key is its text."""
    if isinstance(value, dict):
        return {
            str(k) if isinstance(k, int) and not isinstance(k, bool) else k: v
            for k, v in value.items()
        }
    return value


class ExtractSource(Section):
    path: Input = _key(..., "a file or a folder of judgment files")
    type: SourceType | None = _key(
        None, "null: by extension (`.tsv`/`.csv` sheet, `.txt` list, `.m2` learner edits)"
    )
    source: CardLabel | None = _key(None, "`detailed_source` of its rows; null: the file name")
    domain: Domain | None = _key(
        None, "null: `in_domain`, `learner` for m2 (a RuCoLA CSV: by its file name)"
    )
    # A labelled table (a sheet, cola_tsv, itacola_tsv): its layout; null: the type's own.
    columns: SourceColumns | None = _key(
        None, "tables: which column holds what (a header name, or a position from 0)"
    )
    header: bool | None = _key(None, "tables: the first row names the columns; null: the type's")
    quoting: bool | None = _key(
        None, "tables: CSV quoting; false: a `\"` is text (CoLA); null: the type's"
    )
    labels: Annotated[dict[str, Verdict] | None, BeforeValidator(_text_keys)] = _key(
        None,
        "tables: label cell → `acceptable`, `unacceptable`, `exclude`; null: 1/0 and the words",
    )
    splits: dict[str, PublishedSplit] | None = _key(
        None,
        "tables: split cell → `train`, `validation`, `test`; null: train, dev, validation, test",
    )
    split: PublishedSplit | None = _key(
        None,
        "tables: the published split of every row (kept as pins are); null: none or the type's",
    )

    def table_keys(self) -> list[str]:
        """The layout keys this source gives (only tabular readers read them)."""
        keys = ("columns", "header", "quoting", "labels", "splits", "split")
        return [key for key in keys if getattr(self, key) is not None]


# ERRANT-style edit types of the Russian GEC corpora (GERA, RU-Lang8, the multi-reference
# benchmarks) → our categories. A key is an fnmatch pattern; the most specific match wins
# (an exact type, then the pattern with the most literal characters).
DEFAULT_M2_CATEGORIES: dict[str, str] = {
    "G:*": "Morphology",  # grammatical forms: G:NOUN:CASE, G:VERB:P/N/G, G:ADJ:GEN ...
    "G:PREP:*": "Syntax",  # preposition choice: government
    "G:CONJ:*": "Syntax",
    "D:ORDER": "Syntax",  # word order
    "D:REF": "Semantics",  # reference: which noun a pronoun or phrase points to
    "LACK": "Syntax",  # a missing word
    "L:*": "Semantics",  # lexical choice: L:OTHER ...
    "L:MORPH": "Morphology",  # a wrong derivation of the right word
    "L:MULTIMORPH": "Morphology",
    "L:CONSTR": "Syntax",  # a wrong construction
}
# Edit types that do not bear on acceptability: spelling, letter case, typos, punctuation,
# style, and a word repeated by accident.
DEFAULT_M2_IGNORE = ["S:*", "PUNCT", "STYLE", "L:REP"]


class ExtractM2(Section):
    categories: dict[Text, Text] = _key(
        lambda: dict(DEFAULT_M2_CATEGORIES),
        "edit type (fnmatch pattern, most specific wins) → a category of "
        "`corpus.categories.learner`",
    )
    ignore: list[Text] = _key(
        lambda: list(DEFAULT_M2_IGNORE), "edit types not about acceptability (patterns)"
    )
    unknown_type: Literal["error", "reject"] = _key(
        "error", "an edit type in neither: exit 1 (`FILE:LINE`) or set the sentence aside"
    )
    single_edit_pairs: bool = _key(
        False, "also one pair per grammatical edit: the sentence with that error alone"
    )


class Extract(Section):
    sources: list[ExtractSource] = _key(list, "judgment files or folders, and learner corpora")
    out: Output = _key(
        "data/interim/in_domain.parquet",
        "kept rows (annotate corpus reads them; screen ranks them first)",
    )
    rejected: Output = _key("data/interim/rejected/extract.parquet", "rows set aside, why")
    report: Output = _key("reports/extract.json", "counts by reason (public: git tracks it)")
    private_report: Output = _key(
        "reports/private/extract.json",
        "per source shares and categories (private: they count future test rows)",
    )
    marks: dict[str, Verdict] = _key(
        lambda: dict(DEFAULT_MARKS), "mark → `acceptable`, `unacceptable` or `exclude`"
    )
    unknown_mark: Literal["error", "reject"] = _key(
        "error", "a mark not in `marks`: exit 1 (`FILE:LINE`) or set the row aside"
    )
    on_conflict: Literal["reject", "error"] = _key(
        "reject", "one sentence with different labels: set all aside, or exit 1"
    )
    expand_alternations: bool = _key(True, "expand `(*X)` and `(X/*Y)` into one row each")
    normalize: bool = _key(
        True, "NFC, invisible characters, direction marks, spacing; false: text as read"
    )
    deduplicate: bool = _key(
        True, "exact repeats (a train row kept before others) and label conflicts set aside"
    )
    fix_homoglyphs: bool = _key(True, "repair look-alikes toward `corpus.language`'s script")
    artefacts: Literal["reject", "keep"] = _key(
        "reject", "extraction artefacts: set aside, or keep (flagged)"
    )
    require_error_type: bool = _key(True, "unacceptable rows need an `error_type`")
    encoding: Encoding = _key("utf-8", "of the input files, e.g. `cp1251` for legacy files")
    m2: ExtractM2 = _key(ExtractM2, "learner corpora: minimal pairs from M2 error annotations")
    errata: Inputs = _key(
        list,
        "errata CSVs `split,domain,id,field,new,reason[,old]` that `split` applies to "
        "published rows (DVC-tracked, never in git: they may name hidden test rows)",
    )


# --- measure, filter, screen ---------------------------------------------------------


class Measure(Section):
    out: Output = _key(
        "data/interim/measured.parquet", "rows with token counts and ipm (filter reads them)"
    )
    report: Output = _key("reports/measure.json", "rows read and kept, frequency source")
    batch_rows: _count(1_000_000) = _key(10000, "rows per streamed batch (bounds memory)")


class FrequencyTable(Section):
    """The columns of a user's own frequency list (``source: table``)."""

    word: Text = _key("lemma", "the column of the words (header name, or 1-based number)")
    value: Text = _key("ipm", "the column of their frequencies (header name, or number)")
    unit: Literal["ipm", "count"] = _key(
        "ipm", "`ipm`, or `count` (turned into ipm over the total)"
    )
    delimiter: Text = _key("\t", "the column separator")
    header: bool = _key(True, "the first line names the columns")
    encoding: Encoding = _key("utf-8", "of the file")


class Frequency(Section):
    source: Literal["wordfreq", "rnc", "table"] = _key(
        "wordfreq",
        "`wordfreq` (`corpus.language`'s), `rnc` or `table`",
    )
    path: Inputs = _key(
        list, "`rnc`: `[the RNC freqrnc2011.tsv]`; `table`: `[your list]`", max_length=1
    )
    table: FrequencyTable = _key(FrequencyTable, "`table`: the list's column layout")


class NearDuplicates(Section):
    enabled: bool = _key(True, "false: exact duplicates only")
    threshold: Fraction = _key(0.7, "Jaccard of character shingles")
    shingle: _count(64) = _key(5, "characters per shingle")
    num_perm: _count(1024) = _key(64, "MinHash permutations")
    seed: Seed = _key(42, "MinHash seed")


class Thresholds(Section):
    """The threshold keys ``filter`` and ``screen`` each have, written once. Screening has
    its own values (defaults: the same), so an experiment on the corpus filter never reruns
    screening and never invalidates answers already paid for."""

    min_tokens: Length | None = _key(4, "tokens (`corpus.language`'s; ru: razdel); null: off")
    max_tokens: Length | None = _key(30, "tokens (`corpus.language`'s; ru: razdel); null: off")
    min_ipm: NonNegative = _key(1.0, "a word is high-frequency above this ipm (lemma)")
    min_high_freq_share: Share | None = _key(
        0.6, "kept when the share of high-frequency words is greater; null: off"
    )


class Filter(Thresholds):
    out: Output = _key("data/interim/filtered.parquet", "kept rows (split reads them)")
    rejected: Output = _key("data/interim/rejected/filter.parquet", "rows set aside, why")
    report: Output = _key("reports/filter.json", "counts by reason")
    frequency: Frequency = _key(Frequency, "the frequency list")
    near_duplicates: NearDuplicates = _key(NearDuplicates, "MinHash LSH near-duplicates")
    reference: Inputs | None = _key(None, "parquet files whose rows rank first")
    workers: _count(256) | None = _key(None, "processes for `rucola measure`; null: all cores")


class Screen(Thresholds):
    input: Input = _key("data/interim/candidates_measured.parquet", "measured candidates")
    measure_report: Output = _key(
        "reports/measure_candidates.json", "the report of measuring the candidates"
    )
    out: Output = _key(
        "data/interim/screened.parquet", "candidates worth annotating (annotate export reads them)"
    )
    rejected: Output = _key("data/interim/rejected/screen.parquet", "rows set aside, why")
    report: Output = _key("reports/screen.json", "counts by reason")
    plot: Output = _key("reports/plots/candidate_token_lengths.csv", "histogram data")
    plot_png: Output = _key("reports/plots/candidate_token_lengths.png", "histogram")
    near_duplicates: NearDuplicates = _key(
        NearDuplicates, "MinHash LSH near-duplicates among candidates and the reference"
    )


# --- split, validate, baseline, release ----------------------------------------------


class SplitRatios(
    per_domain(
        Ratios,
        "train / validation / test",
        {IN_DOMAIN: [0.8, 0.1, 0.1], OUT_OF_DOMAIN: [0.0, 0.5, 0.5], LEARNER: [0.8, 0.1, 0.1]},
    )
):
    """The train / validation / test ratios of each domain."""


class Split(Section):
    out: Output = _key(
        "data/interim/split.parquet",
        "rows with split and id (validate, baseline, release read them)",
    )
    rejected: Output = _key(
        "data/interim/rejected/split.parquet", "rows an erratum removed, with its reason"
    )
    report: Output = _key(
        "reports/split.json", "sizes and shares of train and validation, the test count"
    )
    private_report: Output = _key(
        "reports/private/split.json", "per domain and split, test included (private)"
    )
    plot: Output = _key(
        "reports/plots/token_lengths.csv",
        "token length histogram data (train and validation per domain; test as one)",
    )
    plot_png: Output = _key("reports/plots/token_lengths.png", "token length histogram")
    seed: Seed = _key(42, "order of groups within a stratum")
    ratios: SplitRatios = _key(SplitRatios, "per domain")
    pin: Inputs = _key(list, "previous releases whose rows keep their split")
    new_rows: NewRows = _key(
        "stratified",
        "rows no pin holds, in a domain with pinned rows: `stratified` among themselves by "
        "`split.ratios`, or all to `train`, `validation` or `test`",
    )


class Validate(Section):
    report: Output = _key(
        "reports/validation.json", "every check, passed or not (release needs it passed)"
    )
    private_report: Output = _key(
        "reports/private/validation.json",
        "every check with its failing rows and the data's SHA-256 (private)",
    )
    docs: Output = _key(
        "reports/private/validation_docs",
        "Great Expectations Data Docs, readable offline (private: they show the split's rows)",
    )
    max_split_deviation: Share = _key(
        0.02, "split sizes vs ratios; at least 2 × the largest group / the rows checked"
    )
    max_acceptable_share_deviation: Share = _key(
        0.03,
        "each split's acceptable share vs its domain's; at least two binomial standard errors, "
        "2 √(p (1 − p) / n)",
    )
    exempt_published: bool = _key(False, "true: rows of a published release skip text checks")


class Baseline(Section):
    report: Output = _key("reports/baseline.json", "scores")


class Release(Section):
    out: Output = _key("data/release/dataset", "the public dataset (a folder named for the corpus)")
    private: Output = _key("data/release/private", "test gold and corrections")
    compat: Output = _key("data/release/dataset_csv", "the published RuCoLA CSV layout")
    changelog: Output = _key("release/CHANGELOG.md", "release notes")
    annotator_key: AnnotatorKey = _key(
        "env", "`env`: $RUCOLA_ANNOTATOR_KEY hashes annotator ids; `sample`: the sample's key"
    )
    report: Output = _key("reports/release.json", "rows read and released per config")
    private_report: Output = _key(
        "reports/private/release.json", "the private files' rows and the data's SHA-256"
    )


class Summarize(Section):
    """The headline metrics DVC shows, read from the reports of filter, split, baseline and
    annotate (their ``report`` keys, so each path is written once)."""

    out: Output = _key("reports/metrics.json", "the headline metrics (`dvc metrics show`)")
