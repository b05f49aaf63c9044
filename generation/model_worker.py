"""The worker of the model methods (translation, back-translation, paraphrase): texts in,
(generator label, candidate) lists out, through one or two loaded models.

A worker is built from a picklable config, so the local engine and each Ray actor build
the same worker and give the same output for the same texts and seed; each method builds
its own (``rucola.generation.methods``).
"""

from __future__ import annotations

import razdel

from rucola.errors import RucolaError
from rucola.generation.config import GeneratorConfig

Outputs = list[list[tuple[str, str]]]


def _first_sentence(text: str) -> str:
    for sentence in razdel.sentenize(text):
        return sentence.text
    return text


class ModelWorker:
    """One model, or a pivot model and then the model (back-translation), from ``langs``
    (read, written); a text-to-text model may get a ``prefix`` and a causal LM continues
    the first ``prompt_share`` of each input's words (paraphrase's keys)."""

    def __init__(
        self,
        cfg: GeneratorConfig,
        cache_dir: str,
        langs: tuple[str, str],
        *,
        pivot: str | None = None,
        prefix: str = "",
        prompt_share: float | None = None,
    ) -> None:
        from rucola.generation.backends import load_backend
        from rucola.generation.models import resolve_model
        from rucola.params import with_overrides

        s = cfg.settings
        self.cfg = cfg
        self.prefix = prefix
        src, tgt = langs
        model = resolve_model(str(s.model), cfg.name, src, tgt)
        self.backend = load_backend(s, model, src, tgt, cache_dir, cfg.name)
        self.pivot = None
        if pivot is not None:
            back = resolve_model(pivot, cfg.name, tgt, src)
            # The pivot gives its one best translation; variety comes from the second leg.
            strategy = "beam" if s.decoding.strategy == "sampling" else s.decoding.strategy
            decoding = with_overrides(s.decoding, num_return_sequences=1, strategy=strategy)
            pivot_settings = with_overrides(s, decoding=decoding)
            self.pivot = load_backend(pivot_settings, back, tgt, src, cache_dir, cfg.name)
        self.causal = model.is_causal
        if self.causal and prompt_share is None:
            raise RucolaError(
                f"generator '{cfg.name}': {model.model_id} is a causal LM, which continues a "
                f"prompt: method {cfg.method} gives none",
                hint="use method: paraphrase (prompt_share) or a sequence-to-sequence model",
            )
        self.prompt_share = prompt_share or 0.0
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
            share = self.prompt_share
            for text in inputs:
                words = text.split()
                prompts.append(" ".join(words[: max(1, round(len(words) * share))]))
            inputs = prompts
        elif self.prefix:
            inputs = [self.prefix + text for text in inputs]
        outputs = self.backend.generate(inputs, seed)
        if self.causal:
            outputs = [
                [_first_sentence(f"{prompt} {out.strip()}") for out in outs]
                for prompt, outs in zip(prompts, outputs, strict=True)
            ]
        return [[(self.label, text) for text in outs] for outs in outputs]
