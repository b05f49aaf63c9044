"""The CTranslate2 backend: a converted copy of the model, cached, run by CTranslate2.

CTranslate2 runs Transformer inference in C++ with fused kernels, int8/fp16 weights and
its own length-sorted token-budget batching; on the CPU it is 5-8x faster than
transformers (docs/testing.md's benchmark table, ``python benchmarks/generation.py``).
Conversion (``ct2-transformers-converter``) is done once per model folder, quantisation
and CTranslate2 version, and cached.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import ctranslate2

from rucola.generation.backends.base import checked_decoding, load_tokenizer, width
from rucola.generation.models import ResolvedModel
from rucola.io import stable_hash
from rucola.settings import ModelGenerator


def _device() -> str:
    return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"


def _m2m_vocabulary(self: Any, model: Any, tokenizer: Any) -> list[str]:
    """Every id's token, read from the tokenizer by id.

    The stock converter lists ``additional_special_tokens``, which transformers 5 no longer
    fills for M2M-100, so the language tokens went missing and conversion failed with a
    vocabulary size mismatch. Ids past the tokenizer are M2M-100's ``madeupword`` fillers.
    """
    size = model.config.vocab_size
    tokens = tokenizer.convert_ids_to_tokens(list(range(size)))
    seen: set[str] = set()
    out = []
    filler = 0
    for token in tokens:
        if token is None or token in seen:
            token = f"madeupword{filler}"
            filler += 1
        seen.add(token)
        out.append(token)
    return out


def _mbart_model_spec(self: Any, model: Any) -> Any:
    """mBART is pre-norm; transformers 5 dropped ``normalize_before`` from its config."""
    from ctranslate2.converters.transformers import BartLoader

    if not hasattr(model.config, "normalize_before"):
        model.config.normalize_before = True
    return BartLoader.get_model_spec(self, model)


def _fingerprint(folder: Path, quantization: str) -> str:
    parts = [ctranslate2.__version__, quantization]
    for path in sorted(folder.iterdir()):
        if path.is_file():
            stat = path.stat()
            parts += [path.name, str(stat.st_size), str(stat.st_mtime_ns)]
    return stable_hash(*parts)


def convert_once(model: ResolvedModel, quantization: str, cache_dir: str | Path) -> Path:
    """The converted model folder, converting only when the cache has no copy."""
    from ctranslate2.converters import TransformersConverter
    from ctranslate2.converters import transformers as ct2_transformers

    target = (
        Path(cache_dir)
        / "ctranslate2"
        / f"{model.path.name}-{_fingerprint(model.path, quantization)}"
    )
    if (target / "model.bin").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    ct2_transformers.M2M100Loader.get_vocabulary = _m2m_vocabulary
    ct2_transformers.MBartLoader.get_model_spec = _mbart_model_spec
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        TransformersConverter(str(model.path)).convert(
            str(tmp / "model"), quantization=None if quantization == "float32" else quantization
        )
        os.replace(tmp / "model", target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


class CTranslate2Backend:
    """A converted model behind ``ctranslate2.Translator`` (or ``Generator`` for causal LMs)."""

    def __init__(
        self,
        model: ResolvedModel,
        src_lang: str,
        tgt_lang: str,
        settings: ModelGenerator,
        cache_dir: str | Path,
        generator: str = "",
    ) -> None:
        self.model_id = model.model_id
        self.causal = model.is_causal
        self.decoding = checked_decoding(settings.decoding, generator)
        device = settings.device
        self.device = _device() if device == "auto" else device.split(":")[0]
        # every dtype the schema allows but ``auto`` is a CTranslate2 quantization
        dtype = settings.dtype
        if dtype == "auto":
            dtype = "float16" if self.device == "cuda" else "int8"
        # Weights are stored at the run's precision so that loading converts nothing.
        folder = convert_once(model, dtype, cache_dir)
        threads = os.cpu_count() or 1
        common = {
            "device": self.device,
            "compute_type": dtype,
            "inter_threads": threads if self.device == "cpu" else 1,
            "intra_threads": 1 if self.device == "cpu" else 0,
        }
        if self.device == "cuda" and ":" in device:
            common["device_index"] = int(device.split(":")[1])
        engine = ctranslate2.Generator if self.causal else ctranslate2.Translator
        self.engine = engine(str(folder), **common)
        self.max_batch_tokens = settings.max_batch_tokens
        self.stats = {"batches": 0, "oom_retries": 0}
        self.tokenizer, self.prefix = load_tokenizer(model, src_lang, tgt_lang)
        self.special = set(self.tokenizer.all_special_tokens)
        if self.prefix:
            self.special.add(self.prefix)

    def _options(self) -> dict[str, Any]:
        d = self.decoding
        extra = 1 if self.prefix else 0
        options: dict[str, Any] = {
            "max_batch_size": max(1, self.max_batch_tokens // width(d)),
            "batch_type": "tokens",
            "max_decoding_length": d.max_new_tokens + extra,
            "min_decoding_length": d.min_new_tokens + extra,
            "num_hypotheses": d.num_return_sequences,
        }
        if d.strategy == "sampling":
            options.update(
                beam_size=1,
                sampling_topk=d.top_k,  # 0: the whole vocabulary, as transformers
                sampling_topp=d.top_p,
                sampling_temperature=d.temperature,
            )
        else:
            options.update(beam_size=d.num_beams, sampling_topk=1)
        return options

    def _decode(self, tokens: list[str]) -> str:
        kept = [t for t in tokens if t not in self.special]
        ids = self.tokenizer.convert_tokens_to_ids(kept)
        return self.tokenizer.decode(ids, skip_special_tokens=True)

    def _run(self, tokens: list[list[str]]) -> list[list[str]]:
        options = self._options()
        self.stats["batches"] += 1
        if self.causal:
            options["max_length"] = options.pop("max_decoding_length")
            options["min_length"] = options.pop("min_decoding_length")
            options["include_prompt_in_result"] = False
            results = self.engine.generate_batch(tokens, **options)
            return [[self._decode(seq) for seq in r.sequences] for r in results]
        prefix = [[self.prefix]] * len(tokens) if self.prefix else None
        results = self.engine.translate_batch(tokens, target_prefix=prefix, **options)
        return [[self._decode(h) for h in r.hypotheses] for r in results]

    def generate(self, texts: list[str], seed: int) -> list[list[str]]:
        ctranslate2.set_random_seed(seed)
        tokens = [
            self.tokenizer.convert_ids_to_tokens(ids) for ids in self.tokenizer(texts)["input_ids"]
        ]
        while True:
            try:
                return self._run(tokens)
            except RuntimeError as exc:
                # CTranslate2 reports CUDA allocation failures as RuntimeError; halve the
                # token budget and retry, as the transformers backend does.
                if "out of memory" not in str(exc).lower() or self.max_batch_tokens <= 1:
                    raise
                self.stats["oom_retries"] += 1
                self.max_batch_tokens //= 2
                ctranslate2.set_random_seed(seed)
