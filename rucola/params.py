"""Reading ``params.yaml``: the file DVC tracks, checked against the schema in
``rucola.settings`` and merged over its defaults.

Defaults live in the schema so that a params file only needs what it changes. Anything
wrong (an unknown key at any depth, a wrong type, a value out of range, a file that is not
UTF-8 or not YAML) is one line naming the file given, the line in it and the dotted key,
because a typo in a threshold would otherwise be ignored silently or end in a traceback.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from rucola.errors import RucolaError, params_error
from rucola.names import check_name, check_output_path
from rucola.settings import (
    DEFAULT_MARKS,
    Params,
    Problem,
    cross_problems,
    dotted,
    output_keys,
    problems_of,
    shown,
)

__all__ = [
    "DEFAULTS",
    "DEFAULT_MARKS",
    "NAMED_KEYS",
    "OUTPUT_KEYS",
    "PARAMS_FILE",
    "load_settings",
    "with_overrides",
    "value_at",
    "optional_path",
    "path_list",
]

PARAMS_FILE = "params.yaml"
SectionT = TypeVar("SectionT", bound=BaseModel)

# Every key with its default, as plain data.
DEFAULTS: dict[str, Any] = Params().model_dump()

# Every params key whose value is a path a command writes or replaces (checked on load:
# relative paths stay inside the repository, see ``rucola.names``).
OUTPUT_KEYS = output_keys()
# Mappings whose keys become file names: generate.generators.<name> (its candidates, report
# and work folder) and generate.sources.<id> (its input fingerprint).
NAMED_KEYS = ["generate.generators", "generate.sources"]


def value_at(params: BaseModel, dotted: str) -> Any:
    """The value of a dotted key of typed params (``filter.frequency.path``; a section such
    as ``annotate.corpus`` is its model)."""
    value: Any = params
    for key in dotted.split("."):
        value = getattr(value, key)
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
    raise params_error(f"{key} must be a path or a list of paths, not {value!r}")


def optional_path(value: object, key: str, what: str = "file") -> str | None:
    """:func:`path_list` for a key that names at most one input."""
    paths = path_list(value, key)
    if len(paths) > 1:
        raise params_error(f"{key} names {len(paths)} files; give at most one {what}")
    return paths[0] if paths else None


def _path_and_name_problems(params: Params) -> list[Problem]:
    """Output paths that leave the repository, generator or source names that are not
    plain names (they become file names)."""
    problems = []
    for key in OUTPUT_KEYS:
        value = value_at(params, key)
        if value is None:  # optional outputs (annotate.simulate.out_dir) may be null
            continue
        try:
            check_output_path(value, key)
        except RucolaError as exc:
            problems.append(Problem(tuple(key.split(".")), exc.message, exc.hint))
    for key in NAMED_KEYS:
        mapping = value_at(params, key)
        for name in mapping if isinstance(mapping, dict) else ():
            try:
                check_name(name, f"{key}[{name!r}]")
            except RucolaError as exc:
                problems.append(Problem((*key.split("."), name), exc.message, exc.hint))
    return problems


def _read(path: Path) -> str:
    if not path.is_file():
        what = "is a folder, not a params file" if path.is_dir() else "params file not found"
        raise RucolaError(what, path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RucolaError(f"cannot read the params file: {exc.strerror}", path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RucolaError("not valid UTF-8 (save the params file as UTF-8)", path, line) from None


# The most values a params file may hold once its aliases are expanded: the real one holds
# a few hundred; a "billion laughs" (nine nested aliases of nine items) holds 9**9.
MAX_VALUES = 100_000


class _Loader(yaml.SafeLoader):
    """A YAML loader that remembers where the first alias (``*name``) is. An alias repeats
    a node without copying it (``yaml.safe_dump`` writes them for a value used twice),
    so a 20-line file can hold 9**9 values, and checking them took minutes before the
    error came; :func:`_expanded` counts them, at the cost of the distinct nodes only."""

    first_alias: tuple[str, int] | None = None

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        if self.first_alias is None and self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            self.first_alias = (str(event.anchor), event.start_mark.line + 1)
        return super().compose_node(parent, index)  # type: ignore[no-any-return]


def _expanded(node: yaml.Node, memo: dict[int, int]) -> int:
    """How many values ``node`` holds with every alias expanded (a cycle: too many)."""
    key = id(node)
    if key in memo:
        if memo[key] < 0:  # still being counted: the node contains itself
            return MAX_VALUES + 1
        return memo[key]
    memo[key] = -1
    total = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += _expanded(k, memo) + _expanded(v, memo)
            if total > MAX_VALUES:
                break
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            total += _expanded(item, memo)
            if total > MAX_VALUES:
                break
    memo[key] = total
    return total


def _parse(text: str, path: Path) -> tuple[yaml.Node | None, Any]:
    """The YAML node tree (for line numbers) and the data it holds. Composed by libyaml
    where pyyaml has it (every command reads params: the pure-Python parser took 25 ms of
    a tracker's start-up); a file it refuses, or whose aliases expand too far, is read
    again by the pure-Python loader, whose messages (and first alias) the errors give."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        loader = fast(text)
        try:
            root = loader.get_single_node()
            if root is None or _expanded(root, {}) <= MAX_VALUES:
                return root, None if root is None else loader.construct_document(root)
        except yaml.YAMLError:
            pass  # the pure-Python loader says what is wrong, as the messages always did
        finally:
            loader.dispose()
    return _parse_slowly(text, path)


def _parse_slowly(text: str, path: Path) -> tuple[yaml.Node | None, Any]:
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        alias = loader.first_alias
        if root is not None and alias is not None and _expanded(root, {}) > MAX_VALUES:
            raise RucolaError(
                f"the YAML aliases (the first: *{alias[0]}) expand to more than "
                f"{MAX_VALUES} values",
                path,
                alias[1],
                hint="write the values out; no params file needs that many",
            )
        return root, None if root is None else loader.construct_document(root)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        message = " ".join(f"{context + ': ' if context else ''}{problem}".split())
        line = None if mark is None else mark.line + 1
        raise RucolaError(f"not valid YAML: {message}", path, line) from None
    finally:
        loader.dispose()


def _scalar(node: yaml.Node) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _line(root: yaml.Node | None, loc: tuple[str | int, ...]) -> int | None:
    """The line of the deepest key (or list item) of ``loc`` that the file holds."""
    node, line = root, None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if _scalar(k) == str(part)), None)
            if found is None:
                break
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    if line is None and root is not None:
        line = root.start_mark.line + 1
    return line


def _duplicates(node: yaml.Node | None, loc: tuple[str | int, ...] = ()) -> list[Problem]:
    """Keys given twice in one mapping: YAML keeps the last silently."""
    problems: list[Problem] = []
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            name = _scalar(key)
            if name is not None and name in seen:
                message = f"given twice (first on line {seen[name]}); keep one"
                line = key.start_mark.line + 1
                problems.append(replace(Problem.at((*loc, name), message), line=line))
            elif name is not None:
                seen[name] = key.start_mark.line + 1
            problems += _duplicates(value, (*loc, name if name is not None else "?"))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            problems += _duplicates(item, (*loc, i))
    return problems


def _problems(data: Any, schema: type[Params] = Params) -> tuple[list[Problem], Params | None]:
    try:
        model = schema.model_validate(data)
    except ValidationError as exc:
        return problems_of(exc, schema, data=data), None
    return cross_problems(model) + _path_and_name_problems(model), model


def with_overrides(
    section: SectionT, names: dict[str, str] | None = None, **updates: Any
) -> SectionT:
    """``section`` with ``updates`` (None values skipped) in place of its keys, checked by
    the schema exactly as the params file is: ``model_copy(update=...)`` alone would let a
    command-line value round the rules a params file is held to. A value it refuses is one
    line naming where it came from (``names``: key -> ``--option``; else the key)."""
    given = {key: value for key, value in updates.items() if value is not None}
    if not given:
        return section
    data = section.model_dump()
    for key, value in given.items():
        data[key] = str(value) if isinstance(value, Path) else value
    try:
        return type(section).model_validate(data)
    except ValidationError as exc:
        problem = problems_of(exc, type(section))[0]
        key = str(problem.loc[0]) if problem.loc else ""
        text = problem.text.removeprefix(f"{dotted(problem.loc)}: ")
        raise RucolaError(f"{(names or {}).get(key, key)}: {text}", hint=problem.hint) from None


def checked_option(model: type[BaseModel], key: str, value: Any, option: str) -> Any:
    """A command-line value for field ``key`` of ``model``, held to that field's rules as a
    params file is, without reading the rest of the section (a command that takes one key
    of another stage's section, as ``measure --workers`` does ``filter.workers``, covers
    that key alone in its code fingerprint). A refused value is one line naming ``option``."""
    field = model.model_fields[key]
    tp = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
    adapter = TypeAdapter(tp, config=ConfigDict(strict=True))
    try:
        return adapter.validate_python(str(value) if isinstance(value, Path) else value)
    except ValidationError as exc:
        problem = problems_of(exc, model)[0]
        text = problem.text.removeprefix(f"{dotted(problem.loc)}: ")
        raise RucolaError(f"{option}: {text}", hint=problem.hint) from None


def load_settings(path: str | Path | None = None, schema: type[Params] = Params) -> Params:
    """The params a command runs on, as the schema's typed model, every key filled in.

    ``path`` None: ``params.yaml`` in the working directory if there is one, else the
    schema's defaults. A path that is given must exist. Any problem is a ``RucolaError``
    naming the file, the line and the dotted key (every problem, one line each in file
    order). ``schema``: a subclass of ``Params`` (``python -m rucola.dev check``
    holds ``params.yaml`` to the schema it generates from, which a test extends)."""
    if path is None:
        if not Path(PARAMS_FILE).exists():
            return _without_file(schema)
        path = PARAMS_FILE
    path = Path(path)
    root, data = _parse(_read(path), path)
    if data is None:  # an empty file, or comments only: the defaults
        data = {}
    if not isinstance(data, dict):
        raise RucolaError(
            f"must be a mapping of sections (extract:, filter:, ...), not {shown(data)}",
            path,
            _line(root, ()),
        )
    problems = _duplicates(root)
    if not problems:
        problems, params = _problems(data, schema)
        if params is not None and not problems:
            return params
    raise _error(problems, root, path)


# At most this many problems of one params file are listed, one line each, in file order.
MOST_PROBLEMS = 20


def _without_file(schema: type[Params]) -> Params:
    """The schema's defaults when no params file is here, if they make a corpus (a test's
    schema may); the defaults name none, so this is one line saying what to write."""
    params = schema()
    lacking = [dotted(p.loc) for p in cross_problems(params)]
    if lacking:
        raise RucolaError(
            f"not found here, and a corpus needs {', '.join(lacking)}",
            PARAMS_FILE,
            hint="write them into params.yaml (docs/own-corpus.md)",
        )
    return params


def _error(problems: list[Problem], root: yaml.Node | None, path: Path) -> RucolaError:
    """Every problem, one line each in file order (at most :data:`MOST_PROBLEMS`, then how
    many more there are), so a new corpus's params are fixed in one pass."""
    lines = [p.line or _line(root, p.loc) for p in problems]
    order = sorted(range(len(problems)), key=lambda i: (lines[i] is None, lines[i] or 0, i))
    errors = [RucolaError(problems[i].text, path, lines[i], hint=problems[i].hint) for i in order]
    shown_, rest = errors[:MOST_PROBLEMS], len(errors) - MOST_PROBLEMS
    if rest > 0:
        shown_.append(RucolaError(f"and {rest} more problem{'s' if rest > 1 else ''}", path))
    first = shown_[0]
    return RucolaError(first.message, path, first.line, first.hint, more=tuple(shown_[1:]))
