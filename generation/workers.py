"""Workers: one per generator, turning input texts into (generator label, candidate) lists.

A worker is built from a picklable config, so the local engine and each Ray actor build
the same worker and give the same output for the same texts and seed.
"""

from __future__ import annotations

from typing import Any

import razdel

from rucola.generation.config import GeneratorConfig
from rucola.generation.perturb import RULES, perturb

Outputs = list[list[tuple[str, str]]]


class PerturbationWorker:
    """Rule-based perturbations; the rule's name is the candidate's generator."""

    def __init__(self, cfg: GeneratorConfig) -> None:
        # the schema allows only known rule names; null is every rule
        self.rules = list(cfg.settings.rules or RULES)
        self.per_sentence = cfg.settings.per_sentence
        self.seed = cfg.seed
        self.stats: dict[str, int] = {}

    def __call__(self, texts: list[str], seed: int) -> Outputs:
        # Seeded by the sentence, not the shard, so candidates do not depend on sharding.
        del seed
        return [perturb(text, self.rules, self.per_sentence, self.seed) for text in texts]


def _first_sentence(text: str) -> str:
    for sentence in razdel.sentenize(text):
        return sentence.text
    return text


class ModelWorker:
    """Translation, back-translation or paraphrase with one or two models."""

    def __init__(self, cfg: GeneratorConfig, cache_dir: str) -> None:
        from rucola.generation.backends import load_backend
        from rucola.generation.models import resolve_model
        from rucola.params import with_overrides

        s = cfg.settings
        self.cfg = cfg
        method = cfg.method
        if method == "translation":
            src, tgt = s.src_lang, s.tgt_lang
        elif method == "back_translation":
            src, tgt = s.pivot_lang, s.tgt_lang
        else:
            src, tgt = s.tgt_lang, s.tgt_lang
        model = resolve_model(str(s.model), cfg.name, src, tgt)
        self.backend = load_backend(s, model, src, tgt, cache_dir, cfg.name)
        self.pivot = None
        if method == "back_translation":
            pivot = resolve_model(str(s.pivot_model), cfg.name, tgt, src)
            # The pivot gives its one best translation; variety comes from the second leg.
            strategy = "beam" if s.decoding.strategy == "sampling" else s.decoding.strategy
            decoding = with_overrides(s.decoding, num_return_sequences=1, strategy=strategy)
            pivot_settings = with_overrides(s, decoding=decoding)
            self.pivot = load_backend(pivot_settings, pivot, tgt, src, cache_dir, cfg.name)
        self.causal = model.is_causal
        self.label = (
            f"{self.pivot.model_id}>{self.backend.model_id}"
            if self.pivot
            else self.backend.model_id
        )

    @property
    def stats(self) -> dict[str, int]:
        stats = dict(self.backend.stats)
        if self.pivot is not None:
            for key, value in self.pivot.stats.items():
                stats[f"pivot_{key}"] = value
        return stats

    def __call__(self, texts: list[str], seed: int) -> Outputs:
        inputs = texts
        if self.pivot is not None:
            inputs = [out[0] if out else "" for out in self.pivot.generate(texts, seed)]
        prompts: list[str] = []
        if self.causal:
            share = self.cfg.settings.prompt_share
            for text in inputs:
                words = text.split()
                prompts.append(" ".join(words[: max(1, round(len(words) * share))]))
            inputs = prompts
        elif self.cfg.settings.prefix:
            inputs = [self.cfg.settings.prefix + text for text in inputs]
        outputs = self.backend.generate(inputs, seed)
        if self.causal:
            outputs = [
                [_first_sentence(f"{prompt} {out.strip()}") for out in outs]
                for prompt, outs in zip(prompts, outputs, strict=True)
            ]
        return [[(self.label, text) for text in outs] for outs in outputs]


def make_worker(cfg: GeneratorConfig, cache_dir: str) -> Any:
    """The worker of ``cfg``'s method: rules on the CPU, or one or two loaded models."""
    if cfg.method == "perturbation":
        return PerturbationWorker(cfg)
    return ModelWorker(cfg, cache_dir)
