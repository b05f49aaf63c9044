"""``backend: transformers``: ``model.generate`` in PyTorch (transformers_backend.py)."""

from __future__ import annotations

from typing import Any

from rucola.generation.backends.base import Backend, BackendEntry
from rucola.registry import BACKENDS


@BACKENDS.register
class Transformers(BackendEntry):
    name = "transformers"

    @classmethod
    def load(cls, settings: Any, model: Any, src_lang: str, tgt_lang: str, cache_dir: str,
             generator: str) -> Backend:  # fmt: skip
        from rucola.generation.backends.transformers_backend import TransformersBackend

        return TransformersBackend(model, src_lang, tgt_lang, settings, generator)
