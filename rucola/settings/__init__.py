"""The params schema: every key of ``params.yaml``, its type, range, allowed values and default.

One place for all of it, because copies (code defaults, generator defaults and
``params.yaml``) had drifted apart, and a hand-written check per key let misspelt keys,
wrong types and out-of-range values through silently or as tracebacks. Every section is a
pydantic model that forbids unknown keys at every depth (list items and the items of the
user-named mappings included) and validates strictly: ``"false"`` is not false and ``"42"``
is not 42, because coercion would hide the mistake. Numbers keep the type they were written
with (``min_ipm: 1`` stays 1), so a report never changes because of validation alone.

By concern: ``types`` (kinds of values and allowed values), ``corpus``, ``generate`` and
``annotate`` (the section models), ``schema`` (``Params``, the whole file), ``keys`` (what
the schema says about its keys) and ``problems`` (one-line messages, checks between keys).
Reading the file and pointing at its lines is ``rucola.params``. This package imports
nothing of the stages, so every layer can use it; import its names from here.
"""

from rucola.settings.annotate import Annotate, AnnotateCorpus, Simulate, VoteColumns
from rucola.settings.corpus import (
    DEFAULT_M2_CATEGORIES,
    DEFAULT_M2_IGNORE,
    Baseline,
    Extract,
    ExtractM2,
    ExtractSource,
    Filter,
    Frequency,
    Measure,
    NearDuplicates,
    Release,
    Screen,
    Split,
    SplitRatios,
    Summarize,
    Validate,
)
from rucola.settings.generate import Decoding, Generate, GenerationSource, Generator, Merge, Ray
from rucola.settings.keys import (
    _field_type,
    _is_model,
    _unwrap,
    defaults_of,
    iter_keys,
    model_at,
    output_fields,
    output_keys,
)
from rucola.settings.problems import (
    REMOVED_KEYS,
    Problem,
    cross_problems,
    dotted,
    generator_problems,
    m2_mapping_problems,
    problems_of,
    validated,
)
from rucola.settings.schema import Params
from rucola.settings.types import (
    DEFAULT_MARKS,
    INPUT,
    OUTPUT,
    SEED_MAX,
    AggregationMethod,
    AnnotatorKey,
    AnswerFormat,
    Backend,
    Domain,
    Dtype,
    GenerationMethod,
    Kind,
    NewRows,
    PerturbationRule,
    RepeatedVotes,
    Section,
    SourceFormat,
    SourceType,
    Strategy,
    Verdict,
    ratios_problem,
    shown,
    split_ratios,
)

__all__ = [
    "DEFAULT_M2_CATEGORIES",
    "DEFAULT_M2_IGNORE",
    "DEFAULT_MARKS",
    "INPUT",
    "OUTPUT",
    "REMOVED_KEYS",
    "SEED_MAX",
    "AggregationMethod",
    "Annotate",
    "AnnotateCorpus",
    "AnnotatorKey",
    "AnswerFormat",
    "Backend",
    "Baseline",
    "Decoding",
    "Domain",
    "Dtype",
    "Extract",
    "ExtractM2",
    "ExtractSource",
    "Filter",
    "Frequency",
    "Generate",
    "GenerationMethod",
    "GenerationSource",
    "Generator",
    "Kind",
    "Measure",
    "Merge",
    "NearDuplicates",
    "NewRows",
    "Params",
    "PerturbationRule",
    "Problem",
    "Ray",
    "Release",
    "RepeatedVotes",
    "Screen",
    "Section",
    "Simulate",
    "SourceFormat",
    "SourceType",
    "Split",
    "SplitRatios",
    "Strategy",
    "Summarize",
    "Validate",
    "Verdict",
    "VoteColumns",
    "_field_type",
    "_is_model",
    "_unwrap",
    "cross_problems",
    "defaults_of",
    "dotted",
    "generator_problems",
    "iter_keys",
    "m2_mapping_problems",
    "model_at",
    "output_fields",
    "output_keys",
    "problems_of",
    "ratios_problem",
    "shown",
    "split_ratios",
    "validated",
]
