"""The package's shape, proven from its source: no import cycles, the layers hold, and every
package is in the wheel.

The import graph is read with ``ast`` (:mod:`rucola.import_graph`), imports inside functions
included, because those are the imports that hid the cycles. The same graph gives each
command's code fingerprint (tests/rucola/test_code_fingerprint.py).
"""

from __future__ import annotations

import importlib

from rucola.import_graph import (
    CLI,
    ITER_MODULES,
    LAYERS,
    ROOT,
    _dotted,
    _under_other_mapping,
    closure,
    cycles,
    graph,
    imports,
    in_cli,
    layer,
    modules,
    package_dirs,
    setuptools_config,
)

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
            if i.written == ITER_MODULES:  # every submodule, found on disk
                continue
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


def test_nothing_below_imports_the_command_line():
    """Only the developer tools above it (rucola.dev reads the commands to fingerprint them)."""
    offenders = [
        f"{modules()[name].path.relative_to(ROOT)}:{i.line}: {i.written}"
        for name in modules()
        if layer(name) > CLI
        for i in imports(name)
        if in_cli(i.target)
    ]
    assert not offenders, "only rucola.dev sits above the command line; imported by:\n" + (
        "\n".join(offenders)
    )


def test_the_developer_tools_are_the_top_layer():
    assert layer("rucola.dev.params") == 0 < layer("rucola.cli") == CLI
    assert LAYERS[CLI][0] == "the command line"


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
    # a mapped folder of data only (the embedded sample) is listed for its package data
    data_only = {p for p, f in dirs.items() if not any(f.rglob("*.py"))}
    assert data_only <= set(setuptools_config()["package-data"]), data_only
    missing = listed - on_disk - data_only
    assert not missing, f"listed but not on disk: {sorted(missing)}"
    assert not loose, f"modules outside any package (left out of the wheel): {loose}"


def _command_modules(module: str, function: str) -> set[str]:
    from rucola.code_fingerprint import code_modules

    return code_modules(getattr(importlib.import_module(module), function), ROOT)


def test_the_closure_follows_the_command_into_its_stage():
    code = _command_modules("rucola.cli.corpus", "split")
    assert {"rucola.corpus.split", "rucola.cli.corpus", "rucola.params", "rucola"} <= code
    assert "rucola.corpus.filters.stage" not in code  # filter's stage, imported by filter only
    assert "rucola.release.build" not in code


def test_the_closure_skips_the_other_commands_of_a_command_line_module():
    """A command's own imports count, its neighbours' never: each command imports its
    stage inside its function, and one registered by stage_command is a command too."""
    filter_code = closure({"rucola.cli", "rucola.cli.corpus"}, ("rucola.cli.corpus", "filter_"))
    split_code = closure({"rucola.cli", "rucola.cli.corpus"}, ("rucola.cli.corpus", "split"))
    assert "rucola.corpus.filters.stage" in filter_code
    assert "rucola.corpus.filters.stage" not in split_code


def test_a_package_importing_all_its_modules_imports_each_of_them():
    """corpus.filters imports its modules with pkgutil (a rule registers itself by being
    defined); the closure must see each, or a rule module would be no stage's code dep."""
    found = {i.target for i in imports("rucola.corpus.filters") if i.written == ITER_MODULES}
    assert {"rucola.corpus.filters.length", "rucola.corpus.filters.frequency"} <= found
    assert "rucola.corpus.filters.length" in _command_modules("rucola.cli.corpus", "filter_")
