"""``method: back_translation``: the pivot model translates each Russian sentence into the
pivot language, and the model translates it back."""

from __future__ import annotations

from typing import Any, Literal

from rucola.generation.methods.base import ModelMethod
from rucola.registry import GENERATION_METHODS
from rucola.settings import ModelGenerator
from rucola.settings.problems import Problem
from rucola.settings.types import Text, _key


class BackTranslationSettings(ModelGenerator):
    method: Literal["back_translation"] = _key(..., "there and back through pivot_lang")
    pivot_model: str | None = _key(None, "`back_translation`: the model back to the source")
    pivot_lang: Text = _key("en", "`back_translation`: the language in between")


@GENERATION_METHODS.register
class BackTranslation(ModelMethod):
    name = "back_translation"
    Settings = BackTranslationSettings
    example = {
        "method": "back_translation",
        "model": "{marian}",
        "pivot_model": "{marian_back}",
        "sources": ["Wiki"],
    }

    @classmethod
    def problems(cls, settings: Any, where: tuple[str | int, ...]) -> list[Problem]:
        found = super().problems(settings, where)
        if not settings.pivot_model:
            found.append(
                Problem.at((*where, "pivot_model"), "back_translation needs a pivot_model")
            )
        return found

    @classmethod
    def worker(cls, cfg: Any, cache_dir: str) -> Any:
        from rucola.generation.model_worker import ModelWorker

        s = cfg.settings
        return ModelWorker(cfg, cache_dir, (s.pivot_lang, s.tgt_lang), pivot=str(s.pivot_model))
