"""The params schema: every key of ``params.yaml``, its type, range, allowed values and default.

One place for all of it, because three copies (code defaults, generator defaults and
``params.yaml``) had drifted apart, and a hand-written check per key let misspelt keys,
wrong types and out-of-range values through silently or as tracebacks. Every section is a
pydantic model that forbids unknown keys at every depth (list items and the items of the
user-named mappings included) and validates strictly: ``"false"`` is not false and ``"42"``
is not 42, because coercion would hide the mistake. Numbers keep the type they were written
with (``min_ipm: 1`` stays 1), so a report never changes because of validation alone.

Checks between keys (a generator's method needs a model, its sources must exist) are
:func:`cross_problems`; reading the file and pointing at its lines is ``rucola.params``.
This module imports nothing of the stages, so every layer can use it.
"""

import codecs
import difflib
import math
import re
import warnings
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
)
from pydantic.fields import FieldInfo

from rucola.errors import RucolaError

ModelT = TypeVar("ModelT", bound=BaseModel)

# Allowed values. The stages keep their own copies next to the code that acts on them;
# tests/rucola/test_params.py proves the two agree.
Verdict = Literal["acceptable", "unacceptable", "exclude"]
SourceType = Literal["sheet", "list", "rucola_csv", "m2"]
Domain = Literal["in_domain", "out_of_domain", "learner"]
GenerationMethod = Literal["translation", "back_translation", "paraphrase", "perturbation"]
Backend = Literal["transformers", "ctranslate2"]
Strategy = Literal["beam", "greedy", "sampling"]
Dtype = Literal["auto", "float32", "float16", "bfloat16", "int8", "int8_float16", "int8_bfloat16"]
PerturbationRule = Literal[
    "gender_agreement",
    "number_agreement",
    "case_agreement",
    "government",
    "word_order",
    "drop_word",
    "repeat_word",
]
SourceFormat = Literal["tsv", "pairs", "tatoeba", "text"]
AggregationMethod = Literal["majority", "dawid_skene", "wawa", "glad"]
RepeatedVotes = Literal["error", "first", "last", "drop"]
AnswerFormat = Literal["toloka", "label_studio"]
AnnotatorKey = Literal["env", "sample"]
NewRows = Literal["stratified", "train", "validation", "test"]

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


@dataclass(frozen=True)
class Kind:
    """How the README's params table names a type (and, for paths, what a command does
    with it: an ``output`` is written, so its key is checked to stay in the repository)."""

    text: str
    plural: str = ""
    role: str = ""


OUTPUT = "output"
INPUT = "input"


def shown(value: object) -> str:
    """A value as a params file writes it, for messages (``null``, ``true``, ``'abc'``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    return str(value)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(ge: float | None = None, gt: float | None = None, le: float | None = None) -> Any:
    """A number (int or float, kept as written) within the given bounds."""
    if ge is not None and le is not None:
        text = f"number {ge:g} to {le:g}"
    elif gt is not None and le is not None:
        text = f"number > {gt:g}, at most {le:g}"
    elif ge is not None:
        text = f"number ≥ {ge:g}"
    elif gt is not None:
        text = f"number > {gt:g}"
    else:
        text = "number"

    def check(value: object) -> float:
        if not _is_number(value) or math.isnan(value):  # type: ignore[arg-type]
            raise ValueError(f"must be a number, not {shown(value)}")
        number = float(value)  # type: ignore[arg-type]
        if (
            (ge is not None and number < ge)
            or (gt is not None and number <= gt)
            or (le is not None and number > le)
        ):
            raise ValueError(f"must be a {text}, not {shown(value)}")
        return value  # type: ignore[return-value]

    return Annotated[Any, PlainValidator(check), Kind(text, text.replace("number", "numbers"))]


Share = _number(ge=0, le=1)
NonNegative = _number(ge=0)
Positive = _number(gt=0)
Fraction = _number(gt=0, le=1)


def ratios_problem(value: object) -> str | None:
    """Why ``value`` is not train/validation/test ratios (three non-negative numbers that
    add up to 1), or None. The one rule the split and the validation suite share."""
    if not isinstance(value, list | tuple) or len(value) != 3 or not all(map(_is_number, value)):
        return f"must be three numbers (train, validation, test), not {shown(value)}"
    if any(v < 0 for v in value) or abs(sum(value) - 1) > 1e-6:
        return f"must be three non-negative numbers that add up to 1, not {list(value)}"
    return None


def split_ratios(value: object, key: str = "split.ratios") -> list[float]:
    """``value`` as three floats (train, validation, test), or exit 1 naming ``key``."""
    problem = ratios_problem(value)
    if problem:
        raise RucolaError(f"{key} {problem}", "params.yaml")
    return [float(v) for v in value]  # type: ignore[union-attr]


def _ratios(value: object) -> list[float]:
    problem = ratios_problem(value)
    if problem:
        raise ValueError(problem)
    return value  # type: ignore[return-value]


def _pair(value: object) -> list[float]:
    if not isinstance(value, list) or len(value) != 2 or not all(map(_is_number, value)):
        raise ValueError(f"must be two numbers [low, high], not {shown(value)}")
    low, high = value
    if not 0 <= low <= high <= 1:
        raise ValueError(f"must be [low, high] with 0 ≤ low ≤ high ≤ 1, not {value}")
    return value


def _encoding(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be text (an encoding name), not {shown(value)}")
    try:
        codecs.lookup(value)
    except LookupError:
        raise ValueError(f"{value!r} is not an encoding Python knows (utf-8, cp1251 ...)") from None
    return value


_DEVICE = re.compile(r"auto|cpu|cuda(:\d+)?")


def _device(value: object) -> str:
    if not isinstance(value, str) or not _DEVICE.fullmatch(value):
        raise ValueError(f"must be auto, cpu, cuda or cuda:N, not {shown(value)}")
    return value


Ratios = Annotated[Any, PlainValidator(_ratios), Kind("three numbers ≥ 0 adding up to 1")]
Accuracy = Annotated[Any, PlainValidator(_pair), Kind("[low, high], 0 to 1")]
Encoding = Annotated[Any, PlainValidator(_encoding), Kind("encoding name")]
Device = Annotated[Any, PlainValidator(_device), Kind("`auto`, `cpu`, `cuda`, `cuda:N`")]
Output = Annotated[str, Field(min_length=1), Kind("output path", "output paths", OUTPUT)]
Input = Annotated[str, Field(min_length=1), Kind("path", "paths", INPUT)]
# A list of input paths; a single path (as the command line and older params give it) is
# read as a list of one. The lists are what dvc.yaml makes one tracker stage per item of.
Inputs = Annotated[
    list[Input], BeforeValidator(lambda v: [v] if isinstance(v, str) else v), Kind("list of paths")
]
Text = Annotated[str, Field(min_length=1)]
# Every seed, whichever library it reaches: numpy's legacy RandomState (datasketch's MinHash
# permutations) takes 0 to 2**32 - 1, the narrowest of numpy, random and torch.
SEED_MAX = 2**32 - 1
Seed = Annotated[int, Field(ge=0, le=SEED_MAX)]


def _count(most: int, least: int = 1) -> Any:
    """A whole number from ``least`` to ``most``. Every size, batch and count key has an
    upper bound, generous but safe: on Linux a params value that exhausts memory ends in the
    OOM killer, which no error handler sees, so such a value must fail validation instead."""
    return Annotated[int, Field(ge=least, le=most)]


Length = _count(100_000, least=0)  # razdel tokens of one sentence


def _key(default: Any, doc: str, **kw: Any) -> Any:
    """A params key: its default (``...``: required) and what it means (the README's)."""
    if callable(default):  # a factory: list, dict, a section model, a lambda
        return Field(default_factory=default, description=doc, **kw)
    return Field(default, description=doc, **kw)


class Section(BaseModel):
    """A mapping of params keys: unknown keys are an error, values are never coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


# --- extract -------------------------------------------------------------------------


class ExtractSource(Section):
    path: Input = _key(..., "a file or a folder of judgment files")
    type: SourceType | None = _key(
        None, "null: by extension (`.tsv`/`.csv` sheet, `.txt` list, `.m2` learner edits)"
    )
    source: str | None = _key(None, "`detailed_source` of its rows; null: the file name")
    domain: Domain | None = _key(
        None, "null: `in_domain`, `learner` for m2 (a RuCoLA CSV: by its file name)"
    )


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
        "edit type (fnmatch pattern, most specific wins) → a category of `error_types`",
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
    sources: list[ExtractSource] = _key(
        lambda: [
            ExtractSource(path="data/sample/in_domain"),
            ExtractSource(path="data/sample/learner", type="m2", source="SampleLearner"),
        ],
        "judgment files or folders, and learner corpora",
    )
    out: Output = _key("data/interim/in_domain.parquet", "kept rows")
    rejected: Output = _key("data/interim/rejected/extract.parquet", "rows set aside, why")
    report: Output = _key("reports/extract.json", "counts by reason and per source")
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
    normalize: bool = _key(True, "NFC, invisible characters, spacing; false: text as read")
    deduplicate: bool = _key(True, "exact repeats (first kept) and label conflicts set aside")
    fix_homoglyphs: bool = _key(True, "repair Latin look-alikes inside Cyrillic words")
    artefacts: Literal["reject", "keep"] = _key(
        "reject", "extraction artefacts: set aside, or keep (flagged)"
    )
    require_error_type: bool = _key(True, "unacceptable rows need an `error_type`")
    error_types: list[Text] = _key(
        lambda: ["Morphology", "Syntax", "Semantics"], "the violation categories"
    )
    encoding: Encoding = _key("utf-8", "of the input files, e.g. `cp1251` for legacy files")
    m2: ExtractM2 = _key(ExtractM2, "learner corpora: minimal pairs from M2 error annotations")


# --- generate ------------------------------------------------------------------------


class Ray(Section):
    address: str | None = _key(None, "null: start a local Ray; `auto` or `ray://host:10001`")
    actors: _count(1024) = _key(1, "generation actors")
    gpus_per_actor: _number(ge=0, le=64) = _key(0, "GPUs per actor (0: CPU)")
    batch_size: _count(100_000) = _key(256, "inputs per actor call")


class Merge(Section):
    out: Output = _key("data/interim/candidates.parquet", "all generators' candidates")
    report: Output = _key("reports/candidates.json", "counts per generator")
    rejected: Output = _key(
        "data/interim/rejected/merge_candidates.parquet", "candidates set aside, why"
    )


class GenerationSource(Section):
    path: Input = _key(..., "the source corpus (a pair: either side)")
    format: SourceFormat | None = _key(None, "null: by extension")
    n: _count(100_000_000) | None = _key(None, "seeded sample size; null: every sentence")
    lang: Text = _key("ru", "the language of a `text` source")
    columns: dict[str, Text] = _key(
        lambda: {"en": "en", "ru": "ru"}, "language → column of a parallel TSV"
    )
    split_sentences: bool = _key(False, "`text`: a line is a document, split with razdel")
    encoding: Encoding = _key("utf-8", "of the source files")


class Decoding(Section):
    strategy: Strategy = _key("beam", "how outputs are chosen")
    num_beams: _count(64) = _key(4, "beams (beam search)")
    top_p: Fraction = _key(0.9, "nucleus (sampling)")
    top_k: _count(1_000_000, least=0) = _key(0, "top-k (sampling); 0: off")
    temperature: Positive = _key(1.0, "sampling temperature")
    num_return_sequences: _count(64) = _key(1, "outputs per input")
    max_new_tokens: _count(4096) = _key(64, "longest output")
    min_new_tokens: _count(4096, least=0) = _key(0, "shortest output")


class Generator(Section):
    method: GenerationMethod = _key(..., "what the generator does")
    enabled: bool = _key(True, "false: defined, not run")
    sources: list[str] = _key(list, "ids from `generate.sources`")
    model: str | None = _key(None, "a local folder, a cached Hugging Face id or an alias")
    pivot_model: str | None = _key(None, "`back_translation`: the model back to the source")
    src_lang: Text = _key("en", "language read")
    tgt_lang: Text = _key("ru", "language written")
    pivot_lang: Text = _key("en", "`back_translation`: the language in between")
    backend: Backend = _key("transformers", "inference library")
    decoding: Decoding = _key(Decoding, "decoding settings")
    device: Device = _key("auto", "where the model runs")
    dtype: Dtype = _key("auto", "weights' precision (`int8*`: CTranslate2 only)")
    max_batch_tokens: _count(1_048_576) = _key(8192, "tokens per batch (inputs x width)")
    prefix: str = _key("", "text-to-text paraphrasers: prepended to the input")
    prompt_share: Share = _key(0.5, "causal LMs: share of the source's words given as prompt")
    seed: Seed | None = _key(None, "null: `generate.seed`")
    rules: list[PerturbationRule] | None = _key(None, "`perturbation`: rules; null: all")
    per_sentence: _count(100) = _key(2, "`perturbation`: candidates per sentence")


class Generate(Section):
    seed: Seed = _key(42, "sampling of sources and outputs")
    engine: Literal["local", "ray"] = _key("local", "one process, or a Ray actor pool")
    ray: Ray = _key(Ray, "the Ray actor pool")
    shard_size: _count(1_000_000) = _key(2000, "inputs per resumable shard")
    out_dir: Output = _key("data/interim/candidates", "`<generator>.parquet` per generator")
    report_dir: Output = _key("reports/generate", "`<generator>.json` per generator")
    rejected_dir: Output = _key(
        "data/interim/rejected/generate", "`<generator>.parquet`: source sentences set aside"
    )
    work_dir: Output = _key(".cache/rucola/generation", "unfinished shards (resume)")
    cache_dir: Output = _key(".cache/rucola", "converted CTranslate2 models")
    merge: Merge = _key(Merge, "`rucola merge-candidates`")
    sources: dict[str, GenerationSource] = _key(dict, "id → source corpus")
    generators: dict[str, Generator] = _key(dict, "name → generator (one DVC stage each)")


# --- annotate ------------------------------------------------------------------------


class AnnotateCorpus(Section):
    input: Input = _key("data/interim/in_domain.parquet", "the in-domain rows")
    annotated: Input = _key("data/interim/annotated.parquet", "labels of `annotate merge`")
    candidates: Input = _key("data/interim/candidates.parquet", "the candidates labelled")
    out: Output = _key("data/interim/combined.parquet", "in-domain and labelled rows")
    rejected: Output = _key("data/interim/rejected/annotate.parquet", "rows set aside, why")
    report: Output = _key("reports/annotate_corpus.json", "counts")


class Simulate(Section):
    truth: Input | None = _key(None, "sentences with known labels to simulate on")
    out_dir: Output | None = _key(None, "simulated answers; null: none written")
    report: Output = _key("reports/annotation_simulation.json", "scores per method")
    overlap: _count(100) = _key(3, "answers per task at first")
    max_overlap: _count(100) = _key(5, "answers per task at most")
    confidence: Share = _key(0.75, "agreement that stops asking")
    workers: _count(100_000) = _key(60, "stage 1 workers")
    accuracy: Accuracy = _key(lambda: [0.75, 0.95], "stage 1 honest workers' accuracy")
    spammer_share: Share = _key(0.2, "stage 1 share of random answers")
    not_sure_rate: Share = _key(0.02, "share of `not_sure` answers")
    expired_rate: Share = _key(0.02, "share of expired assignments")
    stage2_workers: _count(100_000) = _key(20, "stage 2 workers")
    stage2_accuracy: Accuracy = _key(lambda: [0.8, 0.95], "stage 2 accuracy")
    stage2_spammer_share: Share = _key(0.05, "stage 2 share of random answers")
    methods: list[AggregationMethod] = _key(
        lambda: ["majority", "dawid_skene", "wawa", "glad"], "methods compared", min_length=1
    )
    format: AnswerFormat = _key("toloka", "answers written as Toloka TSVs or Label Studio JSON")


class VoteColumns(Section):
    task: Text = _key("task", "column of the task (item) id")
    worker: Text = _key("worker", "column of the worker id")
    label: Text = _key("label", "column of the answer (1/acceptable, 0/unacceptable)")
    golden: Text = _key("golden", "column of a control's golden answer (optional)")
    sentence: Text = _key("sentence", "column of the sentence (optional)")
    separator: Text | None = _key(
        ",", "a row whose worker and label cells list several votes (ItaCoLA); null: never"
    )


class Annotate(Section):
    candidates: Input = _key("data/interim/screened.parquet", "what `annotate export` sends")
    all_candidates: Input = _key(
        "data/interim/candidates.parquet",
        "every candidate a pool may have held (`generate.merge.out`): answers for one outside "
        "`candidates` are set aside as `not_in_pool`; outside both: exit 1",
    )
    controls: Inputs = _key(
        lambda: ["data/sample/annotations/controls.tsv"],
        "at most one golden set; `[]`: pages without control tasks",
        max_length=1,
    )
    export_dir: Output = _key("data/interim/annotation_tasks", "task pools")
    page_size: _count(1000) = _key(5, "tasks per page")
    controls_per_page: _count(999, least=0) = _key(
        1, "control tasks per page (fewer than `page_size`)"
    )
    seed: Seed = _key(42, "page shuffling")
    stage1: Inputs = _key(
        lambda: ["data/sample/annotations/stage1"], "stage 1 answers (files or folders)"
    )
    stage2: Inputs = _key(lambda: ["data/sample/annotations/stage2"], "stage 2 answers")
    votes: Inputs = _key(list, "long CSVs `task,worker,label`; all three empty: no round")
    vote_columns: VoteColumns = _key(VoteColumns, "column names of the `votes` tables")
    repeated_votes: RepeatedVotes = _key(
        "error", "a worker's conflicting answers to one task: error, first, last or drop"
    )
    output_field: Text = _key("violation", "the stage 1 answer column")
    method: AggregationMethod = _key("majority", "aggregation (crowd-kit)")
    min_votes: _count(1000) = _key(3, "fewer usable votes, or a tie: pending, never guessed")
    min_control_accuracy: Share = _key(0.5, "workers at or below are dropped")
    min_page_seconds: NonNegative | None = _key(30, "faster pages are dropped; null: off")
    out: Output = _key("data/interim/annotated.parquet", "labels per task")
    report: Output = _key("reports/annotation.json", "agreement and counts")
    votes_out: Output = _key(
        "data/interim/votes.parquet", "every kept vote (private: raw worker ids)"
    )
    workers: Output = _key(
        "data/interim/annotation_workers.csv", "per worker (private: raw worker ids)"
    )
    plot: Output = _key("reports/plots/annotation_agreement.csv", "agreement plot data")
    plot_png: Output = _key("reports/plots/annotation_agreement.png", "agreement plot")
    corpus: AnnotateCorpus = _key(AnnotateCorpus, "`annotate corpus`")
    simulate: Simulate = _key(Simulate, "`annotate simulate`: a worker model for planning")


# --- measure, filter, screen ---------------------------------------------------------


class Measure(Section):
    input: Input = _key("data/interim/combined.parquet", "rows to measure")
    out: Output = _key("data/interim/measured.parquet", "rows with token counts and ipm")
    report: Output = _key("reports/measure.json", "rows read and kept, frequency source")
    batch_rows: _count(1_000_000) = _key(10000, "rows per streamed batch (bounds memory)")


class Frequency(Section):
    source: Literal["wordfreq", "rnc"] = _key("wordfreq", "`wordfreq` (offline) or `rnc`")
    path: Inputs = _key(list, "`rnc`: `[the RNC freqrnc2011.tsv]`", max_length=1)


class NearDuplicates(Section):
    enabled: bool = _key(True, "false: exact duplicates only")
    threshold: Fraction = _key(0.7, "Jaccard of character shingles")
    shingle: _count(64) = _key(5, "characters per shingle")
    num_perm: _count(1024) = _key(64, "MinHash permutations")
    seed: Seed = _key(42, "MinHash seed")


class Filter(Section):
    input: Input = _key("data/interim/measured.parquet", "measured rows")
    out: Output = _key("data/interim/filtered.parquet", "kept rows")
    rejected: Output = _key("data/interim/rejected/filter.parquet", "rows set aside, why")
    report: Output = _key("reports/filter.json", "counts by reason")
    plot: Output = _key("reports/plots/token_lengths.csv", "token length histogram data")
    plot_png: Output = _key("reports/plots/token_lengths.png", "token length histogram")
    min_tokens: Length | None = _key(4, "razdel tokens; null: off")
    max_tokens: Length | None = _key(30, "razdel tokens; null: off")
    min_ipm: NonNegative = _key(1.0, "a word is high-frequency above this ipm (lemma)")
    min_high_freq_share: Share | None = _key(
        0.6, "kept when the share of high-frequency words is greater; null: off"
    )
    frequency: Frequency = _key(Frequency, "the frequency list")
    near_duplicates: NearDuplicates = _key(NearDuplicates, "MinHash LSH near-duplicates")
    reference: Inputs | None = _key(None, "parquet files whose rows rank first")
    workers: _count(256) | None = _key(None, "processes for `rucola measure`; null: all cores")


class Screen(Section):
    input: Input = _key("data/interim/candidates_measured.parquet", "measured candidates")
    measure_report: Output = _key(
        "reports/measure_candidates.json", "the report of measuring the candidates"
    )
    out: Output = _key("data/interim/screened.parquet", "candidates worth annotating")
    rejected: Output = _key("data/interim/rejected/screen.parquet", "rows set aside, why")
    report: Output = _key("reports/screen.json", "counts by reason")
    plot: Output = _key("reports/plots/candidate_token_lengths.csv", "histogram data")
    plot_png: Output = _key("reports/plots/candidate_token_lengths.png", "histogram")
    reference: Inputs = _key(
        lambda: ["data/interim/in_domain.parquet"], "rows that rank before the candidates"
    )
    # Screening's own thresholds (defaults: the filter's), so that an experiment on the
    # corpus filter never reruns screening and never invalidates answers already paid for.
    min_tokens: Length | None = _key(4, "razdel tokens; null: off")
    max_tokens: Length | None = _key(30, "razdel tokens; null: off")
    min_ipm: NonNegative = _key(1.0, "a word is high-frequency above this ipm (lemma)")
    min_high_freq_share: Share | None = _key(
        0.6, "kept when the share of high-frequency words is greater; null: off"
    )
    near_duplicates: NearDuplicates = _key(
        NearDuplicates, "MinHash LSH near-duplicates among candidates and the reference"
    )


# --- split, validate, baseline, release ----------------------------------------------


class SplitRatios(Section):
    in_domain: Ratios = _key(lambda: [0.8, 0.1, 0.1], "train / validation / test")
    out_of_domain: Ratios = _key(lambda: [0.0, 0.5, 0.5], "train / validation / test")
    learner: Ratios = _key(lambda: [0.8, 0.1, 0.1], "train / validation / test")


class Split(Section):
    input: Input = _key("data/interim/filtered.parquet", "filtered rows")
    out: Output = _key("data/interim/split.parquet", "rows with split and id")
    report: Output = _key("reports/split.json", "sizes and shares")
    seed: Seed = _key(42, "order of groups within a stratum")
    ratios: SplitRatios = _key(SplitRatios, "per domain")
    pin: Inputs = _key(list, "previous releases whose rows keep their split")
    new_rows: NewRows = _key(
        "stratified",
        "rows no pin holds, in a domain with pinned rows: `stratified` among themselves by "
        "`split.ratios`, or all to `train`, `validation` or `test`",
    )


class Validate(Section):
    input: Input = _key("data/interim/split.parquet", "the split rows")
    report: Output = _key("reports/validation.json", "every check")
    docs: Output = _key("reports/validation_docs", "Great Expectations Data Docs")
    max_split_deviation: Share = _key(
        0.02, "split sizes vs ratios; at least 2 × the largest group / the rows checked"
    )
    max_acceptable_share_deviation: Share = _key(
        0.03,
        "each split's acceptable share vs its domain's; at least two binomial standard errors, "
        "2 √(p (1 − p) / n)",
    )
    exempt_published: bool = _key(False, "true: rows of a published release skip text checks")
    error_types: list[Text] = _key(
        lambda: ["Morphology", "Syntax", "Semantics", "Hallucination"],
        "allowed `error_type` values",
        min_length=1,
    )


class Baseline(Section):
    input: Input = _key("data/interim/split.parquet", "the split rows")
    report: Output = _key("reports/baseline.json", "scores")


class Release(Section):
    input: Input = _key("data/interim/split.parquet", "the split rows")
    validation: Input = _key("reports/validation.json", "must have passed")
    out: Output = _key("data/release/rucola", "the public dataset")
    private: Output = _key("data/release/private", "test gold and corrections")
    compat: Output = _key("data/release/rucola_csv", "the published RuCoLA CSV layout")
    changelog: Output = _key("release/CHANGELOG.md", "release notes")
    annotation_report: Input = _key("reports/annotation.json", "for the dataset card")
    votes: Input = _key("data/interim/votes.parquet", "kept votes (`annotate.votes_out`)")
    annotator_key: AnnotatorKey = _key(
        "env", "`env`: $RUCOLA_ANNOTATOR_KEY hashes annotator ids; `sample`: the sample's key"
    )
    report: Output = _key("reports/release.json", "rows read and released per config")
    pretty_name: Text = _key("RuCoLA: Russian Corpus of Linguistic Acceptability", "card title")
    license: Text = _key("apache-2.0", "card licence")


class Summarize(Section):
    """The headline metrics DVC shows, read from the reports of filter, split, baseline and
    annotate (their ``report`` keys, so each path is written once)."""

    out: Output = _key("reports/metrics.json", "the headline metrics (`dvc metrics show`)")


with warnings.catch_warnings():
    # ``validate`` is a params section and also a deprecated BaseModel class method; the
    # field wins on instances, which is all this schema uses.
    warnings.filterwarnings("ignore", 'Field name "validate"', UserWarning)

    class Params(Section):
        """The whole ``params.yaml``: one section per stage, in pipeline order."""

        extract: Extract = _key(Extract, "`rucola extract`")
        generate: Generate = _key(Generate, "`rucola generate`, `merge-candidates`")
        annotate: Annotate = _key(Annotate, "`rucola annotate ...`")
        measure: Measure = _key(Measure, "`rucola measure`")
        filter: Filter = _key(Filter, "`rucola filter`")
        screen: Screen = _key(Screen, "`rucola screen`")
        split: Split = _key(Split, "`rucola split`")
        validate: Validate = _key(Validate, "`rucola validate`")
        baseline: Baseline = _key(Baseline, "`rucola baseline`")
        release: Release = _key(Release, "`rucola release ...`")
        summarize: Summarize = _key(Summarize, "`rucola summarize`")


# --- defaults and key lists derived from the schema ----------------------------------


def defaults_of(model: type[BaseModel]) -> dict[str, Any]:
    """Every key of ``model`` with its default (None for a required key), as plain data."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        value = None if field.is_required() else field.get_default(call_default_factory=True)
        out[name] = value.model_dump() if isinstance(value, BaseModel) else _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _unwrap(tp: Any) -> tuple[Any, list[Any]]:
    """The type under ``Annotated`` and ``| None``, with the metadata found on the way."""
    metadata: list[Any] = []
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp, *meta = get_args(tp)
            metadata.extend(meta)
        elif origin in (Union, UnionType):
            rest = [a for a in get_args(tp) if a is not type(None)]
            if len(rest) != 1:
                return tp, metadata
            tp = rest[0]
        else:
            return tp, metadata


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _field_type(field: FieldInfo) -> tuple[Any, list[Any]]:
    tp, metadata = _unwrap(field.annotation)
    return tp, [*field.metadata, *metadata]


def iter_keys(model: type[BaseModel] = Params, prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """(dotted key, field) of every key, depth first; the items of user-named mappings and
    of lists of mappings appear as ``<name>`` and ``[i]``."""
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        yield key, field
        tp, _ = _field_type(field)
        if _is_model(tp):
            yield from iter_keys(tp, f"{key}.")
        elif get_origin(tp) is list and _is_model(_unwrap(get_args(tp)[0])[0]):
            yield from iter_keys(_unwrap(get_args(tp)[0])[0], f"{key}[i].")
        elif get_origin(tp) is dict and _is_model(_unwrap(get_args(tp)[1])[0]):
            item = _unwrap(get_args(tp)[1])[0]
            label = "<name>" if name == "generators" else "<id>"
            yield from iter_keys(item, f"{key}.{label}.")


def _role(field: FieldInfo) -> str:
    _, metadata = _field_type(field)
    return next((m.role for m in metadata if isinstance(m, Kind)), "")


def output_fields(model: type[BaseModel]) -> list[str]:
    """The keys of one section (not of its subsections) whose values are paths it writes."""
    return [name for name, field in model.model_fields.items() if _role(field) == OUTPUT]


def output_keys() -> list[str]:
    """Every key whose value is a path a command writes (checked to stay in the repository)."""
    return [key for key, field in iter_keys() if _role(field) == OUTPUT and "<" not in key]


def model_at(loc: tuple[str | int, ...], root: type[BaseModel] = Params) -> type[BaseModel] | None:
    """The section model that holds the key at ``loc`` + one more part, if any."""
    tp: Any = root
    for part in loc:
        tp, _ = _unwrap(tp)
        if _is_model(tp):
            field = tp.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None
            tp = field.annotation
        elif get_origin(tp) in (list, dict):
            tp = get_args(tp)[-1]
        else:
            return None
    tp, _ = _unwrap(tp)
    return tp if _is_model(tp) else None


# --- problems: pydantic's errors and the checks between keys, as one-line messages --


_SIMPLE = re.compile(r"[A-Za-z0-9_-]+")


def dotted(loc: tuple[str | int, ...]) -> str:
    """``('extract', 'sources', 0, 'tpye')`` -> ``extract.sources[0].tpye``; a mark or other
    key that is not a plain word is quoted: ``extract.marks['*?']``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _SIMPLE.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a params file: where (a key path) and what, as one line."""

    loc: tuple[str | int, ...]
    text: str
    hint: str | None = None
    line: int | None = None  # where the file is known to say it; else found from loc

    @classmethod
    def at(cls, loc: tuple[str | int, ...], message: str, hint: str | None = None) -> "Problem":
        return cls(loc, f"{dotted(loc)}: {message}" if loc else message, hint)


def _suggestion(loc: tuple[str | int, ...], root: type[BaseModel]) -> str:
    """``(did you mean min_tokens?)`` for an unknown key, from the keys of its section."""
    model = model_at(loc[:-1], root)
    if model is None:
        return ""
    key = str(loc[-1])
    known = list(model.model_fields)
    for name in known:  # a key one level too high: top_p beside decoding
        tp, _ = _field_type(model.model_fields[name])
        if _is_model(tp) and key in tp.model_fields:
            return f" (did you mean {name}.{key}?)"
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    if len(known) <= 12:
        return f" (known: {', '.join(known)})"
    return " (see the README's params table)"


_TYPE_WORDS = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}
_BOUNDS = {
    "greater_than_equal": ("at least", "ge"),
    "greater_than": ("greater than", "gt"),
    "less_than_equal": ("at most", "le"),
    "less_than": ("less than", "lt"),
}


def _message(error: Any, root: type[BaseModel]) -> str:
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    loc = tuple(error["loc"])
    if kind == "extra_forbidden":
        return "unknown parameter" + _suggestion(loc, root)
    if kind == "missing":
        return "missing (this key is required)"
    if kind in _TYPE_WORDS:
        text = f"must be {_TYPE_WORDS[kind]}, not {shown(value)}"
        if isinstance(value, str) and kind in ("bool_type", "int_type", "float_type"):
            text += " (a quoted string: write it without quotes)"
        if loc and loc[-1] == "[key]":
            text = f"every key must be text, not {shown(value)}"
        return text
    if kind == "invalid_key":
        return f"every key must be text, not {shown(value)}"
    if kind == "literal_error":
        return f"must be {ctx.get('expected', 'an allowed value')}, not {shown(value)}"
    if kind in _BOUNDS:
        words, bound = _BOUNDS[kind]
        return f"must be {words} {ctx.get(bound)}, not {shown(value)}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "too_long":
        return f"must hold at most {ctx.get('max_length')} item(s), not {ctx.get('actual_length')}"
    if kind == "too_short":
        return f"must hold at least {ctx.get('min_length')} item(s)"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    return str(error["msg"])[:1].lower() + str(error["msg"])[1:]


def problems_of(
    exc: ValidationError, root: type[BaseModel] = Params, prefix: tuple[str | int, ...] = ()
) -> list[Problem]:
    """pydantic's errors as problems that name the dotted key (``prefix`` first, when
    ``root`` is a part of the params, such as one generator)."""
    problems = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        if loc and loc[-1] == "[key]":  # a key of a user-named mapping: name the mapping
            loc = loc[:-2]
        elif error["type"] == "invalid_key":  # a key of a section that is not text
            loc = loc[:-1]
        problems.append(Problem.at((*prefix, *loc), _message(error, root)))
    return problems


def validated(
    model: type[ModelT], data: object, where: tuple[str | int, ...], path: str | Path
) -> ModelT:
    """``data`` checked against one part of the params (a generator, a source) that a caller
    built in code; the first problem is one line naming the dotted key. ``load_params`` has
    checked the same part already, with the line in the file."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problem = problems_of(exc, model, where)[0]
        raise RucolaError(problem.text, path, hint=problem.hint) from None


def generator_problems(
    name: str,
    generator: Generator,
    source_ids: Collection[str],
    where: tuple[str | int, ...] = (),
) -> list[Problem]:
    """What one generator lacks to run: a model, a pivot model, sources that exist."""
    where = where or ("generate", "generators", name)
    problems = []
    method = generator.method
    if method != "perturbation" and not generator.model:
        problems.append(Problem.at((*where, "model"), f"method {method} needs a model"))
    if method == "back_translation" and not generator.pivot_model:
        problems.append(Problem.at((*where, "pivot_model"), "back_translation needs a pivot_model"))
    if not generator.sources:
        problems.append(
            Problem.at((*where, "sources"), "no sources", hint="list ids from generate.sources")
        )
    defined = ", ".join(sorted(source_ids)) or "none"
    for i, source in enumerate(generator.sources):
        if source not in source_ids:
            problems.append(
                Problem.at(
                    (*where, "sources", i),
                    f"unknown source '{source}' (defined in generate.sources: {defined})",
                )
            )
    return problems


def m2_mapping_problems(
    categories: dict[str, str], ignore: Sequence[str], error_types: Sequence[str]
) -> list[Problem]:
    """``extract.m2.categories`` must map onto ``extract.error_types`` (compared as the M2
    reader compares them: case and surrounding spaces aside), and no edit type may be both a
    category and ignored. The one check of a mapping: on load, where the message names the
    params file given and its line, and in the M2 reader for a mapping given in code."""
    where = ("extract", "m2")
    problems = []
    known = {t.strip().lower() for t in error_types}
    for pattern, category in categories.items():
        if category.strip().lower() not in known:
            problems.append(
                Problem.at(
                    (*where, "categories", pattern),
                    f"maps to {category!r}, which is not in extract.error_types",
                    hint=f"use one of {', '.join(error_types)}",
                )
            )
    for i, pattern in enumerate(ignore):
        if pattern in categories:
            problems.append(
                Problem.at(
                    (*where, "ignore", i),
                    f"extract.m2.categories and extract.m2.ignore both name '{pattern}'",
                    hint="an edit type is either a grammatical category or ignored",
                )
            )
    return problems


def cross_problems(params: Params) -> list[Problem]:
    """Checks between keys of an otherwise valid params file."""
    problems: list[Problem] = []
    generate = params.generate
    for name, generator in generate.generators.items():
        problems += generator_problems(name, generator, generate.sources.keys())
    for section in ("filter", "screen"):
        low, high = getattr(params, section).min_tokens, getattr(params, section).max_tokens
        if low is not None and high is not None and low > high:
            problems.append(
                Problem.at(
                    (section, "min_tokens"), f"{low} is more than {section}.max_tokens ({high})"
                )
            )
    frequency = params.filter.frequency
    if frequency.source == "rnc" and not frequency.path:
        problems.append(
            Problem.at(
                ("filter", "frequency", "source"),
                "is 'rnc' but filter.frequency.path names no dictionary",
                hint="filter.frequency.path: [data/raw/freqrnc2011.tsv]",
            )
        )
    annotate = params.annotate
    if annotate.controls_per_page >= annotate.page_size:
        problems.append(
            Problem.at(
                ("annotate", "controls_per_page"),
                f"{annotate.controls_per_page} leaves no room for tasks on a page of "
                f"annotate.page_size {annotate.page_size}",
                hint="controls_per_page must be less than page_size",
            )
        )
    extract = params.extract
    problems += m2_mapping_problems(extract.m2.categories, extract.m2.ignore, extract.error_types)
    simulate = params.annotate.simulate
    if simulate.overlap > simulate.max_overlap:
        problems.append(
            Problem.at(
                ("annotate", "simulate", "overlap"),
                f"{simulate.overlap} is more than max_overlap ({simulate.max_overlap})",
            )
        )
    return problems


# --- the README's params table -------------------------------------------------------

TABLE_BEGIN = (
    "<!-- params table: generated from rucola/settings.py by `python -m rucola.settings`;"
    " edit the schema, not the table -->"
)
TABLE_END = "<!-- end of params table -->"


def _flow(value: Any) -> str:
    """A value as YAML flow style, the way params.yaml writes it."""
    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_defaults=True)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value else "''"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    return str(value)


def _describe(tp: Any, metadata: list[Any], plural: bool = False) -> str:
    """The type column: ``integer ≥ 1``, ``path``, ``list of paths``, ``… or null``."""
    nullable = False
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp, *meta = get_args(tp)
            for m in meta:  # a Field(...) inside Annotated carries its own constraints
                metadata = [*metadata, *(m.metadata if isinstance(m, FieldInfo) else [m])]
        elif origin in (Union, UnionType):
            rest = [a for a in get_args(tp) if a is not type(None)]
            nullable = nullable or len(rest) < len(get_args(tp))
            tp = rest[0]
        else:
            break
    kind = next((m for m in metadata if isinstance(m, Kind)), None)
    if kind is not None:
        text = kind.plural if plural and kind.plural else kind.text
    elif origin is Literal:
        text = ", ".join(f"`{a}`" for a in get_args(tp))
    elif origin is list:
        text = "list of " + _describe(get_args(tp)[0], [], plural=True)
    elif origin is dict:
        text = "mapping to " + _describe(get_args(tp)[1], [], plural=True)
    elif _is_model(tp):
        text = "mappings (keys below)" if plural else "mapping (keys below)"
    else:
        text = {bool: "true or false", int: "integer", str: "text"}.get(tp, str(tp))
        if plural and tp is int:
            text = "integers"
    # annotated_types' Ge, Le and MaxLen, the constraints Field(ge=, le=, max_length=) makes
    low = next((m.ge for m in metadata if type(m).__name__ == "Ge"), None)
    high = next((m.le for m in metadata if type(m).__name__ == "Le"), None)
    if low is not None and high is not None:
        text += f" {low} to {high}"
    elif low is not None:
        text += f" ≥ {low}"
    for m in metadata:
        if type(m).__name__ == "MaxLen" and origin is list:
            text += f" (at most {m.max_length})"
    return text + (" or null" if nullable else "")


def params_table() -> str:
    """The README's params table, one row per key, from the schema alone."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, field in iter_keys():
        tp, _ = _field_type(field)
        if _is_model(tp):
            continue  # its keys have rows of their own
        if field.is_required():
            default = "required"
        else:
            text = _flow(field.get_default(call_default_factory=True))
            default = f"`{text}`" if len(text) <= 48 else "see `params.yaml`"
        kind = _describe(field.annotation, list(field.metadata))
        rows.append(f"| `{key}` | {kind} | {default} | {field.description or ''} |")
    return "\n".join(rows)


def readme_with_table(readme: str) -> str:
    """``readme`` with the text between the table markers replaced by :func:`params_table`."""
    start = readme.index(TABLE_BEGIN) + len(TABLE_BEGIN)
    end = readme.index(TABLE_END)
    return f"{readme[:start]}\n{params_table()}\n{readme[end:]}"


def _main(path: Path = Path("README.md")) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(readme_with_table(text), encoding="utf-8")


if __name__ == "__main__":
    _main()
