"""Completing a params file: a short overlay over the schema's defaults, written out with
every key and its schema description as a comment.

DVC interpolates ``params.yaml``, tracks each key a stage names and sets keys with ``exp
run -S``, so the file a stage reads carries every key; a person writes only what differs
(an overlay: ``rucola/presets/<preset>.yaml``, or a corpus repository's ``corpus.yaml``).
Both the developer tool (``python -m rucola.dev generate``: this repository's presets and
``params.yaml``) and ``rucola init``/``rucola upgrade`` (a corpus repository's
``params.yaml``) complete a file here, so the two kinds of repository get the same values
from the same overlay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from rucola.errors import RucolaError
from rucola.settings import Params, _field_type, _is_model, defaults_of, problems_of

COMMENT_COLUMN = 40  # where a key's description starts when its value is short
LINE_WIDTH = 110


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
