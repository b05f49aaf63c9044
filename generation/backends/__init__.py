"""Backends turn a list of input texts into output texts; the rest of the stage is shared.

A backend is a registered :class:`~rucola.generation.backends.base.BackendEntry` (its
``name`` is a generator's ``backend``) in a module of this package, which imports every
module here but the implementations (``*_backend.py``): those import the heavy stack
(torch, CTranslate2) and are imported by their entry's ``load``, when a generator runs, so
checking params never needs them.
"""

from __future__ import annotations

import importlib
import pkgutil

from rucola.generation.backends.base import Backend
from rucola.generation.models import ResolvedModel
from rucola.registry import BACKENDS
from rucola.settings import ModelGenerator

IMPLEMENTATION = "_backend"  # the suffix of a module the package does not import itself

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.endswith(IMPLEMENTATION):
        importlib.import_module(f"{__name__}.{_module.name}")


def load_backend(
    settings: ModelGenerator,
    model: ResolvedModel,
    src_lang: str,
    tgt_lang: str,
    cache_dir: str,
    generator: str = "",
) -> Backend:
    """Build ``settings.backend`` for one model (imports the GPU stack only here);
    ``generator`` is the name errors give."""
    return BACKENDS[settings.backend].load(
        settings, model, src_lang, tgt_lang, cache_dir, generator
    )
