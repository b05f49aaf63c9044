"""Backends turn a list of input texts into output texts; the rest of the stage is shared."""

from __future__ import annotations

from typing import Any

from rucola.generation.backends.base import Backend
from rucola.generation.models import ResolvedModel


def load_backend(
    name: str,
    model: ResolvedModel,
    src_lang: str,
    tgt_lang: str,
    settings: dict[str, Any],
    cache_dir: str,
) -> Backend:
    """Build the backend ``name`` for one model (imports the GPU stack only here)."""
    if name == "ctranslate2":
        from rucola.generation.backends.ctranslate2_backend import CTranslate2Backend

        return CTranslate2Backend(model, src_lang, tgt_lang, settings, cache_dir)
    from rucola.generation.backends.transformers_backend import TransformersBackend

    return TransformersBackend(model, src_lang, tgt_lang, settings)
