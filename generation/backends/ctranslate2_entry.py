"""``backend: ctranslate2``: a converted model in CTranslate2 (ctranslate2_backend.py); the
conversion is cached under ``generate.cache_dir``."""

from __future__ import annotations

from typing import Any

from rucola.generation.backends.base import Backend, BackendEntry
from rucola.registry import BACKENDS


@BACKENDS.register
class CTranslate2(BackendEntry):
    name = "ctranslate2"

    @classmethod
    def load(cls, settings: Any, model: Any, src_lang: str, tgt_lang: str, cache_dir: str,
             generator: str) -> Backend:  # fmt: skip
        from rucola.generation.backends.ctranslate2_backend import CTranslate2Backend

        return CTranslate2Backend(model, src_lang, tgt_lang, settings, cache_dir, generator)
