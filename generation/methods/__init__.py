"""The generation methods: one module per ``method`` of ``generate.generators``, each a
registered :class:`~rucola.generation.methods.base.GenerationMethod` owning the model of
its settings, the language it reads, its checks and its worker (docs/extending.md, "A
generation method").

Every module of this package is imported here, so a method registers itself by being
defined: a new method needs no line anywhere else. ``rucola.registry.GENERATION_METHODS``
imports this package the first time a method is looked up (the params schema validates a
generator with its method's model). A method module imports the heavy stack (torch,
transformers) only inside its worker.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Any

from rucola.registry import GENERATION_METHODS

if TYPE_CHECKING:
    from rucola.generation.config import GeneratorConfig

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def method_of(name: str) -> Any:
    """The registered class of the method ``name``."""
    return GENERATION_METHODS[name]


def make_worker(cfg: GeneratorConfig, cache_dir: str) -> Any:
    """The worker of ``cfg``'s method (its registered class builds it)."""
    return method_of(cfg.method).worker(cfg, cache_dir)
