"""The package's shape, proven from its source: no import cycles, the layers hold, every
package is in the wheel, and every DVC stage depends on all the code its command runs.

The import graph is read with ``ast``, imports inside functions included, because those are
the imports that hid the cycles (and a command's stage is imported inside the command). A
stage's code deps in ``dvc.yaml`` are kept by hand; here they are checked against the
import closure of the command the stage runs, so a code change can never leave data that
DVC calls up to date although the code that made it changed.
"""

from __future__ import annotations

import ast
import inspect
import shlex
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import typer.main
import yaml

ROOT = Path(__file__).resolve().parents[1]
TOP = "rucola"

# Top to bottom; a module may import its own layer and the layers below it, never above.
# The first matching prefix decides, so the bottom layer, shared helpers (rucola.errors,
# rucola.io, rucola.names, rucola.params, rucola.stage, rucola.track, ...), is what is
# left: any new module directly under rucola/ is a helper and may import only helpers.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("the command line", ("rucola.cli", "rucola.__main__")),
    (
        "release, validation, generation, annotation",
        ("rucola.release", "rucola.validation", "rucola.generation", "rucola.annotation"),
    ),
    ("corpus", ("rucola.corpus",)),
    ("shared helpers", ("rucola",)),
]


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


def setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]


def package_dirs() -> dict[str, Path]:
    """Import name -> folder, as ``[tool.setuptools] package-dir`` maps them."""
    return {name: ROOT / folder for name, folder in setuptools_config()["package-dir"].items()}


def _dotted(package: str, relative: Path) -> str:
    return ".".join((package, *relative.parts)) if relative.parts else package


def _under_other_mapping(path: Path, folder: Path, mapped: set[Path]) -> bool:
    return any(parent in mapped for parent in path.parents if folder in parent.parents)


@cache
def modules() -> dict[str, Module]:
    """Every module of the package (files in folders with an ``__init__.py`` all the way
    up to the mapped folder), by dotted name."""
    dirs = package_dirs()
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


def _resolve(name: str) -> str | None:
    """The longest prefix of ``name`` that is a module of ours (None: not ours)."""
    known = modules()
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


@cache
def imports(name: str) -> tuple[Import, ...]:
    """Every import of one of our modules in module ``name``, wherever it is written."""
    module = modules()[name]
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    found: list[Import] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if function is None and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == TOP:
                        found.append(Import(_target(alias.name), alias.name, child.lineno, inner))
            elif isinstance(child, ast.ImportFrom):
                base = _base(module, child)
                if base.split(".")[0] == TOP:
                    for alias in child.names:
                        whole = f"{base}.{alias.name}"
                        target = whole if whole in modules() else _target(base)
                        found.append(
                            Import(target, f"from {base} import {alias.name}", child.lineno, inner)
                        )
            visit(child, inner)

    visit(tree, None)
    return tuple(found)


def _target(written: str) -> str:
    return _resolve(written) or written


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


def layer(name: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{name} belongs to no layer")


def in_cli(name: str) -> bool:
    return layer(name) == 0


# --- the import graph -------------------------------------------------------------------


def test_the_graph_sees_every_package_and_the_lazy_imports():
    """Guards the checks below against passing on an empty or partial graph."""
    names = modules()
    for name in ("rucola.cli", "rucola.params", "rucola.corpus.split", "rucola.release.build"):
        assert name in names
    assert modules()["rucola.corpus.split"].path == ROOT / "corpus/split.py"
    lazy = [i for i in imports("rucola.cli.corpus") if i.function == "filter_"]
    assert "rucola.corpus.filters.stage" in {i.target for i in lazy}
    assert all(i.function is None for i in imports("rucola.cli") if i.target == "rucola.cli.corpus")


def test_every_import_of_ours_names_a_module():
    """``from rucola.x import y`` needs the module rucola.x; a stale name (a module moved
    or removed) would fail only when that line runs, maybe deep inside one command."""
    wrong = []
    for name in modules():
        for i in imports(name):
            written = i.written.split()[1] if i.written.startswith("from ") else i.written
            if written not in modules():
                wrong.append(f"{modules()[name].path.relative_to(ROOT)}:{i.line}: {i.written}")
    assert not wrong, "imports of modules that do not exist:\n" + "\n".join(wrong)


def test_cycle_detection_sees_a_cycle_and_nothing_else():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    found = cycles(graph())
    lines = []
    for component in found:
        members = set(component)
        for name in component:
            for i in imports(name):
                if i.target in members and i.target != name:
                    where = f"{modules()[name].path.relative_to(ROOT)}:{i.line}"
                    lines.append(f"  {where}: {i.written}")
    assert not found, f"import cycles {found}:\n" + "\n".join(lines)


def test_nothing_imports_the_command_line():
    offenders = [
        f"{modules()[name].path.relative_to(ROOT)}:{i.line}: {i.written}"
        for name in modules()
        if not in_cli(name)
        for i in imports(name)
        if in_cli(i.target)
    ]
    assert not offenders, "the command line sits on top; imported by:\n" + "\n".join(offenders)


def test_layers_import_only_downwards():
    offenders = []
    for name in modules():
        for i in imports(name):
            if i.target in modules() and layer(i.target) < layer(name):
                offenders.append(
                    f"{modules()[name].path.relative_to(ROOT)}:{i.line}: {i.written} "
                    f"({LAYERS[layer(name)][0]} imports {LAYERS[layer(i.target)][0]})"
                )
    assert not offenders, "imports against the layers:\n" + "\n".join(offenders)


def test_the_wheel_lists_every_package():
    """``packages`` is explicit (the mapped folders need it); a new subpackage left out of
    it would be missing from an installed ``rucola`` while the tests, run from the
    repository, still pass."""
    listed = set(setuptools_config()["packages"])
    dirs = package_dirs()
    mapped = set(dirs.values())
    on_disk, loose = set(), []
    for package, folder in dirs.items():
        for init in folder.rglob("__init__.py"):
            if not _under_other_mapping(init, folder, mapped):
                on_disk.add(_dotted(package, init.parent.relative_to(folder)))
        for path in folder.rglob("*.py"):
            if "__pycache__" not in path.parts and not (path.parent / "__init__.py").is_file():
                loose.append(str(path.relative_to(ROOT)))
    assert not on_disk - listed, f"add to pyproject.toml packages: {sorted(on_disk - listed)}"
    assert not listed - on_disk, f"listed but not on disk: {sorted(listed - on_disk)}"
    assert not loose, f"modules outside any package (left out of the wheel): {loose}"


# --- dvc.yaml code deps -----------------------------------------------------------------


def dvc_stages() -> dict[str, dict]:
    """Stage name -> its definition (the ``do`` of a foreach stage)."""
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    return {name: stage.get("do", stage) for name, stage in stages.items()}


def rucola_stages() -> list[str]:
    return [n for n, s in dvc_stages().items() if shlex.split(s["cmd"])[0] == "rucola"]


def command_function(cmd: str) -> Callable:
    """The Python function ``cmd`` (``rucola annotate export --stage 1``) runs, found the
    way the command line finds it (a group has ``commands``; Typer carries its own Click)."""
    from rucola.cli import app

    command = typer.main.get_command(app)
    for word in shlex.split(cmd)[1:]:
        group = getattr(command, "commands", None)
        if group is None or word not in group:
            break
        command = group[word]
    assert getattr(command, "commands", None) is None, f"{cmd!r} names a group, not a command"
    return inspect.unwrap(command.callback)


def _is_command(node: ast.AST) -> bool:
    """A function registered as a command (``@app.command(...)`` or ``@app.command``); a
    group's callback (``--debug``) runs before every command, so it is not one here."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(called, ast.Attribute) and called.attr == "command":
            return True
    return False


@cache
def command_functions(name: str) -> frozenset[str]:
    tree = ast.parse(modules()[name].path.read_text(encoding="utf-8"))
    return frozenset(node.name for node in tree.body if _is_command(node))


def closure(start: Iterable[str], function: tuple[str, str]) -> set[str]:
    """The modules that may run when the command ``function`` (module, name) runs.

    In command-line modules, the imports inside other commands never run (each command
    imports its own stage); everything else there, helpers included, counts. Elsewhere
    every import counts, since which functions a stage calls is not known here. A
    module's parent packages run first, so they count too."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if name in seen or name not in modules():
            continue
        seen.add(name)
        todo.extend(parents(name))
        skipped: frozenset[str] = frozenset()
        if in_cli(name):
            skipped = command_functions(name) - ({function[1]} if name == function[0] else set())
        todo.extend(i.target for i in imports(name) if i.function not in skipped)
    return seen


def code_of(stage: dict) -> set[str]:
    func = command_function(stage["cmd"])
    # ``rucola`` is the script of [project.scripts], rucola.cli:main (not rucola.__main__).
    return closure({"rucola.cli", func.__module__}, (func.__module__, func.__name__))


def covered(path: Path, deps: list[Path]) -> bool:
    return any(path == dep or dep in path.parents for dep in deps)


def literal_deps(stage: dict) -> list[Path]:
    return [ROOT / d for d in stage.get("deps", []) if "${" not in d]


def test_the_closure_follows_the_command_into_its_stage():
    code = code_of(dvc_stages()["split"])
    assert {"rucola.corpus.split", "rucola.cli.corpus", "rucola.params", "rucola"} <= code
    assert "rucola.corpus.filters.stage" not in code  # filter's stage, imported by filter only
    assert "rucola.release.build" not in code


@pytest.mark.parametrize("stage", rucola_stages())
def test_stage_deps_cover_the_code_its_command_runs(stage: str):
    definition = dvc_stages()[stage]
    deps = literal_deps(definition)
    files = {modules()[name].path for name in code_of(definition)}
    missing = sorted(str(p.relative_to(ROOT)) for p in files if not covered(p, deps))
    assert not missing, f"dvc.yaml stage {stage!r} runs code it does not depend on: {missing}"


@pytest.mark.parametrize("stage", rucola_stages())
def test_stage_code_deps_are_code_it_runs(stage: str):
    """A code dep that the command never imports only reruns the stage for nothing."""
    definition = dvc_stages()[stage]
    files = {modules()[name].path for name in code_of(definition)}
    stale = [
        str(dep.relative_to(ROOT))
        for dep in literal_deps(definition)
        if (dep.suffix == ".py" or (dep.is_dir() and any(dep.rglob("*.py"))))
        and not any(covered(f, [dep]) for f in files)
    ]
    assert not stale, f"dvc.yaml stage {stage!r} depends on code it never imports: {stale}"
