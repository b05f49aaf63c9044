"""One generator resolved for a run: ``generate.generators.<name>`` with its seed.

The keys, types and defaults are the model of the generator's method (its ``Settings``); the
params loader has checked every generator, with file and line, before a stage runs. This
module finds the generator by name and applies the checks between keys that the schema
runs on a whole params file (:func:`rucola.settings.generator_problems`), so a ``Generate``
section built in code is held to the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rucola.errors import RucolaError, params_file
from rucola.settings import Generate, GeneratorBase, generator_problems


@dataclass(frozen=True)
class GeneratorConfig:
    """One generator: its name, its settings and the seed it runs with (its own, else
    ``generate.seed``). Picklable, so a Ray actor builds the same worker from it."""

    name: str
    settings: GeneratorBase
    seed: int = 42

    @property
    def method(self) -> str:
        return self.settings.method

    @property
    def sources(self) -> list[str]:
        return list(self.settings.sources)

    @property
    def enabled(self) -> bool:
        return self.settings.enabled


def generator_config(
    generate: Generate, name: str, params_path: str | Path | None = None
) -> GeneratorConfig:
    """The generator ``name`` of ``generate``; errors name the generator, the key and
    ``params_path`` (None: the params file the command loaded)."""
    path = Path(params_path if params_path is not None else params_file())
    generator = generate.generators.get(name)
    if generator is None:
        known = ", ".join(sorted(generate.generators)) or "none"
        raise RucolaError(
            f"no generator '{name}' in generate.generators", path, hint=f"defined: {known}"
        )
    problems = generator_problems(name, generator, generate.sources.keys())
    if problems:
        raise RucolaError(problems[0].text, path, hint=problems[0].hint)
    seed = generator.seed if generator.seed is not None else generate.seed
    return GeneratorConfig(name, generator, seed)
