"""Generator settings: ``generate.generators.<name>`` resolved against the schema.

The keys, types and defaults are ``rucola.settings.Generator`` (and its ``decoding``), so a
misspelt ``max_batch_tokens`` or ``top_p`` is an error instead of silently falling back to a
default and wasting GPU hours. ``load_params`` has already checked every generator with
file and line; this module checks again for callers that build the section in code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rucola.errors import RucolaError
from rucola.settings import Decoding, Generator, defaults_of, generator_problems, validated

# Every generator key with its default (``method`` has none: it is required).
GENERATOR_DEFAULTS: dict[str, Any] = defaults_of(Generator)
DECODING_DEFAULTS: dict[str, Any] = defaults_of(Decoding)


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
    where = ("generate", "generators", name)
    generator = validated(Generator, generators[name], where, path)
    problems = generator_problems(name, generator, generate.get("sources") or {}, where)
    if problems:
        raise RucolaError(problems[0].text, path, hint=problems[0].hint)
    seed = generator.seed if generator.seed is not None else generate.get("seed", 42)
    return GeneratorConfig(
        name, generator.method, list(generator.sources), generator.model_dump(), int(seed)
    )
