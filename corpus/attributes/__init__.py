"""The measured attributes: one module per attribute, each a registered
:class:`~rucola.corpus.measured.MeasuredAttribute` (docs/extending.md, "A measured attribute").

Every module of this package is imported here, so an attribute registers itself by being
defined: a new attribute needs no line anywhere else. ``measure`` writes the columns of
every registered attribute after the input's columns, in the order of their names
(``MEASURED_ATTRIBUTES``); ``filter`` and ``screen`` check that their input has the
attributes their rules need (``FilterRule.needs``).
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
