"""Backends turn a list of input texts into output texts; the rest of the stage is shared."""

from __future__ import annotations

from rucola.generation.backends.base import Backend
from rucola.generation.models import ResolvedModel
from rucola.settings import Generator


def load_backend(
    settings: Generator,
    model: ResolvedModel,
    src_lang: str,
    tgt_lang: str,
    cache_dir: str,
    generator: str = "",
) -> Backend:
    """Build ``settings.backend`` for one model (imports the GPU stack only here);
    ``generator`` is the name errors give."""
    if settings.backend == "ctranslate2":
        from rucola.generation.backends.ctranslate2_backend import CTranslate2Backend

        return CTranslate2Backend(model, src_lang, tgt_lang, settings, cache_dir, generator)
    from rucola.generation.backends.transformers_backend import TransformersBackend

    return TransformersBackend(model, src_lang, tgt_lang, settings, generator)
