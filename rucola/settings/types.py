"""The value types of the params schema: allowed values (``Literal``), numbers kept as
written, paths that are read or written, seeds and counts with safe bounds.

Every section model in ``rucola.settings`` is built from these, so a rule about a kind of
value (what a ratio is, which devices exist) is written once. Stages read the allowed
values from the ``Literal`` types here (``typing.get_args``), never from a list of their own.
"""

import codecs
import copy
import math
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    create_model,
)

from rucola.errors import params_error
from rucola.registry import BACKENDS, GENERATION_METHODS, LANGUAGES, SOURCE_READERS

# Allowed values: the stages read them from here (``typing.get_args``), never keep a copy.
Verdict = Literal["acceptable", "unacceptable", "exclude"]
# A source's format: a type some reader of corpus.sources.formats registers
# (rucola.registry.SOURCE_READERS; the schema asks the registry, so a new reader is one
# module).
SourceType = Annotated[str, AfterValidator(SOURCE_READERS.validator())]
# The domains, the one list of them: a row's ``domain``, the keys of every per-domain
# section (``per_domain``: ``split.ratios``, ``corpus.categories``), the configs and plots of
# a release. ``learner``: minimal pairs from learner corpora's error annotations (M2).
Domain = Literal["in_domain", "out_of_domain", "learner"]
DOMAINS: tuple[str, ...] = get_args(Domain)
IN_DOMAIN, OUT_OF_DOMAIN, LEARNER = DOMAINS
UNLABELLED = -1  # the label of a published test row whose gold the maintainer does not hold
# A generator's method: one of rucola.generation.methods (each owns its keys).
GenerationMethod = Annotated[str, AfterValidator(GENERATION_METHODS.validator())]
# A generator's inference library: a backend of rucola.generation.backends.
Backend = Annotated[str, AfterValidator(BACKENDS.validator())]
# A language profile's ISO 639-1 code: a profile of rucola.corpus.languages.
Language = Annotated[str, AfterValidator(LANGUAGES.validator())]
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
    """How the params table (docs/params.md) names a type (and, for paths, what a command does
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
        raise params_error(f"{key} {problem}")
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
# The corpus's identity (``corpus``): what the card and the dataset's name are made of.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,95}")


def _corpus_name(value: object) -> str:
    """A name that is safe as a file name, a Hub repository name and a config base name:
    letters, digits, ``_`` and ``-`` (no ``/``, no ``..``, no space)."""
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ValueError(
            "must be a name of letters, digits, '_' and '-' (at most 96, starting with a "
            f"letter or digit), not {shown(value)}"
        )
    return value


_LICENSE = re.compile(r"[a-z0-9][a-z0-9.+-]{0,63}")


def _license_id(value: object) -> str:
    """A Hub licence id (``apache-2.0``, ``cc-by-4.0``, ``other``, ``unknown``): it goes into
    the card's YAML, which the Hub checks against its list."""
    if not isinstance(value, str) or not _LICENSE.fullmatch(value):
        raise ValueError(
            "must be a Hub licence id in lower case (apache-2.0, cc-by-4.0, other, unknown), "
            f"not {shown(value)}"
        )
    return value


_URL = re.compile(r"https?://[^\s<>\"'`]+")


def _url(value: object) -> str:
    if not isinstance(value, str) or not _URL.fullmatch(value):
        raise ValueError(f"must be an http(s) address without spaces, not {shown(value)}")
    return value


def _description(value: object) -> str:
    """Markdown for the card: text, not only spaces, and no line of ``---`` (which would
    read as the end of the card's YAML front matter to some tools)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"must be text (Markdown), not {shown(value)}")
    if any(line.strip() == "---" for line in value.splitlines()):
        raise ValueError("must not hold a line of '---' (the card's front matter ends there)")
    return value


_ENTRY = re.compile(r"@[A-Za-z]+\s*\{")


def _bibtex(value: object) -> str:
    """One BibTeX entry: ``@type{key, ...}``, its braces balanced, so that the card's
    ``bibtex`` block is one a reference manager reads."""
    if not isinstance(value, str) or not _ENTRY.match(value.strip()):
        raise ValueError(f"must be a BibTeX entry (@article{{key, ...}}), not {shown(value)}")
    depth = 0
    for ch in value:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        raise ValueError("must be a BibTeX entry with balanced braces { }")
    if "```" in value:
        raise ValueError("must not hold ``` (it would end the card's code block)")
    return value


def _title(value: object) -> str:
    """One line of text: the card's title (``# ...``) and its YAML ``pretty_name``."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"must be text, not {shown(value)}")
    if any(ch in value for ch in "\r\n\u2028\u2029"):
        raise ValueError("must be one line (it is the card's title)")
    return value


Title = Annotated[Any, PlainValidator(_title), Kind("text (one line)")]
CorpusName = Annotated[Any, PlainValidator(_corpus_name), Kind("name (letters, digits, _ -)")]
LicenseId = Annotated[Any, PlainValidator(_license_id), Kind("Hub licence id")]
Url = Annotated[Any, PlainValidator(_url), Kind("http(s) address")]
Description = Annotated[Any, PlainValidator(_description), Kind("Markdown text")]
BibTeX = Annotated[Any, PlainValidator(_bibtex), Kind("BibTeX entry", "BibTeX entries")]

# Every seed, whichever library it reaches: numpy's legacy RandomState (datasketch's MinHash
# permutations) takes 0 to 2**32 - 1, the narrowest of numpy, random and torch.
SEED_MAX = 2**32 - 1
Seed = Annotated[int, Field(ge=0, le=SEED_MAX)]


def _count(most: int, least: int = 1) -> Any:
    """A whole number from ``least`` to ``most``. Every size, batch and count key has an
    upper bound, generous but safe: on Linux a params value that exhausts memory ends in the
    OOM killer, which no error handler sees, so such a value must fail validation instead."""
    return Annotated[int, Field(ge=least, le=most)]


Length = _count(100_000, least=0)  # tokens of one sentence


def _key(default: Any, doc: str, **kw: Any) -> Any:
    """A params key: its default (``...``: required) and what it means (docs/params.md's)."""
    if callable(default):  # a factory: list, dict, a section model, a lambda
        return Field(default_factory=default, description=doc, **kw)
    return Field(default, description=doc, **kw)


class Section(BaseModel):
    """A mapping of params keys: unknown keys are an error, values are never coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


class PerDomain(Section):
    """A section with one key per domain (:data:`DOMAINS`, in their order): see
    :func:`per_domain`."""

    def of(self, domain: str) -> Any:
        """The value for ``domain``; a name that is no domain is a ``KeyError``."""
        if domain not in DOMAINS:
            raise KeyError(domain)
        return getattr(self, domain)


def per_domain(kind: Any, doc: str, defaults: dict[str, Any], **kw: Any) -> type[PerDomain]:
    """The base of a section whose keys are the domains (:data:`DOMAINS`), each of type
    ``kind``, described by ``doc``, with its default from ``defaults`` (one per domain, in
    their order): written as ``class SplitRatios(per_domain(Ratios, ...))``, so a new domain
    is a new key of every such section at once, and a section never lists the domains."""
    if tuple(defaults) != DOMAINS:
        raise ValueError(f"per_domain defaults must name {', '.join(DOMAINS)}, in that order")
    fields: dict[str, Any] = {
        domain: (kind, _key(lambda value=value: copy.deepcopy(value), doc, **kw))
        for domain, value in defaults.items()
    }
    return create_model("PerDomainKeys", __base__=PerDomain, __module__=__name__, **fields)
