"""Files derived from the params schema (``rucola.settings``), written by a command so that
no value is kept in step by hand: the complete params files and the params table.

Defaults live in the schema only. A preset is a small overlay under ``configs/overlays/``
naming only what differs from the defaults (``sample.yaml``: the project's own choices, the
embedded sample; ``rucola-v1.yaml``, ``rucola-v1.1.yaml``: the published corpus). The
complete files (``params.yaml``, ``configs/<preset>.yaml``) carry every key, because DVC
interpolates them, tracks each key a stage names and sets keys with ``exp run -S``; they
are generated from the defaults plus the overlay, each key with its schema description as
a comment. :func:`generate` writes them (or, checking, names the stale ones); :func:`readme`
does the same for the params table in ``docs/params.md``.

``params.yaml`` alone is then the user's (and DVC's, ``exp apply``): written when missing,
afterwards only given the keys the schema gains, and checked by what it says, not by its
bytes (``rucola.dev.user_params``): a regeneration that put the overlay's values back would
leave ``dvc.lock`` and ``reports/`` describing values no file holds any more.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from rucola.dev.user_params import USER_FILE, differing, missing, read_values
from rucola.errors import RucolaError
from rucola.registry import NameCheck
from rucola.settings import (
    Kind,
    Params,
    _field_type,
    _is_model,
    defaults_of,
    iter_keys,
    problems_of,
)

__all__ = ["PRESETS", "TABLE_END", "generate", "params_table", "readme", "render"]

# generated file -> its overlay (both relative to the repository root)
PRESETS: dict[str, str] = {
    "params.yaml": "configs/overlays/sample.yaml",
    "configs/rucola-v1.yaml": "configs/overlays/rucola-v1.yaml",
    "configs/rucola-v1.1.yaml": "configs/overlays/rucola-v1.1.yaml",
    "configs/cola.yaml": "configs/overlays/cola.yaml",
    "configs/itacola.yaml": "configs/overlays/itacola.yaml",
}
COMMAND = "python -m rucola.dev generate"
COMMENT_COLUMN = 40  # where a key's description starts when its value is short
LINE_WIDTH = 110


# --- the complete params files -------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Block mappings, but a list of plain values on one line (``[a, b]``), as people write
    them, and no aliases (a value used twice is written twice)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_list(self, data: Any) -> yaml.Node:
        flat = all(not isinstance(v, dict | list) and not _is_block(v) for v in data)
        return self.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat)

    def represent_str(self, data: str) -> yaml.Node:
        """A plain word or path unquoted (YAML still quotes one that reads as another type,
        such as ``null``); text of several lines (the card's words, a BibTeX entry) as a
        literal block, line for line as it is written; anything else (``*?``, ``G:*``, the
        empty mark) in double quotes."""
        if _is_block(data):
            return self.represent_scalar("tag:yaml.org,2002:str", data, style="|")
        style = None if _PLAIN.fullmatch(data) else '"'
        return self.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _is_block(value: Any) -> bool:
    """Text that reads best as a literal block: several lines, none ending in a space (YAML
    cannot keep trailing spaces in a block, and would fall back to quotes)."""
    return (
        isinstance(value, str)
        and "\n" in value
        and not any(line != line.rstrip() for line in value.split("\n"))
    )


_PLAIN = re.compile(r"[\w.][\w ./-]*(?<! )")
_Dumper.add_representer(list, _Dumper.represent_list)
_Dumper.add_representer(str, _Dumper.represent_str)


def _merged(defaults: dict[str, Any], overlay: dict[str, Any], model: type[BaseModel]) -> Any:
    """The overlay over the defaults: sections merge key by key; any other value (a list,
    a user-named mapping such as ``generate.sources``) is replaced whole, as given."""
    out = dict(defaults)
    for key, value in overlay.items():
        field = model.model_fields.get(key)
        tp = _field_type(field)[0] if field is not None else None
        if tp is not None and _is_model(tp) and isinstance(value, dict):
            out[key] = _merged(defaults.get(key) or {}, value, tp)
        else:
            out[key] = value
    return out


def _lines(data: dict[str, Any], model: type[BaseModel], indent: str) -> Iterator[str]:
    """``data`` (every key of ``model``, in schema order) as YAML, each key with its
    description: beside a one-line value, above a longer one."""
    for name, field in model.model_fields.items():
        value = data[name]
        doc = " ".join((field.description or "").split())
        tp = _field_type(field)[0]
        if _is_model(tp):
            yield _commented(f"{indent}{name}:", doc)
            yield from _lines(value, tp, indent + "  ")
            continue
        text = yaml.dump(
            {name: value}, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=88
        ).rstrip("\n")
        if text.endswith("\n..."):
            text = text[: -len("\n...")]
        # PyYAML writes the empty key as an explicit ``? ""`` entry; params files say ``"":``
        text = re.sub(r'\? ""\n *: ', '"": ', text)
        block = [indent + line for line in text.split("\n")]
        if len(block) == 1:
            yield _commented(block[0], doc)
        else:
            if doc:
                yield f"{indent}# {doc}"
            yield from block


def _commented(line: str, doc: str) -> str:
    """``line`` with ``doc`` beside it, or above it when the two would not fit a line."""
    if not doc:
        return line
    column = max(COMMENT_COLUMN, len(line) + 2)
    if column + len(doc) + 2 > LINE_WIDTH:
        indent = line[: len(line) - len(line.lstrip())]
        return f"{indent}# {doc}\n{line}"
    return f"{line.ljust(column - 1)} # {doc}"


def _header(overlay_text: str) -> list[str]:
    """The overlay's leading comment block."""
    lines = []
    for line in overlay_text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return lines


INCLUDE = "include"  # an overlay's list of overlays (beside it) merged first, in order


def _overlay_data(overlay: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """What ``overlay`` says, over the overlays it includes (``include: [rucola.yaml]``:
    files in the overlay's own folder, merged first and in order, each of which may include
    others): a corpus's words written once (RuCoLA's identity) serve several presets."""
    data = yaml.safe_load(overlay.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise RucolaError("an overlay must be a mapping of sections", overlay)
    names = data.pop(INCLUDE, [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise RucolaError(f"{INCLUDE}: must be a list of overlay file names", overlay)
    base: dict[str, Any] = {}
    for name in names:
        included = overlay.parent / name
        if Path(name).name != name or not included.is_file():
            raise RucolaError(
                f"{INCLUDE}: {name!r} is not an overlay file beside this one", overlay
            )
        if included.resolve() in seen:
            raise RucolaError(f"{INCLUDE}: {name!r} includes this overlay again", overlay)
        base = _merged(base, _overlay_data(included, (*seen, overlay.resolve())), Params)
    return _merged(base, data, Params)


def _complete(overlay: Path, schema: type[BaseModel]) -> tuple[str, dict[str, Any]]:
    """The overlay's text and every key's value, the overlay (with what it includes) over
    the schema's defaults; an overlay the schema refuses is one line naming the overlay file
    and key."""
    text = overlay.read_text(encoding="utf-8")
    merged = _merged(defaults_of(schema), _overlay_data(overlay), schema)
    return text, _checked(merged, overlay, schema)


def _checked(merged: dict[str, Any], source: Path, schema: type[BaseModel]) -> dict[str, Any]:
    """``merged`` when the schema takes it; else the one line naming ``source`` and key."""
    try:
        schema.model_validate(merged)
    except ValidationError as exc:
        problem = problems_of(exc, schema, data=merged)[0]
        raise RucolaError(problem.text, source, hint=problem.hint) from None
    return merged


def _text(data: dict[str, Any], header: list[str], schema: type[BaseModel]) -> str:
    """A complete params file: ``header``, then every section of ``data`` with its keys."""
    lines = list(header)
    for section, field in schema.model_fields.items():
        lines.append("")
        doc = " ".join((field.description or "").split())
        lines.append(_commented(f"{section}:", doc))
        lines.extend(_lines(data[section], _field_type(field)[0], "  "))
    return "\n".join(lines) + "\n"


def render(overlay: Path, name: str, schema: type[BaseModel] = Params) -> str:
    """The complete params file of one overlay (``name``: the overlay as the header names
    it); an overlay the schema refuses is one line naming the overlay file and key."""
    text, merged = _complete(overlay, schema)
    header = [
        f"# GENERATED by `{COMMAND}` from the schema's defaults (rucola/settings/) and",
        f"# {name}: edit those, not this file (`make lint` fails while it is stale).",
        "#",
        *_header(text),
    ]
    return _text(merged, header, schema)


def _user_header(overlay: str, overlay_text: str) -> list[str]:
    """The header of a ``params.yaml`` written afresh: whose file it is."""
    return [
        "# The params `dvc repro` and every stage command read: yours to edit, and DVC's (`dvc",
        "# exp run -S` and `dvc exp apply` rewrite it). `make generate` wrote it from the",
        f"# schema's defaults (rucola/settings/) and {overlay}; it never changes",
        "# a value here, only adds a key the schema gains, and `make lint` checks the keys and",
        "# values against the schema, not the bytes. Back to those defaults: `rm params.yaml",
        "# && make generate`; a preset: `cp configs/rucola-v1.yaml params.yaml`.",
        "#",
        *_header(overlay_text),
    ]


def _listed(keys: list[str], most: int = 5) -> str:
    shown = ", ".join(keys[:most])
    return shown + (f" and {len(keys) - most} more" if len(keys) > most else "")


def _user_file(root: Path, overlay: str, check: bool, schema: type[Params]) -> list[str]:
    """``params.yaml`` (see ``rucola.dev.user_params``): a file the schema refuses is its
    problems, one line each; a file lacking keys is stale, and is completed with the
    schema's defaults for those keys (never the sample's overlay: a corpus of one's own
    takes no sample rounds, key or licence), every value it holds kept; anything else is
    left byte for byte as it is."""
    path = root / USER_FILE
    values = read_values(path, schema)
    lacking = missing(values, schema)
    if not lacking:
        if not check:
            _, merged = _complete(root / overlay, schema)
            own = differing(values, merged, schema)
            if own:
                print(
                    f"note: {USER_FILE} keeps its own {_listed(own)} (the defaults with"
                    f" {overlay} differ); `rm {USER_FILE} && make generate` takes theirs",
                    file=sys.stderr,
                )
        return []
    if check:
        print(f"note: {USER_FILE} lacks {_listed(lacking)}", file=sys.stderr)
        return [USER_FILE]
    header = _header(path.read_text(encoding="utf-8")) or _completed_header()
    complete = _checked(_merged(defaults_of(schema), values, schema), path, schema)
    path.write_text(_text(complete, header, schema), encoding="utf-8")
    print(
        f"note: {USER_FILE}: added {_listed(lacking)} with the schema's defaults, every value"
        " it held kept",
        file=sys.stderr,
    )
    return [USER_FILE]


def _completed_header() -> list[str]:
    """The header of a short ``params.yaml`` completed in place, when it had none."""
    return [
        "# The params `dvc repro` and every stage command read: yours to edit, and DVC's (`dvc",
        f"# exp run -S` and `dvc exp apply` rewrite it). `{COMMAND}` completed it with the",
        "# schema's defaults (rucola/settings/) for every key it lacked; it never changes a",
        "# value here. A corpus of your own: docs/own-corpus.md.",
    ]


def _stale(path: Path, text: str, check: bool) -> bool:
    """Whether ``path`` differs from ``text``; writes it unless checking."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    if not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return True


def generate(root: Path, check: bool = False, schema: type[Params] = Params) -> list[str]:
    """Write the presets ``configs/<preset>.yaml`` from the schema's defaults and their
    overlays, and ``params.yaml`` when it is missing or lacks a key (never changing a value
    it holds); the files written (``check``: the stale ones, nothing written)."""
    changed = []
    for target, overlay in PRESETS.items():
        if target == USER_FILE and (root / target).exists():
            changed += _user_file(root, overlay, check, schema)
            continue
        if target == USER_FILE:
            overlay_text, merged = _complete(root / overlay, schema)
            text = _text(merged, _user_header(overlay, overlay_text), schema)
        else:
            text = render(root / overlay, overlay, schema)
        if _stale(root / target, text, check):
            changed.append(target)
    return changed


# --- the params table (docs/params.md) ----------------------------------------------

TABLE_FILE = "docs/params.md"
TABLE_MARK = "<!-- params table:"  # the begin marker, whatever it said before
TABLE_BEGIN = (
    f"{TABLE_MARK} generated from rucola/settings/ by `{COMMAND}`; edit the schema, not the"
    " table -->"
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
    named = next(
        (m.func for m in metadata if isinstance(getattr(m, "func", None), NameCheck)), None
    )
    if named is not None:  # a registry's names (rucola.registry)
        text = ", ".join(f"`{a}`" for a in named.registry.names())
    elif kind is not None:
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


def params_table(schema: type[BaseModel] = Params) -> str:
    """The params table, one row per key, from the schema alone."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, field in iter_keys(schema):
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


def with_table(text: str, path: Path, schema: type[BaseModel] = Params) -> str:
    """``text`` with its table marker line rewritten and everything up to the end marker
    replaced by :func:`params_table`."""
    begin = text.find(TABLE_MARK)
    end = text.find(TABLE_END, begin)
    if begin < 0 or end < 0:
        raise RucolaError(f"no params table markers ({TABLE_MARK} ... {TABLE_END})", path)
    return f"{text[:begin]}{TABLE_BEGIN}\n{params_table(schema)}\n{text[end:]}"


def readme(root: Path, check: bool = False, schema: type[BaseModel] = Params) -> list[str]:
    """Rewrite the params table in ``docs/params.md`` from the schema; the files written
    (``check``: the stale ones, nothing written)."""
    path = root / TABLE_FILE
    if not path.is_file():
        raise RucolaError("the params table's file is missing", path)
    text = with_table(path.read_text(encoding="utf-8"), path, schema)
    return [TABLE_FILE] if _stale(path, text, check) else []
