"""Generator settings: ``generate.generators.<name>`` merged over the defaults below.

A generator's section is checked key by key, because a misspelt ``max_batch_tokens`` or
``top_p`` would otherwise silently fall back to a default and waste GPU hours.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rucola.errors import RucolaError
from rucola.generation.schema import METHODS
from rucola.params import check_keys

DECODING_DEFAULTS: dict[str, Any] = {
    "strategy": "beam",  # beam | sampling | greedy
    "num_beams": 4,
    "top_p": 0.9,
    "top_k": 0,
    "temperature": 1.0,
    "num_return_sequences": 1,
    "max_new_tokens": 64,
    "min_new_tokens": 0,
}

GENERATOR_DEFAULTS: dict[str, Any] = {
    "method": None,
    "enabled": True,
    "sources": [],
    "model": None,
    "pivot_model": None,
    "src_lang": "en",
    "tgt_lang": "ru",
    "pivot_lang": "en",
    "backend": "transformers",  # transformers | ctranslate2
    "decoding": DECODING_DEFAULTS,
    "device": "auto",  # auto | cpu | cuda | cuda:N
    "dtype": "auto",  # auto | float32 | float16 | bfloat16 | int8 | int8_float16 (ct2)
    "max_batch_tokens": 8192,
    "prefix": "",  # text-to-text paraphrasers: prepended to the input (e.g. "paraphrase: ")
    "prompt_share": 0.5,  # causal LMs: share of the source's words given as the prompt
    "seed": None,  # default: generate.seed
    # perturbation only
    "rules": None,  # default: all rules
    "per_sentence": 2,
}

BACKENDS = ["transformers", "ctranslate2"]
STRATEGIES = ["beam", "greedy", "sampling"]


@dataclass(frozen=True)
class GeneratorConfig:
    """One generator, resolved: its name and every setting with defaults filled in."""

    name: str
    method: str
    sources: list[str]
    settings: dict[str, Any] = field(repr=False)
    seed: int = 42

    def __getitem__(self, key: str) -> Any:
        return self.settings[key]

    @property
    def enabled(self) -> bool:
        return bool(self.settings["enabled"])

    @property
    def decoding(self) -> dict[str, Any]:
        return self.settings["decoding"]


def generator_config(
    generate: dict[str, Any], name: str, params_path: str | Path = "params.yaml"
) -> GeneratorConfig:
    """Resolve ``generate.generators.<name>``; errors name the generator and the key."""
    path = Path(params_path)
    generators = generate.get("generators") or {}
    if name not in generators:
        known = ", ".join(sorted(generators)) or "none"
        raise RucolaError(
            f"no generator '{name}' in generate.generators", path, hint=f"defined: {known}"
        )
    raw = generators[name] or {}
    where = f"generate.generators.{name}"
    if not isinstance(raw, dict):
        raise RucolaError(f"'{where}' must be a mapping", path)
    check_keys(raw, GENERATOR_DEFAULTS, where, path)
    settings = copy.deepcopy(GENERATOR_DEFAULTS)
    for key, value in raw.items():
        if key == "decoding":
            if not isinstance(value, dict):
                raise RucolaError(f"'{where}.decoding' must be a mapping", path)
            check_keys(value, DECODING_DEFAULTS, f"{where}.decoding", path)
            settings["decoding"].update(value)
        else:
            settings[key] = value
    method = settings["method"]
    if method not in METHODS:
        raise RucolaError(
            f"generator '{name}': method must be one of {', '.join(METHODS)}, got {method!r}",
            path,
        )
    if settings["backend"] not in BACKENDS:
        raise RucolaError(f"generator '{name}': backend must be one of {', '.join(BACKENDS)}", path)
    if settings["decoding"]["strategy"] not in STRATEGIES:
        raise RucolaError(
            f"generator '{name}': decoding.strategy must be one of {', '.join(STRATEGIES)}",
            path,
        )
    if method != "perturbation" and not settings["model"]:
        raise RucolaError(f"generator '{name}': method {method} needs a model", path)
    if method == "back_translation" and not settings["pivot_model"]:
        raise RucolaError(f"generator '{name}': back_translation needs a pivot_model", path)
    sources = settings["sources"]
    if isinstance(sources, str):
        sources = [sources]
    if not sources:
        raise RucolaError(f"generator '{name}': no sources", path, hint="list source ids")
    known_sources = generate.get("sources") or {}
    for source in sources:
        if source not in known_sources:
            raise RucolaError(
                f"generator '{name}': unknown source '{source}'",
                path,
                hint=f"defined in generate.sources: {', '.join(sorted(known_sources))}",
            )
    seed = settings["seed"] if settings["seed"] is not None else generate.get("seed", 42)
    return GeneratorConfig(name, method, list(sources), settings, int(seed))
