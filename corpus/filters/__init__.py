"""Filter rules: each a small class that keeps a row or names the reason it is set aside.

``rucola.rules`` holds the contract and :func:`~rucola.rules.apply_rules`; ``length``
and ``frequency`` judge each row on its own values and register themselves in
``registry.THRESHOLDS``; ``duplicates`` judges a row against the whole stream; ``stage``
runs them as the ``filter`` and ``screen`` stages.

Every module of this package is imported here, so a rule registers itself by being
defined: a new rule module needs no line anywhere else.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
