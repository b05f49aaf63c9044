"""One way to extend rucola: subclass and register.

Every extension point (source readers, filter rules, ...) is a :class:`Registry`: a class
registers itself where it is defined (``@READERS.register``, under its ``name``), and the
package that holds the extensions imports each of its modules (``pkgutil.iter_modules``
in its ``__init__``), so a new extension is one module and its test, named nowhere else.

A registry whose names params use (a source's ``type``) is created here, in the bottom
layer, so that the params schema can check a name against it; it knows the package its
extensions live in (``home``) by name and imports it the first time it is asked, since the
schema sits below the packages that register (an import the other way would be a cycle).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from rucola.errors import RucolaError

T = TypeVar("T", bound=type)


class Registry(Generic[T]):
    """Name -> registered class, for one extension point (``kind`` names it in errors)."""

    def __init__(self, kind: str, home: str | None = None) -> None:
        self.kind = kind
        self.home = home
        self._entries: dict[str, T] = {}

    def register(self, cls: T) -> T:
        """Class decorator: register ``cls`` under its ``name``; a second class under one
        name is refused (which one won would depend on import order)."""
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"{cls.__name__}: a registered {self.kind} needs a name")
        held = self._entries.get(name)
        if held is not None and held is not cls:
            raise ValueError(f"{self.kind} {name!r}: {held.__name__} and {cls.__name__}")
        self._entries[name] = cls
        return cls

    def unregister(self, cls: T) -> None:
        """Remove ``cls`` (a test's own extension, once the test is over)."""
        self._entries = {k: v for k, v in self._entries.items() if v is not cls}

    def _loaded(self) -> dict[str, T]:
        if self.home is not None:
            importlib.import_module(self.home)  # registers every extension of the package
        return self._entries

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._loaded()))

    def __iter__(self) -> Iterator[T]:
        return iter(self._loaded()[name] for name in self.names())

    def __contains__(self, name: object) -> bool:
        return name in self._loaded()

    def __getitem__(self, name: str) -> T:
        """The class registered as ``name``; one line listing the known names if none is."""
        found = self._loaded().get(name)
        if found is None:
            raise RucolaError(self.unknown(name))
        return found

    def unknown(self, name: Any) -> str:
        return f"unknown {self.kind} {name!r}: one of {', '.join(self.names())}"

    def validator(self) -> Callable[[str], str]:
        """A check for a params value naming an extension (pydantic ``AfterValidator``):
        the name, or a ValueError the schema reports with the key and the line."""
        return NameCheck(self)


class NameCheck:
    """A registry's check of a name, which the params table (rucola.dev.params) reads to
    list the names a key takes."""

    def __init__(self, registry: Registry[Any]) -> None:
        self.registry = registry

    def __call__(self, name: str) -> str:
        if name not in self.registry:
            raise ValueError(self.registry.unknown(name))
        return name


class SettingsByName:
    """A params mapping validated by the settings model of the extension it names (its
    ``key``: ``method: translation`` -> the translation method's ``Settings``), the
    discriminated union of every registered model (pydantic ``WrapValidator``): the
    registry, not a ``Literal`` written in the schema, says which names and keys exist.
    Errors keep their place (``generate.generators.x.pivot_model``)."""

    def __init__(self, registry: Registry[Any], key: str) -> None:
        self.registry = registry
        self.key = key

    def models(self) -> dict[str, type]:
        """Name -> the settings model of each registered extension."""
        return {name: self.registry[name].Settings for name in self.registry.names()}

    def __call__(self, value: Any, handler: Callable[[Any], Any]) -> Any:
        models = self.models()
        if any(isinstance(value, model) for model in models.values()):
            return value
        if not isinstance(value, dict):
            return handler(value)  # the base model's own error (a mapping is expected)
        name = value.get(self.key)
        if name is None:
            return handler(value)  # the base model names the missing key
        if name not in models:
            raise ValueError(f"{self.key}: {self.registry.unknown(name)}")
        return models[name].model_validate(value)


# The extension points params name, checked by the schema (rucola.settings).
SOURCE_READERS: Registry[Any] = Registry("source type", home="rucola.corpus.sources.formats")
GENERATION_METHODS: Registry[Any] = Registry("generation method", home="rucola.generation.methods")
BACKENDS: Registry[Any] = Registry("backend", home="rucola.generation.backends")
LANGUAGES: Registry[Any] = Registry("language", home="rucola.corpus.languages")
