"""The language profiles: one module per profile or per family of profiles, each a
registered :class:`~rucola.corpus.languages.profile.LanguageProfile` (``LANGUAGES``,
chosen by ``corpus.language``).

Every module of this package is imported here, so a profile registers itself by being
defined. A module imports nothing heavy at import time (the params schema loads this
package to check a code): tokenizers, analysers and word lists load on first use.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
