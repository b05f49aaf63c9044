"""What every generation method is: a name, a settings model, the language it reads, the
checks between its keys and the worker that turns texts into candidates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rucola.settings import GeneratorBase, ModelGenerator
from rucola.settings.problems import Problem

if TYPE_CHECKING:
    from rucola.generation.config import GeneratorConfig


class GenerationMethod:
    """One ``method`` of ``generate.generators`` (``@GENERATION_METHODS.register``).

    ``Settings``: the model of a generator of this method (a subclass of
    ``GeneratorBase`` whose ``method`` is ``Literal[name]``): its own keys and no others.
    ``example``: a generator of this method that runs on the contract tests' sources
    (tests/guarantees/test_guard_generation_methods.py) with the tiny models they build,
    so a new method meets those tests without a test of its own."""

    name: ClassVar[str]
    Settings: ClassVar[type[GeneratorBase]]
    example: ClassVar[dict[str, Any]]

    @classmethod
    def input_language(cls, settings: Any) -> str:
        """The language of the source sentences it reads (Russian unless said)."""
        return "ru"

    @classmethod
    def output_language(cls, settings: Any) -> str:
        """The language of the candidates it writes (that of what it reads unless said):
        their text is normalised and checked as this language's (``corpus.normalize``)."""
        return cls.input_language(settings)

    @classmethod
    def problems(cls, settings: Any, where: tuple[str | int, ...]) -> list[Problem]:
        """What the generator lacks to run, beyond what its model checks key by key."""
        return []

    @classmethod
    def worker(cls, cfg: GeneratorConfig, cache_dir: str) -> Any:
        """The picklable worker (``texts, seed -> outputs``) the engines run."""
        raise NotImplementedError


class ModelMethod(GenerationMethod):
    """A method that runs a model (``ModelGenerator``'s keys): it needs one."""

    @classmethod
    def input_language(cls, settings: ModelGenerator) -> str:
        return settings.tgt_lang

    @classmethod
    def output_language(cls, settings: ModelGenerator) -> str:
        return settings.tgt_lang

    @classmethod
    def problems(cls, settings: Any, where: tuple[str | int, ...]) -> list[Problem]:
        if not settings.model:
            return [Problem.at((*where, "model"), f"method {cls.name} needs a model")]
        return []
