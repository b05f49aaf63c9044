"""The package's import graph, read from its source with ``ast``: what each module imports
(imports inside functions included, because those hid the cycles, and a command imports
its stage inside the command), the layers, and the import closure of a command.

The closure is what each command's code fingerprint covers (:mod:`rucola.code_fingerprint`):
a stage depends on the fingerprint of exactly the files its command may run, so a code
change reruns exactly the stages whose code it touches. ``tests/test_architecture.py``
proves the graph's shape (no cycles, layers only downwards, every package in the wheel)
with the same functions.

Every function takes a code ``root``, in one of two layouts (:func:`package_dirs`): a
checkout of this tool, whose ``pyproject.toml`` maps the stage folders (``corpus/``...) into
the package, or the folder that holds an installed ``rucola/`` (site-packages), where they
are plain subfolders. The default is the folder holding the running package: the checkout
with an editable install, site-packages with a wheel. :func:`code_root` says which root a
command reads (a checkout it runs in, edited or not, else the running package), so a
corpus repository with no ``pyproject.toml`` fingerprints the installed code.
"""

from __future__ import annotations

import ast
import inspect
import shlex
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rucola.tree_walk import names_none, naming_lines, statements

# The folder holding the running ``rucola`` package: a checkout (editable install) or
# site-packages (a wheel).
ROOT = Path(__file__).resolve().parents[1]
TOP = "rucola"

# Top to bottom; a module may import its own layer and the layers below it, never above.
# The first matching prefix decides, so the bottom layer, shared helpers (rucola.errors,
# rucola.io, rucola.names, rucola.params, rucola.stage, rucola.track, ...), is what is
# left: any new module directly under rucola/ is a helper and may import only helpers.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("developer tools", ("rucola.dev",)),
    ("the command line", ("rucola.cli", "rucola.__main__")),
    (
        "release, validation, generation, annotation, curation",
        (
            "rucola.release",
            "rucola.validation",
            "rucola.generation",
            "rucola.annotation",
            "rucola.curation",
        ),
    ),
    ("corpus", ("rucola.corpus",)),
    ("shared helpers", ("rucola",)),
]
CLI = 1  # the rank of the command line in LAYERS


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool


@dataclass(frozen=True)
class Import:
    target: str  # the module that runs: ``from rucola.x import y`` is rucola.x.y if a module
    written: str  # as written, for messages
    line: int
    function: str | None  # the top-level function it sits in (None: runs on import)


def setuptools_config(root: Path = ROOT) -> dict:
    return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]


def _mapping(root: Path) -> dict[str, str] | None:
    """``[tool.setuptools] package-dir`` of ``root/pyproject.toml`` when it maps this
    package (a checkout of this tool); None otherwise (no such file, or another
    project's: a corpus repository may hold one of its own)."""
    try:
        mapping = setuptools_config(root)["package-dir"]
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError):
        return None
    return mapping if isinstance(mapping, dict) and TOP in mapping else None


def is_checkout(root: Path) -> bool:
    """Whether ``root`` is a checkout of this tool (its ``pyproject.toml`` maps ``rucola``)."""
    return _mapping(root) is not None


def code_root(cwd: Path | None = None) -> Path:
    """Where a command reads the package's code: the current directory when it is a
    checkout of this tool (the code there, edited or not, is what its stages run), else
    the folder holding the running package (:data:`ROOT`: a corpus repository runs the
    installed wheel, and has no code of its own)."""
    here = Path.cwd() if cwd is None else cwd
    return here if is_checkout(here) else ROOT


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """Import name -> folder: in a checkout as ``[tool.setuptools] package-dir`` maps
    them; elsewhere ``root`` holds the installed package, whose subpackages are plain
    subfolders of ``rucola/``."""
    mapping = _mapping(root)
    if mapping is None:
        return {TOP: root / TOP}
    return {name: root / folder for name, folder in mapping.items()}


def package_folder(package: str, root: Path = ROOT) -> Path:
    """The folder of package ``package`` (``rucola.release``: ``release/`` in a checkout,
    ``rucola/release/`` installed), where its package data lies."""
    module = modules(root).get(package)
    if module is not None and module.is_package:
        return module.path.parent
    # a package of data only (the embedded sample: no module to find it by)
    mapped = package_dirs(root).get(package)
    if mapped is not None and is_checkout(root):
        return mapped
    folder = root.joinpath(*package.split("."))
    if not folder.is_dir():
        raise KeyError(f"{package} is not a package of {root}")
    return folder


def _dotted(package: str, relative: Path) -> str:
    return ".".join((package, *relative.parts)) if relative.parts else package


def _under_other_mapping(path: Path, folder: Path, mapped: set[Path]) -> bool:
    return any(parent in mapped for parent in path.parents if folder in parent.parents)


@cache
def modules(root: Path = ROOT) -> dict[str, Module]:
    """Every module of the package (files in folders with an ``__init__.py`` all the way
    up to the mapped folder), by dotted name."""
    dirs = package_dirs(root)
    mapped = set(dirs.values())
    found: dict[str, Module] = {}
    for package, folder in dirs.items():
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(folder)
            if "__pycache__" in relative.parts or _under_other_mapping(path, folder, mapped):
                continue
            chain = [
                folder,
                *(folder / Path(*relative.parts[:i]) for i in range(1, len(relative.parts))),
            ]
            if not all((f / "__init__.py").is_file() for f in chain):
                continue
            is_package = path.name == "__init__.py"
            dotted = relative.parent if is_package else relative.with_suffix("")
            name = _dotted(package, dotted)
            found[name] = Module(name, path, is_package)
    return found


def _resolve(name: str, root: Path) -> str | None:
    """The longest prefix of ``name`` that is a module of ours (None: not ours)."""
    known = modules(root)
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _base(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def parsed(path: Path) -> tuple[str, ast.Module]:
    """A source file's text and tree, parsed once per content (its mtime and size: a file
    edited between two calls is read again) for every reader here and in
    ``rucola.code_fingerprint``."""
    stat = path.stat()
    return _parsed(str(path), (stat.st_mtime_ns, stat.st_size))


@cache
def _parsed(path: str, stamp: tuple[int, int]) -> tuple[str, ast.Module]:
    text = Path(path).read_text(encoding="utf-8")
    return text, ast.parse(text, path)


def _tree(name: str, root: Path) -> ast.Module:
    """Module ``name``'s syntax tree (:func:`parsed`)."""
    return parsed(modules(root)[name].path)[1]


def _nodes(tree: ast.Module) -> Iterator[tuple[ast.AST, str | None]]:
    """Every node below ``tree``, with the top-level function it sits in (None: it runs
    on import, or in a class body); statement by statement, each walked breadth first
    (``ast.walk``: a recursive generator took a second per fingerprint run)."""
    for statement in tree.body:
        yield from _below(statement)


def _below(statement: ast.stmt) -> Iterator[tuple[ast.AST, str | None]]:
    """:func:`_nodes` of one top-level statement."""
    function = _function(statement)
    yield statement, function
    for node in ast.walk(statement):
        if node is not statement:
            yield node, function


def _function(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        return statement.name
    return None


def _statements(tree: ast.Module) -> Iterator[tuple[ast.AST, str | None]]:
    """:func:`_nodes`, statements only (:func:`rucola.tree_walk.statements`)."""
    for statement in tree.body:
        function = _function(statement)
        for node in statements(statement):
            yield node, function


@cache
def imports(name: str, root: Path = ROOT) -> tuple[Import, ...]:
    """Every import of one of our modules in module ``name``, wherever it is written."""
    known = modules(root)
    module = known[name]
    text, tree = parsed(module.path)
    # import statements are statements; a package's ``pkgutil.iter_modules`` call is an
    # expression: the whole tree is walked only where one may be written
    every = module.is_package and naming_lines(text, ("iter_modules",)) != []
    found: list[Import] = []
    for child, inner in (_nodes if every else _statements)(tree):
        if isinstance(child, ast.Import):
            for alias in child.names:
                if alias.name.split(".")[0] == TOP:
                    target = _target(alias.name, root)
                    found.append(Import(target, alias.name, child.lineno, inner))
        elif isinstance(child, ast.ImportFrom):
            base = _base(module, child)
            if base.split(".")[0] == TOP:
                for alias in child.names:
                    whole = f"{base}.{alias.name}"
                    target = whole if whole in known else _target(base, root)
                    found.append(
                        Import(target, f"from {base} import {alias.name}", child.lineno, inner)
                    )
        elif module.is_package and _imports_every_submodule(child):
            found.extend(
                Import(sub, ITER_MODULES, child.lineno, inner) for sub in submodules(name, root)
            )
    return tuple(found)


# How a package imports every module of its own (corpus.filters: a rule registers itself
# by being defined): ``for m in pkgutil.iter_modules(__path__): importlib.import_module``.
ITER_MODULES = "pkgutil.iter_modules(__path__)"


def _imports_every_submodule(node: ast.AST) -> bool:
    """``pkgutil.iter_modules(__path__)`` called: an import of each submodule, unseen by
    the import statements (a rule module imported this way would be missing from the
    stages' code deps)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "iter_modules"
        and any(isinstance(a, ast.Name) and a.id == "__path__" for a in node.args)
    )


# --- registries ------------------------------------------------------------------------------
# A registry whose names params use (``rucola.registry``: ``Registry(kind, home=...)``)
# imports its package the first time an entry is looked up, by name: no import statement
# shows it. A module that LOOKS AN ENTRY UP runs the home package's modules (the entry's
# class is one of them), so the closure counts the lookup as an import of the home.
# Checking a name (``name in LANGUAGES``, ``.names()``, ``.validator()``: what the params
# schema does to report an unknown one) runs no extension's code and does not count, nor
# does the registry's own module (``SettingsByName`` picks a method's settings model,
# covered by the method's variants, ``rucola.code_fingerprint.VARIANTS_ATTRIBUTE``).
REGISTRY_MODULE = f"{TOP}.registry"
SCHEMA_PACKAGE = f"{TOP}.settings"
LOOKUP_METHODS = frozenset({"get"})  # REG.get(name)
ITERATING = frozenset({"list", "sorted", "iter", "tuple", "set", "dict", "enumerate"})


@cache
def registry_homes(root: Path = ROOT) -> dict[str, str]:
    """Each lazily loaded registry of ``rucola/registry.py`` by name -> its home package."""
    known = modules(root)
    if REGISTRY_MODULE not in known:
        return {}
    tree = ast.parse(known[REGISTRY_MODULE].path.read_text(encoding="utf-8"))
    homes: dict[str, str] = {}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Call):
            continue
        for keyword in value.keywords:
            if keyword.arg == "home" and isinstance(keyword.value, ast.Constant):
                homes[target.id] = str(keyword.value.value)
    return homes


def _looked_up(node: ast.AST, names: dict[str, str]) -> str | None:
    """The registry (by its name here) whose entry ``node`` looks up, if it does."""

    def registry(expr: ast.AST | None) -> str | None:
        return names.get(expr.id) if isinstance(expr, ast.Name) else None

    if isinstance(node, ast.Subscript):
        return registry(node.value)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in LOOKUP_METHODS:
            return registry(func.value)
        if isinstance(func, ast.Name) and func.id in ITERATING and node.args:
            return registry(node.args[0])
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return registry(node.iter)
    return None


@cache
def registry_lookups(name: str, root: Path = ROOT) -> tuple[Import, ...]:
    """Every lookup of a lazily loaded registry's entry in module ``name``, as an import
    of the registry's home package (see :data:`REGISTRY_MODULE`'s comment)."""
    if name in (REGISTRY_MODULE, SCHEMA_PACKAGE) or name.startswith(f"{SCHEMA_PACKAGE}."):
        return ()
    homes = registry_homes(root)
    module = modules(root)[name]
    text, tree = parsed(module.path)
    if REGISTRY_MODULE.rpartition(".")[2] not in text:
        return ()  # no import of the registry module: nothing to walk
    names = {
        alias.asname or alias.name: alias.name
        for node in statements(tree)
        if isinstance(node, ast.ImportFrom) and _base(module, node) == REGISTRY_MODULE
        for alias in node.names
        if alias.name in homes
    }
    if not names:
        return ()
    found: list[Import] = []
    lines = naming_lines(text, names)
    for statement in tree.body:
        if names_none(statement, lines):
            continue  # it names no registry: nothing to walk
        for child, inner in _below(statement):
            registry = _looked_up(child, names)
            if registry is not None:
                home = _target(homes[registry], root)
                line = getattr(child, "lineno", None) or child.iter.lineno  # type: ignore[attr-defined]
                found.append(Import(home, f"{registry} lookup", line, inner))
    return tuple(found)


def submodules(package: str, root: Path = ROOT) -> list[str]:
    """The modules and packages directly inside ``package``."""
    return sorted(n for n in modules(root) if n.rpartition(".")[0] == package and n != package)


def _target(written: str, root: Path) -> str:
    return _resolve(written, root) or written


def parents(name: str) -> list[str]:
    """The packages whose ``__init__`` runs before ``name`` does."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (itself left out)."""
    return {
        name: {i.target for i in imports(name) if i.target != name and i.target in modules()}
        for name in modules()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(edges.get(node, ())):
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return found


@cache
def layer(name: str) -> int:
    """The rank of ``name``'s layer in :data:`LAYERS` (0: the top)."""
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{name} belongs to no layer")


def in_cli(name: str) -> bool:
    return layer(name) == CLI


def command_function(app: Any, cmd: str) -> Callable:
    """The Python function ``cmd`` (``rucola annotate export --stage 1``) runs in the Typer
    ``app``, found the way the command line finds it (a group has ``commands``; Typer
    carries its own Click). The app is given, not imported: this layer is below it."""
    import typer.main

    command = typer.main.get_command(app)
    for word in shlex.split(cmd)[1:]:
        group = getattr(command, "commands", None)
        if group is None or word not in group:
            break
        command = group[word]
    # A group names a command when it runs one of its own (``rucola audit``: the stage;
    # ``rucola audit export``: a subcommand).
    if getattr(command, "commands", None) is not None:
        assert command.invoke_without_command, f"{cmd!r} names a group, not a command"
    return inspect.unwrap(command.callback)


# Decorators that register a command, besides ``app.command`` (rucola.cli.stage_command).
COMMAND_FACTORIES = frozenset({"stage_command"})


def _is_command(node: ast.AST) -> bool:
    """A function registered as a command (``@app.command(...)``, ``@app.command`` or
    ``@stage_command(...)``); a group's callback (``--debug``) runs before every command,
    so it is not one here."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(called, ast.Attribute) and called.attr == "command":
            return True
        if isinstance(called, ast.Name) and called.id in COMMAND_FACTORIES:
            return True
    return False


@cache
def command_functions(name: str, root: Path = ROOT) -> frozenset[str]:
    return frozenset(node.name for node in _tree(name, root).body if _is_command(node))


def closure(
    start: Iterable[str],
    function: tuple[str, str],
    root: Path = ROOT,
    skip: Callable[[str, str], bool] = lambda importer, target: False,
) -> set[str]:
    """The modules that may run when the command ``function`` (module, name) runs.

    In command-line modules, the imports inside other commands never run (each command
    imports its own stage); everything else there, helpers included, counts. Elsewhere
    every import counts, since which functions a stage calls is not known here. A
    module's parent packages run first, so they count too, and a lookup of a lazily
    loaded registry's entry runs its home package (:func:`registry_lookups`).
    ``skip(importer, target)``:
    an import left out (one the caller accounts for otherwise)."""
    seen: set[str] = set()
    todo = list(start)
    known = modules(root)
    while todo:
        name = todo.pop()
        if name in seen or name not in known:
            continue
        seen.add(name)
        todo.extend(parents(name))
        skipped: frozenset[str] = frozenset()
        if in_cli(name):
            own = {function[1]} if name == function[0] else set()
            skipped = command_functions(name, root) - own
        todo.extend(
            i.target
            for i in (*imports(name, root), *registry_lookups(name, root))
            if i.function not in skipped and not skip(name, i.target)
        )
    return seen
