"""A corpus's identity for tests that write a params file of their own.

The schema's defaults name no corpus (issue 45): ``corpus.name``, ``corpus.language`` and
``corpus.license`` are required, and no domain has categories. A test whose corpus is
RuCoLA-like (Russian rows, RuCoLA's categories) takes RuCoLA's identity from
``rucola/presets/rucola.yaml``, the overlay the sample and the RuCoLA presets include, so
the words live in one place; a test of another language says so (``language="it"``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from rucola.settings import Categories, Params

ROOT = Path(__file__).resolve().parents[1]
_RUCOLA = yaml.safe_load((ROOT / "rucola/presets/rucola.yaml").read_text(encoding="utf-8"))


def rucola_corpus(**changes: Any) -> dict[str, Any]:
    """RuCoLA's ``corpus`` section (a copy), with ``changes`` in place of its keys."""
    return {**copy.deepcopy(_RUCOLA["corpus"]), **changes}


def with_identity(params: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    """``params`` with RuCoLA's identity under the keys it gives itself: a whole ``corpus``
    section (``changes`` over both) and RuCoLA's release folders (``release.out``,
    ``release.compat``), section by section."""
    params = copy.deepcopy(params or {})
    for section, values in _RUCOLA.items():
        params[section] = {**copy.deepcopy(values), **(params.get(section) or {})}
    params["corpus"].update(changes)
    return params


def identity_yaml(text: str = "", **changes: Any) -> str:
    """The YAML ``text`` of a params file with :func:`with_identity`'s sections: added
    after ``text`` when it gives none of them (its lines keep their numbers, which messages
    name), else merged into it (the file written anew)."""
    data = yaml.safe_load(text) or {}
    if not set(_RUCOLA) & set(data) and not text.lstrip().startswith("{"):  # not JSON
        identity = with_identity({}, **changes)
        added = yaml.safe_dump(identity, allow_unicode=True, sort_keys=False)
        return (text if not text or text.endswith("\n") else text + "\n") + added
    return yaml.safe_dump(with_identity(data, **changes), allow_unicode=True, sort_keys=False)


def rucola_categories() -> Categories:
    """RuCoLA's categories of unacceptable rows (the schema's default declares none)."""
    from rucola.settings import Categories

    return Categories.model_validate(rucola_corpus()["categories"])


def rucola_params(**sections: Any) -> Params:
    """Typed params of a RuCoLA-like corpus: RuCoLA's identity, the schema's defaults, and
    ``sections`` (``split={...}``) over them; what ``Params()`` was before the defaults
    stopped naming a corpus."""
    from rucola.settings import Params

    return Params.model_validate(with_identity(sections))


def write_identity(folder: Path, **changes: Any) -> Path:
    """``folder/params.yaml`` naming a RuCoLA-like corpus and nothing else: for tests that
    run commands in ``folder`` and do not test params."""
    path = folder / "params.yaml"
    path.write_text(identity_yaml(**changes), encoding="utf-8")
    return path
