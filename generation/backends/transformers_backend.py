"""The transformers backend: ``model.generate`` on token-budget batches, with OOM back-off.

Inputs are tokenised once, sorted by length and cut into batches by a token budget; each
batch is padded only to its own longest input. On the GPU the model runs in bf16 (fp16
where bf16 is missing). When a batch runs out of memory it is split in two and retried,
and later batches use the smaller budget, so one long outlier cannot kill a long run.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM

from rucola.errors import RucolaError
from rucola.generation.backends.base import (
    checked_decoding,
    load_tokenizer,
    resolve_device,
    width,
)
from rucola.generation.batching import iter_token_budget_batches
from rucola.generation.models import ResolvedModel
from rucola.settings import ModelGenerator

# The schema's dtypes that transformers runs (``int8*`` are CTranslate2's only).
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _dtype(name: str, device: str, generator: str) -> torch.dtype:
    if name == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if name not in DTYPES:
        raise RucolaError(
            f"generator '{generator}': dtype '{name}' is not available with the "
            "transformers backend",
            hint=f"use one of auto, {', '.join(DTYPES)}, or backend: ctranslate2",
        )
    return DTYPES[name]


class TransformersBackend:
    """One model loaded with transformers, generating for lists of texts."""

    def __init__(
        self,
        model: ResolvedModel,
        src_lang: str,
        tgt_lang: str,
        settings: ModelGenerator,
        generator: str = "",
    ) -> None:
        self.model_id = model.model_id
        self.family = model.family
        self.decoding = checked_decoding(settings.decoding, generator)
        self.device = resolve_device(settings.device)
        self.max_batch_tokens = settings.max_batch_tokens
        self.stats = {"batches": 0, "oom_retries": 0}
        self.tokenizer, tgt_token = load_tokenizer(model, src_lang, tgt_lang)
        self.forced_bos = (
            self.tokenizer.convert_tokens_to_ids(tgt_token) if tgt_token is not None else None
        )
        dtype = _dtype(settings.dtype, self.device, generator)
        loader = AutoModelForCausalLM if model.is_causal else AutoModelForSeq2SeqLM
        self.model = loader.from_pretrained(model.path, dtype=dtype).to(self.device).eval()
        if model.is_causal:
            self.tokenizer.padding_side = "left"
            if self.tokenizer.pad_token is None:
                self.tokenizer.pad_token = self.tokenizer.eos_token
        self.strip_ids = {self.forced_bos} if self.forced_bos is not None else set()

    def _generate_kwargs(self) -> dict[str, Any]:
        d = self.decoding
        kwargs: dict[str, Any] = {
            "max_new_tokens": d.max_new_tokens,
            "num_return_sequences": d.num_return_sequences,
        }
        if d.min_new_tokens:
            kwargs["min_new_tokens"] = d.min_new_tokens
            if d.min_new_tokens == d.max_new_tokens:
                # Marian's forced EOS would otherwise cut a fixed-length output short.
                kwargs["forced_eos_token_id"] = None
        if d.strategy == "sampling":
            kwargs.update(
                do_sample=True, top_p=d.top_p, top_k=d.top_k, temperature=d.temperature, num_beams=1
            )
        else:
            kwargs.update(do_sample=False, num_beams=d.num_beams)
        if self.forced_bos is not None:
            kwargs["forced_bos_token_id"] = self.forced_bos
        if self.model.config.pad_token_id is None:
            kwargs["pad_token_id"] = self.tokenizer.pad_token_id
        return kwargs

    def _run_batch(self, ids: list[list[int]], seed: int) -> list[list[str]]:
        batch = self.tokenizer.pad({"input_ids": ids}, return_tensors="pt").to(self.device)
        if self.decoding.strategy == "sampling":
            torch.manual_seed(seed)
        with torch.inference_mode():
            output = self.model.generate(**batch, **self._generate_kwargs())
        if self.family == "causal":
            output = output[:, batch["input_ids"].shape[1] :]
        rows = output.tolist()
        if self.strip_ids:
            rows = [[t for t in row if t not in self.strip_ids] for row in rows]
        texts = self.tokenizer.batch_decode(rows, skip_special_tokens=True)
        n = self.decoding.num_return_sequences
        return [texts[i * n : (i + 1) * n] for i in range(len(ids))]

    def _run_with_backoff(self, ids: list[list[int]], seed: int) -> list[list[str]]:
        try:
            self.stats["batches"] += 1
            return self._run_batch(ids, seed)
        except torch.OutOfMemoryError:
            if len(ids) == 1:
                raise
            self.stats["oom_retries"] += 1
            self.max_batch_tokens = max(1, self.max_batch_tokens // 2)
            if self.device.startswith("cuda"):
                torch.cuda.empty_cache()
            half = len(ids) // 2
            return self._run_with_backoff(ids[:half], seed) + self._run_with_backoff(
                ids[half:], seed + 1
            )

    def generate(self, texts: list[str], seed: int) -> list[list[str]]:
        encoded = self.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=512)
        ids: list[list[int]] = encoded["input_ids"]
        results: list[list[str]] = [[] for _ in texts]
        batches = iter_token_budget_batches(
            [len(x) for x in ids], lambda: self.max_batch_tokens, width(self.decoding)
        )
        for number, batch in enumerate(batches):
            outputs = self._run_with_backoff([ids[i] for i in batch], seed + number)
            for index, out in zip(batch, outputs, strict=True):
                results[index] = out
        return results
