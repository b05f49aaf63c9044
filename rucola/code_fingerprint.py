"""Code fingerprints: one small file per command, the hash of exactly the code it runs.

DVC reruns a stage when one of its deps changes. Listing each stage's code files as deps
made ``dvc.yaml`` a generated file of 1,500 lines that nobody could read or edit. Instead
one stage (``fingerprint_code``) depends on the code folders and writes, for every command
of the command line, ``reports/code/<command>.json`` (``reports/code/annotate/merge.json``
for ``rucola annotate merge``): the SHA-256 of each module the command may run and of each
settings model it reads. Each stage depends on its own command's file, so a code change
reruns the fingerprint stage (a second) and then exactly the stages whose file changed.

What a command's fingerprint covers:

- **Code:** the import closure of the command's function (:func:`rucola.import_graph.closure`),
  without the other commands (``rucola/cli/__init__.py`` imports every command module to
  register it, and none of those runs), plus the package data its modules read
  (:data:`PACKAGE_DATA`) and the program every command starts in (:data:`ENTRY`).
- **Settings:** the settings section modules (``rucola/settings/corpus.py``...) are not
  taken whole: ``rucola/settings/__init__.py`` imports every one of them, so each stage
  would rerun for any key of any stage. A command covers the models it reads: its stage
  section (``stage_command(section=...)``, whole), and every ``params.<key>`` its code
  reads; a key holding a model (``params.filter.frequency``) covers that model, its bases
  and the models nested in it; a plain key (``params.filter.rejected``) covers only that
  field's line. A section module's code outside its classes (defaults, validators' helpers)
  counts for each command that covers one of its models.
- **Code, not layout:** a Python file, a model's lines and a module's code outside its
  classes are hashed without comments and blank lines (:mod:`rucola.source_text`), the
  same on Python 3.11 to 3.13: a comment reruns no stage, and no file under
  ``reports/code/`` changes for one. Other files (templates) are hashed as bytes.
- **Names, not paths:** code is named by module (``"rucola.corpus.extract": sha256``) and
  package data by its package (``"rucola.release/templates/card.md.j2"``), never by a
  path: a checkout keeps ``corpus/extract.py`` at its top, an installed wheel keeps
  ``rucola/corpus/extract.py``, and both write the same bytes for the same code. The
  code is read from :func:`rucola.import_graph.code_root` (the checkout the command runs
  in, else the installed package) and the records written under the current directory,
  so a corpus repository with only the wheel gets the records this checkout commits.
- **Shared settings code** (``rucola/settings/{__init__,types,keys,problems,schema}.py``,
  the ``Section`` base in ``types.py`` included) is code every command imports: a change
  there reruns every stage, as a change to ``rucola/params.py`` does.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import glob
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args, get_origin

from rucola import import_graph as graph
from rucola.errors import RucolaError
from rucola.source_text import code_hash, code_lines
from rucola.tree_walk import naming_lines, naming_nodes

OUT_DIR = Path("reports/code")
SETTINGS = "rucola.settings"
# The settings modules every command shares (read whole, like any other code).
SHARED_SETTINGS = frozenset(
    {SETTINGS, *(f"{SETTINGS}.{name}" for name in ("types", "keys", "problems", "schema"))}
)
# Files a module reads at run time (not imported, so the closure cannot see them), as
# ``<package>/<glob>``, the glob relative to the package's folder (``release/`` in a
# checkout, ``rucola/release/`` installed: one pattern for both layouts); a command whose
# closure holds the module covers each file, named in its record as the pattern's package
# and the file's path below it (``rucola.release/templates/card.md.j2``). pyproject.toml's
# package-data lists them for the wheel; a test proves every package-data pattern is named
# here, so a new template cannot be forgotten.
PACKAGE_DATA: dict[str, tuple[str, ...]] = {
    # the presets `rucola init --preset` copies, and the corpus repository's templates
    "rucola.corpus_repo": ("rucola/presets/*.yaml", "rucola/corpus_template/*"),
    "rucola.release.card": ("rucola.release/templates/*",),
    # the offline Data Docs' bootstrap-table, copied beside the pages
    "rucola.validation.offline_docs": (
        "rucola.validation/vendor/bootstrap-table/*.min.*",
        "rucola.validation/vendor/bootstrap-table/LICENSE",
        "rucola.validation/vendor/bootstrap-table/extensions/filter-control/*",
    ),
}
# Package data no command's code is: the embedded sample (package ``rucola.sample``, this
# repository's ``data/sample/``), which ``rucola init --preset sample`` copies into a corpus
# repository. A stage reads it as an input, tracked by the trackers like any other, so it is
# in no fingerprint (an edited sample sheet reruns its tracker and its reader, not every
# stage); it is in the installed package's hash (:func:`package_hash`).
INPUT_DATA: dict[str, tuple[str, ...]] = {
    "rucola.corpus_repo": ("rucola.sample/*.md", "rucola.sample/*/*.*", "rucola.sample/*/*/*.*"),
}
# Set by ``stage_command`` on the function it registers: the params keys it hands the
# function (its section, and the key of the file it reads).
SETTINGS_ATTRIBUTE = "__rucola_settings__"
# Set on a command that runs one extension of a registry per stage (``rucola generate
# NAME`` runs its generator's method): besides its own file, one per registered name
# (``reports/code/generate/<method>.json``) that leaves the other extensions' modules out,
# so a change to one method reruns that method's generators only.
VARIANTS_ATTRIBUTE = "__rucola_variants__"


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def file_hash(path: Path) -> str:
    """A Python file's code without comments and blank lines (``rucola.source_text``:
    a comment reruns no stage), any other file's bytes (a template's every byte counts).
    Hashed once per content (most files are in every command's closure)."""
    stat = path.stat()
    return _file_hash(str(path), (stat.st_mtime_ns, stat.st_size))


@functools.cache
def _file_hash(path: str, stamp: tuple[int, int]) -> str:
    if path.endswith(".py"):
        return code_hash(Path(path).read_text(encoding="utf-8"))
    return sha256(Path(path).read_bytes())


# --- the commands -------------------------------------------------------------------------


def commands(app: Any) -> dict[str, Callable[..., Any]]:
    """Every command of ``app`` (the command line's root: a Typer app, or the Click group
    a running command finds as its context's root) by its words (``annotate merge``), with
    the Python function it runs; a group that runs a command of its own (``rucola audit``)
    is one."""
    import inspect

    import typer
    import typer.main

    root = typer.main.get_command(app) if isinstance(app, typer.Typer) else app
    found: dict[str, Callable[..., Any]] = {}

    def walk(command: Any, words: tuple[str, ...]) -> None:
        group = getattr(command, "commands", None)
        if group is None or (words and command.invoke_without_command):
            found[" ".join(words)] = inspect.unwrap(command.callback)
        for name, sub in sorted((group or {}).items()):
            walk(sub, (*words, name))

    walk(root, ())
    return found


def file_name(words: str) -> str:
    """``annotate merge`` -> ``annotate/merge.json``, the file under :data:`OUT_DIR`."""
    return "/".join(words.split()) + ".json"


# --- code ---------------------------------------------------------------------------------


CLI_PACKAGE = "rucola.cli"
# The program every command starts in (``[project.scripts]``): its own code, not what it
# dispatches to (each command's closure reaches its own code), is in every fingerprint.
ENTRY = "rucola.__main__"


def _skip(root: Path, own: str) -> Callable[[str, str], bool]:
    """The imports a command's closure leaves out: the command line package's imports of
    the other command modules (made to register them: none of their commands runs) and
    the settings section modules (covered model by model instead)."""

    def skip(importer: str, target: str) -> bool:
        if importer == CLI_PACKAGE and target != own and graph.command_functions(target, root):
            return True
        return target.startswith(f"{SETTINGS}.") and target not in SHARED_SETTINGS

    return skip


def code_modules(
    function: Callable[..., Any], root: Path, others: frozenset[str] = frozenset()
) -> set[str]:
    """The modules that may run when ``function`` (a command) runs; ``others``: modules
    left out (the other variants of a command that runs one of several, see
    :data:`VARIANTS_ATTRIBUTE`)."""
    own = function.__module__
    skip = _skip(root, own)
    closure = graph.closure(
        {own}, (own, function.__name__), root, lambda a, b: b in others or skip(a, b)
    )
    return closure | {ENTRY}


def package_data(
    names: set[str], root: Path, patterns: dict[str, tuple[str, ...]] = PACKAGE_DATA
) -> dict[str, Path]:
    """The package data the modules ``names`` read (:data:`PACKAGE_DATA`): each file's
    package-relative name (``rucola.release/templates/card.md.j2``, the same in a checkout
    and installed) -> its path under ``root``."""
    files: dict[str, Path] = {}
    for name in sorted(names):
        for pattern in patterns.get(name, ()):
            package, _, relative = pattern.partition("/")
            folder = graph.package_folder(package, root)
            found = sorted(glob.glob(relative, root_dir=folder))
            if not found:
                raise RucolaError(f"PACKAGE_DATA[{name!r}]: {pattern} matches no file")
            files.update({f"{package}/{Path(f).as_posix()}": folder / f for f in found})
    return dict(sorted(files.items()))


# --- settings -----------------------------------------------------------------------------


def _lines_of(node: ast.stmt, text: str) -> str:
    """The code of the whole lines a statement spans, without comments and blank lines
    (``rucola.source_text``; ``ast.get_source_segment`` splits the file's text again on
    every call: too slow for a few hundred classes and fields)."""
    lines = code_lines(text)
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return "".join(line for line in lines[start - 1 : node.end_lineno] if line is not None)


@functools.cache
def _chains_by_body(path: str, stamp: tuple[int, int]) -> dict[str | None, frozenset[str]]:
    """Every ``params.a.b`` attribute chain (the longest, not its prefixes) of a module,
    by the top-level function it sits in (None: elsewhere): ``a.b``."""
    text, tree = graph.parsed(Path(path))
    if not any(name in text for name in PARAMS_NAMES | PARAMS_READERS):
        return {}  # most modules never name the params: no walk of their tree
    found: dict[str | None, set[str]] = {}
    naming = naming_lines(text, PARAMS_NAMES | PARAMS_READERS)
    for body in tree.body:
        owner = body.name if isinstance(body, ast.FunctionDef | ast.AsyncFunctionDef) else None
        chains = found.setdefault(owner, set())
        # a chain lies in one statement, and starts from a name written out in it
        nodes = naming_nodes(body, naming)
        attributes = [node for node in nodes if isinstance(node, ast.Attribute)]
        inner = {id(node.value) for node in attributes if isinstance(node.value, ast.Attribute)}
        for node in attributes:
            if id(node) in inner:
                continue
            parts: list[str] = []
            value: ast.expr = node
            while isinstance(value, ast.Attribute):
                parts.append(value.attr)
                value = value.value
            if _is_params(value):
                chains.add(".".join(reversed(parts)))
    return {owner: frozenset(chains) for owner, chains in found.items()}


def _outer_params_chains(path: Path, skipped: frozenset[str]) -> Iterator[str]:
    """The chains of the module at ``path`` outside the top-level functions ``skipped``."""
    stat = path.stat()
    for owner, chains in _chains_by_body(str(path), (stat.st_mtime_ns, stat.st_size)).items():
        if owner is None or owner not in skipped:
            yield from chains


# What a chain of params keys starts from: the name every command and stage gives the
# params (``params.filter.frequency``), or a call that reads them
# (``read_settings(params_file).generate``).
PARAMS_NAMES = frozenset({"params"})
PARAMS_READERS = frozenset({"read_settings", "load_settings"})


def _is_params(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in PARAMS_NAMES
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        return name in PARAMS_READERS
    return False


def read_keys(function: Callable[..., Any], modules: set[str], root: Path) -> set[str]:
    """The params keys a command reads: those ``stage_command`` hands it, and every
    ``params.<key>`` chain in its code (settings modules aside: they are covered whole)."""
    keys = {k for k in getattr(function, SETTINGS_ATTRIBUTE, ()) if k}
    known = graph.modules(root)
    for name in modules:
        if name == SETTINGS or name.startswith(f"{SETTINGS}."):
            continue
        skipped: frozenset[str] = frozenset()
        if graph.in_cli(name):
            own = {function.__name__} if name == function.__module__ else set()
            skipped = graph.command_functions(name, root) - own
        keys.update(_outer_params_chains(known[name].path, skipped))
    return keys


def _models(tp: Any) -> set[type]:
    """The settings models in a type (through ``| None``, ``list[...]``, ``dict[..., ...]``
    and unions), each with its bases and the models nested in its fields."""
    from pydantic import BaseModel

    from rucola.settings.keys import _unwrap

    tp, _ = _unwrap(tp)
    found: set[type] = set()
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        for cls in tp.__mro__:
            if issubclass(cls, BaseModel) and cls.__module__.startswith(SETTINGS):
                found.add(cls)
        for field in tp.model_fields.values():
            found |= _models(field.annotation)
    for arg in get_args(tp) if get_origin(tp) else ():
        found |= _models(arg)
    return found


def resolve(key: str) -> tuple[type, str, Any] | None:
    """``filter.rejected`` -> (the model holding the field, its name, its annotation);
    None where the chain leaves the schema (``params.model_dump``): the longest prefix that
    names a field is what is read."""
    from rucola.settings import Params
    from rucola.settings.keys import _unwrap

    holder: Any = Params
    found: tuple[type, str, Any] | None = None
    for part in key.split("."):
        tp, _ = _unwrap(holder)
        fields = getattr(tp, "model_fields", None)
        if not isinstance(tp, type) or fields is None or part not in fields:
            break
        found = (tp, part, fields[part].annotation)
        holder = fields[part].annotation
    return found


def _class_source(cls: type, root: Path) -> tuple[str, ast.ClassDef]:
    path = graph.modules(root)[cls.__module__].path
    text, tree = graph.parsed(path)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return text, node
    raise RucolaError(f"class {cls.__name__} not found", path)


def _field_source(cls: type, name: str, root: Path) -> str:
    """The lines that define field ``name`` in ``cls`` or the base that declares it; for a
    key made in code (a domain's key, ``rucola.settings.types.per_domain``), the whole
    class statement that makes it."""
    for base in cls.__mro__:
        if not base.__module__.startswith(SETTINGS) or base.__module__ in SHARED_SETTINGS:
            continue
        text, node = _class_source(base, root)
        for statement in node.body:
            target = getattr(statement, "target", None)
            if isinstance(target, ast.Name) and target.id == name:
                return _lines_of(statement, text)
    if name in cls.model_fields and cls.__module__.startswith(SETTINGS):  # type: ignore[attr-defined]
        text, node = _class_source(cls, root)
        return _lines_of(node, text)
    raise RucolaError(f"field {name} of {cls.__name__} not found in its source")


def _outside_classes(module: str, root: Path) -> str:
    path = graph.modules(root)[module].path
    text, tree = graph.parsed(path)
    lines = list(code_lines(text))
    for node in reversed(tree.body):
        if isinstance(node, ast.ClassDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            del lines[start : node.end_lineno]
    return "".join(line for line in lines if line is not None)


def settings_hashes(keys: set[str], root: Path) -> dict[str, str]:
    """Hash of each model the keys cover (by qualified name), of each plain field read
    alone (by key), and of each covered model's module outside its classes."""
    found: dict[str, str] = {}
    models: set[type] = set()
    for key in sorted(keys):
        resolved = resolve(key)
        if resolved is None:
            continue
        holder, name, annotation = resolved
        inside = _models(annotation)
        if inside:
            models |= inside
        else:
            path = key.split(".")[: key.split(".").index(name) + 1]
            found[".".join(path)] = sha256(_field_source(holder, name, root))
    for cls in models:
        if cls.__module__ in SHARED_SETTINGS:
            continue  # shared code (the ``Section`` base): in every command's code already
        text, node = _class_source(cls, root)
        found[f"{cls.__module__}.{cls.__name__}"] = sha256(_lines_of(node, text))
    modules = {cls.__module__ for cls in models} - SHARED_SETTINGS
    for module in modules:
        found[f"{module} (outside classes)"] = sha256(_outside_classes(module, root))
    return dict(sorted(found.items()))


# --- fingerprints ---------------------------------------------------------------------------


def fingerprint(
    words: str, function: Callable[..., Any], root: Path, others: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """One command's fingerprint: its code and settings, each hashed, and the hash of both
    (what changes when, and only when, the command's code does). Code is named by module
    (``rucola.corpus.extract``) and package data by package (:func:`package_data`), never
    by a path: a checkout (``corpus/extract.py``) and an installed wheel
    (``rucola/corpus/extract.py``) write the same bytes for the same code."""
    names = code_modules(function, root, others)
    known = graph.modules(root)
    paths = {name: known[name].path for name in names}
    paths.update(package_data(names, root))
    code = {name: file_hash(path) for name, path in sorted(paths.items())}
    settings = settings_hashes(read_keys(function, names, root), root)
    body = {"code": code, "settings": settings}
    whole = sha256(json.dumps(body, sort_keys=True))
    return {"command": f"rucola {words}", **body, "sha256": whole}


def fingerprints(app: Any, root: Path) -> dict[str, dict[str, Any]]:
    """File name under :data:`OUT_DIR` -> fingerprint, for every command of ``app`` (and
    every variant of a command that has them)."""
    found: dict[str, dict[str, Any]] = {}
    for words, function in commands(app).items():
        found[file_name(words)] = fingerprint(words, function, root)
        registry = getattr(function, VARIANTS_ATTRIBUTE, None)
        if registry is None:
            continue
        modules = {name: registry[name].__module__ for name in registry.names()}
        for name, module in modules.items():
            others = frozenset(modules.values()) - {module}
            record = fingerprint(words, function, root, others)
            record["variant"] = name
            found[file_name(f"{words} {name}")] = record
    return found


def render(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


# Beside the fingerprints, the installed rucola's version: the release stage depends on it
# (a release says which version built it), and no other stage does.
VERSION_FILE = "version.json"


def files(app: Any, code: Path) -> dict[str, str]:
    """Every file under :data:`OUT_DIR` (name -> text) for the code under ``code``: each
    command's fingerprint and :data:`VERSION_FILE`."""
    from rucola.package_version import version

    wanted = {name: render(record) for name, record in fingerprints(app, code).items()}
    wanted[VERSION_FILE] = render({"rucola": version()})
    return wanted


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector kept out of a run in a process of its own (``rucola
    fingerprint``). The run parses every module: a few hundred thousand syntax tree
    nodes, cached till the process ends (``rucola.import_graph.parsed``), which each
    collection walked again as they grew, and the last one at exit once more: a third
    of the run, to free nothing. What the run made is then frozen (``gc.freeze``): no
    collection walks it; what is no longer used is still freed as it goes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def stale(
    app: Any, root: Path, out_dir: Path = OUT_DIR, *, code: Path | None = None
) -> tuple[dict[str, str], list[str]]:
    """(the files to write: name -> text, the stale JSON files to remove) under ``out_dir``
    (relative to ``root``, the repository the stage runs in), for the code under ``code``
    (default ``root``, a checkout; :func:`rucola.import_graph.code_root` says which: a
    corpus repository fingerprints the installed package's code)."""
    wanted = files(app, root if code is None else code)
    folder = root / out_dir
    write = {
        name: text
        for name, text in wanted.items()
        if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text
    }
    present = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.json"))
    return write, [name for name in present if name not in wanted]


def is_fingerprint(path: Path) -> bool:
    """Whether ``path`` holds a fingerprint this module writes (a claim of ownership for
    ``rucola.ownership``: a fresh clone's files carry no record of their writer, and DVC's
    lock hashes the folder, not its files)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    if path.name == VERSION_FILE and isinstance(record, dict) and set(record) == {"rucola"}:
        return True
    return (
        isinstance(record, dict)
        and {"command", "code", "settings", "sha256"} <= set(record)
        and str(record["command"]).startswith("rucola ")
    )


def write(
    app: Any, root: Path, out_dir: Path = OUT_DIR, *, code: Path | None = None
) -> tuple[list[str], list[str]]:
    """Bring ``out_dir`` under ``root`` up to date for the code under ``code`` (see
    :func:`stale`): (the files written, the stale ones removed). A file whose text is
    unchanged is not rewritten (its hash, which DVC reads, stays); only a file that holds
    a fingerprint is replaced or removed (:func:`is_fingerprint`)."""
    from rucola.io import atomic_path
    from rucola.ownership import remove

    changed, removed = stale(app, root, out_dir, code=code)
    folder = root / out_dir
    for name, text in changed.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(folder / name, claim=is_fingerprint) as tmp:
            tmp.write_text(text, encoding="utf-8")
    for name in removed:
        remove(folder / name, claim=is_fingerprint)
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
        if not any(sub.iterdir()):
            sub.rmdir()
    return sorted(changed), removed


def package_hash(root: Path) -> str:
    """One hash of the whole package read from ``root``: every module (by module name) and
    every package data file, byte for byte. ``.rucola/tool.json`` records it, and every
    command run in a corpus repository compares it with the installed package's
    (``rucola.tool_record``), so it must be cheap: raw bytes, not :func:`file_hash`'s
    comment-free code, which tokenizes every file (0.8 s against a few milliseconds)."""
    known = graph.modules(root)
    code = {name: sha256(module.path.read_bytes()) for name, module in sorted(known.items())}
    data = package_data(set(PACKAGE_DATA), root) | package_data(set(INPUT_DATA), root, INPUT_DATA)
    files = {name: sha256(path.read_bytes()) for name, path in data.items()}
    return sha256(json.dumps({"code": code, "data": files}, sort_keys=True))
