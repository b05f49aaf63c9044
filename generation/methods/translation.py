"""``method: translation``: a model translates each source sentence (English, say) into the
target language."""

from __future__ import annotations

from typing import Any, Literal

from rucola.generation.methods.base import ModelMethod
from rucola.registry import GENERATION_METHODS
from rucola.settings import ModelGenerator
from rucola.settings.types import _key


class TranslationSettings(ModelGenerator):
    method: Literal["translation"] = _key(..., "translate from src_lang to tgt_lang")


@GENERATION_METHODS.register
class Translation(ModelMethod):
    name = "translation"
    Settings = TranslationSettings
    example = {"method": "translation", "model": "{marian}", "sources": ["Par"]}

    @classmethod
    def input_language(cls, settings: Any) -> str:
        return settings.src_lang

    @classmethod
    def worker(cls, cfg: Any, cache_dir: str) -> Any:
        from rucola.generation.model_worker import ModelWorker

        s = cfg.settings
        return ModelWorker(cfg, cache_dir, (s.src_lang, s.tgt_lang))
