"""Problems in a params file as one-line messages: pydantic's errors naming the dotted
key (with "did you mean" for a misspelt key, and what replaced a removed one), and the
checks between keys that no single field can make."""

import difflib
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from rucola.errors import RucolaError
from rucola.registry import GENERATION_METHODS, LANGUAGES
from rucola.settings.generate import Generator
from rucola.settings.keys import _field_type, _is_model, model_at
from rucola.settings.schema import Params
from rucola.settings.types import DOMAINS, LEARNER, PerturbationRule, shown

ModelT = TypeVar("ModelT", bound=BaseModel)


# Keys that named a path another key already names (the key of the stage that writes it):
# a path is written once, so the reader follows the writer. An old params file that still
# gives one is told what replaced it, instead of "unknown parameter".
_MOVE = "(set that key to move the file)"
_CATEGORIES = f"the categories are corpus.categories, one list per domain ({', '.join(DOMAINS)})"
REMOVED_KEYS: dict[str, str] = {
    "annotate.corpus.input": f"annotate corpus reads extract.out {_MOVE}",
    "annotate.corpus.annotated": f"annotate corpus reads annotate.out {_MOVE}",
    "annotate.corpus.candidates": f"annotate corpus reads generate.merge.out {_MOVE}",
    "annotate.all_candidates": f"annotate reads generate.merge.out {_MOVE}",
    "annotate.candidates": f"annotate export reads screen.out {_MOVE}",
    "measure.input": f"measure reads annotate.corpus.out {_MOVE}",
    "filter.input": f"filter reads measure.out {_MOVE}",
    "split.input": f"split reads filter.out {_MOVE}",
    "validate.input": f"validate reads split.out {_MOVE}",
    "baseline.input": f"baseline reads split.out {_MOVE}",
    "release.input": f"release reads split.out {_MOVE}",
    "release.validation": f"release reads validate.report {_MOVE}",
    "release.annotation_report": f"release reads annotate.report {_MOVE}",
    "release.votes": f"release reads annotate.votes_out {_MOVE}",
    "screen.reference": "screen's reference is always extract.out",
    "filter.plot": "the token-length plot is drawn after the split, from public rows only: "
    "split.plot",
    "filter.plot_png": "the token-length plot is drawn after the split, from public rows "
    "only: split.plot_png",
    # the categories were two lists beside copies in the code; now one key, per domain
    "extract.error_types": _CATEGORIES,
    "validate.error_types": _CATEGORIES,
    # the card's words were two keys of release; now the corpus's identity, written once
    "release.pretty_name": "the card's title is corpus.pretty_name (the corpus's identity)",
    "release.license": "the licence is corpus.license (the corpus's identity)",
}


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


def _suggestion(loc: tuple[str | int, ...], root: type[BaseModel], data: Any = None) -> str:
    """``(did you mean min_tokens?)`` for an unknown key, from the keys of its section."""
    model = model_at(loc[:-1], root, data)
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
    return " (see the params table, docs/params.md)"


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


def _message(error: Any, root: type[BaseModel], data: Any = None) -> str:
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    loc = tuple(error["loc"])
    if kind == "extra_forbidden":
        replaced = REMOVED_KEYS.get(dotted(loc)) if root is Params else None
        if replaced:
            return f"removed; {replaced}"
        return "unknown parameter" + _suggestion(loc, root, data)
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
    exc: ValidationError,
    root: type[BaseModel] = Params,
    prefix: tuple[str | int, ...] = (),
    data: Any = None,
) -> list[Problem]:
    """pydantic's errors as problems that name the dotted key (``prefix`` first, when
    ``root`` is a part of the params, such as one generator); ``data``, the params as
    read, lets an unknown key's hint list the keys of a generator's own method."""
    problems = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        if loc and loc[-1] == "[key]":  # a key of a user-named mapping: name the mapping
            loc = loc[:-2]
        elif error["type"] == "invalid_key":  # a key of a section that is not text
            loc = loc[:-1]
        problems.append(Problem.at((*prefix, *loc), _message(error, root, data)))
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
    # the checks between keys that the method's own model cannot make (a model to run)
    problems += GENERATION_METHODS[generator.method].problems(generator, where)
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


def perturbation_problems(name: str, generator: Generator, language: str) -> list[Problem]:
    """A perturbation generator's rules must act on ``corpus.language``: most are written
    with pymorphy3's Russian grammemes, so another language lists its rules explicitly,
    from those its profile names (``LanguageProfile.perturbation_rules``)."""
    if generator.method != "perturbation" or language not in LANGUAGES:
        return []
    profile = LANGUAGES[language]
    rules: list[str] | None = getattr(generator, "rules", None)
    applies = list(profile.perturbation_rules)
    if rules is not None and all(rule in applies for rule in rules):
        return []
    where = ("generate", "generators", name, "rules")
    named = ", ".join(applies) or "none"
    if rules is None and len(applies) < len(get_args(PerturbationRule)):
        return [
            Problem.at(
                where,
                f"null (every rule) but corpus.language {language!r} ({profile.title}) "
                f"takes only: {named}",
                hint=f"rules: [{named}]" if applies else "use another generation method",
            )
        ]
    if rules is None:
        return []
    wrong = ", ".join(rule for rule in rules if rule not in applies)
    return [
        Problem.at(
            where,
            f"{wrong} cannot act on corpus.language {language!r} ({profile.title}): "
            f"its rules are {named}",
        )
    ]


def m2_mapping_problems(
    categories: dict[str, str], ignore: Sequence[str], error_types: Sequence[str]
) -> list[Problem]:
    """``extract.m2.categories`` must map onto ``corpus.categories.learner`` (compared as
    the M2 reader compares them: case and surrounding spaces aside), and no edit type may be
    both a category and ignored. The one check of a mapping: on load, where the message
    names the params file given and its line, and in the M2 reader for a mapping given in
    code."""
    where = ("extract", "m2")
    problems = []
    known = {t.strip().lower() for t in error_types}
    for pattern, category in categories.items():
        if category.strip().lower() not in known:
            problems.append(
                Problem.at(
                    (*where, "categories", pattern),
                    f"maps to {category!r}, which is not in corpus.categories.learner",
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


# The identity keys no corpus can be built without, and what each one is for: the schema's
# defaults name no corpus, so a corpus's own params give these (docs/own-corpus.md).
REQUIRED_IDENTITY: dict[str, str] = {
    "name": "the dataset's name (letters, digits, _ -): its release and `load_dataset` name",
    "language": "the language profile (ISO 639-1, e.g. es): tokens, lemmas, word list",
    "license": "the labels' licence, a Hub licence id (cc-by-4.0, other), or `unknown`",
}


def identity_problems(params: Params) -> list[Problem]:
    """The identity keys a corpus leaves unset (null, the schema's defaults), each named:
    every stage reads the language, and the card the name and the licence. All of them are
    reported at once (see ``rucola.params``), so a new corpus learns what it lacks in one run."""
    corpus = params.corpus
    return [
        Problem.at(("corpus", key), "is not set", hint=f"give {what}")
        for key, what in REQUIRED_IDENTITY.items()
        if getattr(corpus, key) is None
    ]


def cross_problems(params: Params) -> list[Problem]:
    """Checks between keys of an otherwise valid params file."""
    problems: list[Problem] = identity_problems(params)
    generate = params.generate
    for name, generator in generate.generators.items():
        problems += generator_problems(name, generator, generate.sources.keys())
        if generator.enabled and params.corpus.language is not None:
            # a disabled generator is a template: it runs on no language
            problems += perturbation_problems(name, generator, params.corpus.language)
    for section in ("filter", "screen"):
        low, high = getattr(params, section).min_tokens, getattr(params, section).max_tokens
        if low is not None and high is not None and low > high:
            problems.append(
                Problem.at(
                    (section, "min_tokens"), f"{low} is more than {section}.max_tokens ({high})"
                )
            )
    frequency = params.filter.frequency
    if frequency.source in ("rnc", "table") and not frequency.path:
        problems.append(
            Problem.at(
                ("filter", "frequency", "source"),
                f"is '{frequency.source}' but filter.frequency.path names no dictionary",
                hint="filter.frequency.path: [data/raw/freqrnc2011.tsv]"
                if frequency.source == "rnc"
                else "filter.frequency.path: [path/to/your/list.tsv]",
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
    learner = params.corpus.categories.of(LEARNER)
    if learner:  # none declared: learner rows take no category, and the mapping is unused
        problems += m2_mapping_problems(extract.m2.categories, extract.m2.ignore, learner)
    simulate = params.annotate.simulate
    if simulate.overlap > simulate.max_overlap:
        problems.append(
            Problem.at(
                ("annotate", "simulate", "overlap"),
                f"{simulate.overlap} is more than max_overlap ({simulate.max_overlap})",
            )
        )
    return problems
