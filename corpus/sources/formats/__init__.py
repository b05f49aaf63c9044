"""The formats of ``extract.sources``: one module per ``type``, each a registered
:class:`~rucola.corpus.sources.records.SourceReader` (docs/extending.md, "A source reader").

Every module of this package is imported here, so a reader registers itself by being
defined: a new format needs no line anywhere else. ``rucola.registry.SOURCE_READERS``
imports this package the first time a type is looked up (the params schema checks a
source's ``type`` against it). Stages that read published releases (``split``'s pins,
``release``) import ``corpus.sources.rucola_csv`` alone, never this package, so a new
format reruns ``extract`` and what its output feeds, nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
