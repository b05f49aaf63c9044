"""``method: paraphrase``: a model rewrites each Russian sentence (a text-to-text model
with a prefix, or a causal LM that continues the first words of the sentence)."""

from __future__ import annotations

from typing import Any, Literal

from rucola.generation.methods.base import ModelMethod
from rucola.registry import GENERATION_METHODS
from rucola.settings import ModelGenerator
from rucola.settings.types import Share, _key


class ParaphraseSettings(ModelGenerator):
    method: Literal["paraphrase"] = _key(..., "rewrite in tgt_lang")
    prefix: str = _key("", "text-to-text paraphrasers: prepended to the input")
    prompt_share: Share = _key(0.5, "causal LMs: share of the source's words given as prompt")


@GENERATION_METHODS.register
class Paraphrase(ModelMethod):
    name = "paraphrase"
    Settings = ParaphraseSettings
    example = {"method": "paraphrase", "model": "{mt5}", "sources": ["Wiki"]}

    @classmethod
    def worker(cls, cfg: Any, cache_dir: str) -> Any:
        from rucola.generation.model_worker import ModelWorker

        s = cfg.settings
        return ModelWorker(
            cfg, cache_dir, (s.tgt_lang, s.tgt_lang), prefix=s.prefix, prompt_share=s.prompt_share
        )
