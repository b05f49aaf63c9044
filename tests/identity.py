"""A corpus's identity for tests that write a params file of their own.

The schema's defaults name no corpus (issue 45): ``corpus.name``, ``corpus.language`` and
``corpus.license`` are required, and no domain has categories. A test whose corpus is
RuCoLA-like (Russian rows, RuCoLA's categories) takes RuCoLA's identity from
``configs/overlays/rucola.yaml``, the overlay the sample and the RuCoLA presets include, so
the words live in one place; a test of another language says so (``language="it"``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
_RUCOLA = yaml.safe_load((ROOT / "configs/overlays/rucola.yaml").read_text(encoding="utf-8"))


def rucola_corpus(**changes: Any) -> dict[str, Any]:
    """RuCoLA's ``corpus`` section (a copy), with ``changes`` in place of its keys."""
    return {**copy.deepcopy(_RUCOLA["corpus"]), **changes}


def with_identity(params: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    """``params`` with a whole ``corpus`` section: RuCoLA's, under the keys ``params``
    gives in its own ``corpus`` section, and ``changes`` over both."""
    params = copy.deepcopy(params or {})
    params["corpus"] = {**rucola_corpus(), **params.get("corpus", {}), **changes}
    return params


def identity_yaml(text: str = "", **changes: Any) -> str:
    """The YAML ``text`` of a params file with :func:`with_identity`'s corpus section."""
    data = yaml.safe_load(text) or {}
    return yaml.safe_dump(with_identity(data, **changes), allow_unicode=True, sort_keys=False)
