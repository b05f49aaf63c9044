"""``method: perturbation``: rules (pymorphy3) break the agreement, government or word order
of each Russian sentence, on the CPU with no weights."""

from __future__ import annotations

from typing import Any, Literal

from rucola.generation.config import GeneratorConfig
from rucola.generation.methods.base import GenerationMethod
from rucola.generation.perturb import RULES, perturb
from rucola.registry import GENERATION_METHODS
from rucola.settings import GeneratorBase
from rucola.settings.types import PerturbationRule, _count, _key


class PerturbationSettings(GeneratorBase):
    method: Literal["perturbation"] = _key(..., "rules on the CPU, no model")
    rules: list[PerturbationRule] | None = _key(None, "`perturbation`: rules; null: all")
    per_sentence: _count(100) = _key(2, "`perturbation`: candidates per sentence")


@GENERATION_METHODS.register
class Perturbation(GenerationMethod):
    name = "perturbation"
    Settings = PerturbationSettings
    example = {"method": "perturbation", "sources": ["Wiki"]}

    @classmethod
    def worker(cls, cfg: Any, cache_dir: str) -> Any:
        return PerturbationWorker(cfg)


class PerturbationWorker:
    """Rule-based perturbations; the rule's name is the candidate's generator."""

    def __init__(self, cfg: GeneratorConfig) -> None:
        # the schema allows only known rule names; null is every rule
        self.rules = list(cfg.settings.rules or RULES)
        self.per_sentence = cfg.settings.per_sentence
        self.seed = cfg.seed
        # the candidates are normalised as the language they are in (the one it reads)
        self.language = Perturbation.output_language(cfg.settings)
        self.stats: dict[str, int] = {}

    def __call__(self, texts: list[str], seed: int) -> list[list[tuple[str, str]]]:
        # Seeded by the sentence, not the shard, so candidates do not depend on sharding.
        del seed
        return [
            perturb(text, self.rules, self.per_sentence, self.seed, self.language) for text in texts
        ]
