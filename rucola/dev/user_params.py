"""``params.yaml`` is the user's file: what it says is compared, never its bytes.

People edit ``params.yaml``, copy a preset over it (``cp configs/rucola-v1.yaml
params.yaml``), and DVC rewrites it (``dvc exp run -S``, ``dvc exp apply``: ruamel's
quoting and flow lists, no comments of ours guaranteed). A byte comparison with the
generated text called every such file stale, and regenerating it put the defaults back
while ``dvc.lock`` and ``reports/`` described the values the person chose. So
``python -m rucola.dev check`` reads the file as a command does (the schema's checks, one
line naming the file, the line and the key), and calls it stale only when a key of the
schema is missing; ``generate`` then adds the missing keys and keeps every value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from rucola.params import load_settings
from rucola.settings import Params, _field_type, _is_model

__all__ = ["USER_FILE", "differing", "missing", "read_values"]

USER_FILE = "params.yaml"


def read_values(path: Path, schema: type[Params] = Params) -> dict[str, Any]:
    """What ``path`` says, as plain data, once the schema accepts it: an unknown key, a
    wrong type or a bad YAML line is the ``RucolaError`` a command would raise."""
    load_settings(path, schema)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def missing(data: dict[str, Any], model: type[BaseModel] = Params, prefix: str = "") -> list[str]:
    """The dotted keys of ``model``'s sections that ``data`` lacks, in schema order (the
    items of a user-named mapping such as ``generate.sources`` are the user's: not keys)."""
    out = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        if name not in data:
            out.append(key)
            continue
        tp = _field_type(field)[0]
        if _is_model(tp) and isinstance(data[name], dict):
            out += missing(data[name], tp, f"{key}.")
    return out


def differing(
    data: dict[str, Any], other: dict[str, Any], model: type[BaseModel] = Params, prefix: str = ""
) -> list[str]:
    """The dotted keys whose values in ``data`` differ from ``other``'s (both complete),
    section by section: what a regeneration from the overlay would have changed."""
    out = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        mine, theirs = data.get(name), other.get(name)
        tp = _field_type(field)[0]
        if _is_model(tp) and isinstance(mine, dict) and isinstance(theirs, dict):
            out += differing(mine, theirs, tp, f"{key}.")
        elif mine != theirs:
            out.append(key)
    return out
