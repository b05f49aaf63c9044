"""Fingerprints of the inputs that params name, so that DVC tracks them: the index of
what params name, and the generators' tracker (one input's fingerprint, what each tracker
stage runs, is ``rucola.track_input``).

DVC cannot take a stage's list of dependencies from params (iterative/dvc#8171: a list
cannot be interpolated into ``deps``), but it can generate one stage per item of a params
list or mapping with ``foreach``. So every params-named input gets a small "tracker" stage
(``track_*@...`` in ``dvc.yaml``) that depends on that one input and writes its fingerprint
to ``reports/inputs/<family>/<path>.json``; the stage that reads the inputs depends on the
folder of its family's fingerprints. Editing an input reruns its tracker, whose fingerprint
then changes, which reruns exactly the stages that read the input.

A *family* is the params key that names the inputs (``extract.sources``,
``annotate.stage1``, ...). ``track_index`` writes ``reports/inputs/<family>/_params.json``
(what params name, in order, checked by the schema) for every family and removes
fingerprints params no longer name, so a family's folder exists, and holds exactly what
the current params name, even when its list is empty; each tracker depends on its
family's index and reads its input there, never params (``rucola.track_input``).
``generate.generators`` is a second level, one stage for all generators
(``track_generators``): per generator, a file of the fingerprints and settings of the
sources that generator reads (none when it is disabled), so ``generate@NAME`` reruns only
when its own sources or settings change.

The fingerprints are git-tracked (DVC outputs with ``cache: false``), so a version of the
corpus also records which input bytes built it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rucola.errors import RucolaError, params_error
from rucola.io import write_json
from rucola.names import check_name, inside_repository
from rucola.ownership import in_scratch, is_owned_file, remove, remove_empty_folder
from rucola.settings import GenerationSource, Params
from rucola.track_input import GENERATORS, INDEX, ROOT, SOURCES, fingerprint_file

# The params keys whose values name inputs: a path, a list of paths (or of {path: ...}
# entries), or for generate.sources a mapping id -> {path: ...}; each with how it is read,
# written out so that the tracker commands' code fingerprint sees every key they read
# (rucola.code_fingerprint finds ``params.<key>`` in the code).
FAMILIES: dict[str, Callable[[Params], Any]] = {
    "extract.sources": lambda params: params.extract.sources,
    SOURCES: lambda params: params.generate.sources,
    "filter.frequency.path": lambda params: params.filter.frequency.path,
    "split.pin": lambda params: params.split.pin,
    "extract.errata": lambda params: params.extract.errata,
    "annotate.controls": lambda params: params.annotate.controls,
    "annotate.stage1": lambda params: params.annotate.stage1,
    "annotate.stage2": lambda params: params.annotate.stage2,
    "annotate.votes": lambda params: params.annotate.votes,
    "audit.likely_label_error.model": lambda params: params.audit.likely_label_error.model,
}


def _entries(value: Any, family: str) -> list[tuple[str, str]]:
    """(name, path) per input a family's params value names; name = path, or the id. The
    schema has made every family a list (or a mapping), each item a path or a section
    with one."""
    items: Iterable[tuple[str | None, Any]]
    if isinstance(value, dict):  # a mapping's order means nothing: sorted by id
        items = sorted(value.items(), key=lambda i: str(i[0]))
    else:
        items = ((None, v) for v in value)
    entries = []
    for key, item in items:
        path = inside_repository(item.path if isinstance(item, BaseModel) else item, family)
        if key is not None:
            check_name(key, f"{family}[{key!r}]")
        entries.append((str(key) if key is not None else path, path))
    return entries


def named(params: Params, family: str) -> list[tuple[str, str]]:
    """(fingerprint name, path) of every input that ``family`` names in ``params``."""
    if family not in FAMILIES:
        raise RucolaError(f"unknown input family {family!r}", hint=f"one of {', '.join(FAMILIES)}")
    return _entries(FAMILIES[family](params), family)


def _is_pairs(settings: GenerationSource, path: str) -> bool:
    """Whether a generation source is read as a pair of line-aligned files (the tracker
    then fingerprints both sides): its ``format``, else its extension."""
    if settings.format:
        return settings.format == "pairs"
    suffix = Path(path).suffix.lower()
    return suffix in {".rus", ".eng", ".ru", ".en"} or not suffix


def prune(family: str, keep: Iterable[str], root: Path = ROOT) -> list[Path]:
    """Remove the family's fingerprints whose name is not in ``keep``, then empty folders.

    Deletion goes through ``rucola.ownership.remove``: a file rucola recorded writing (or
    ``dvc.lock`` records), or one that names this family and that name, which only this
    module writes; anything else there is left where it is."""
    folder = root / family
    keep = set(keep)
    removed = []
    if not folder.is_dir():
        return removed

    def names_itself(file: Path) -> bool:
        name = file.relative_to(folder).as_posix()[: -len(".json")]
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return False
        return isinstance(data, dict) and data.get("family") == family and data.get("name") == name

    for file in sorted(folder.rglob("*.json")):
        if file.parent == folder and file.name == INDEX:
            continue
        if file.relative_to(folder).as_posix()[: -len(".json")] in keep:
            continue
        if in_scratch(file.relative_to(folder)):
            continue
        if names_itself(file) or is_owned_file(file):
            remove(file, claim=names_itself)
            removed.append(file)
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
        remove_empty_folder(sub)
    return removed


def _generator_record(params: Params, name: str) -> dict[str, Any]:
    """What ``generate@NAME`` reads: its settings' sources (none when it is disabled),
    each with its settings and its input's fingerprint (``track_source``'s file)."""
    generator = params.generate.generators[name]
    known = params.generate.sources
    sources: dict[str, Any] = {}
    for source_id in generator.sources if generator.enabled else []:
        if source_id not in known:
            raise params_error(
                f"generator '{name}': no source '{source_id}' in generate.sources",
                hint=f"defined: {', '.join(sorted(known)) or 'none'}",
            )
        file = fingerprint_file(SOURCES, str(source_id))
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            raise RucolaError(
                f"generator '{name}': no fingerprint of source '{source_id}'",
                file,
                hint="run `dvc repro` (its track_source stage writes it)",
            ) from None
        sources[str(source_id)] = {
            "settings": known[source_id].model_dump(),
            "input": {
                k: data.get(k)
                for k in ("path", "kind", "sha256", "size", "keyed")
                if k in data or k != "keyed"  # a salted folder's: its one keyed hash
            },
        }
    return {"family": GENERATORS, "name": name, "enabled": generator.enabled, "sources": sources}


def track_generators(params: Params) -> list[str]:
    """``reports/inputs/generate.generators/``: per generator, one file of the settings
    and fingerprints of the sources it reads, and the folder's ``_params.json``; removes
    the files of generators params no longer define. One stage for every generator: a
    file whose bytes stay the same leaves its ``generate@NAME`` alone. Returns the names."""
    generators = sorted(params.generate.generators)
    for name in generators:
        check_name(name, f"{GENERATORS}[{name!r}]")
    records = {name: _generator_record(params, name) for name in generators}  # all checked
    for name, record in records.items():
        write_json(record, fingerprint_file(GENERATORS, name))
    write_json({"family": GENERATORS, "generators": generators}, ROOT / GENERATORS / INDEX)
    prune(GENERATORS, generators)
    return generators


def track_index(params: Params) -> dict[str, list[str]]:
    """Write every family's ``_params.json`` and remove the fingerprints params no longer
    name; returns the names per family."""
    every = {family: named(params, family) for family in FAMILIES}  # all checked first
    for name in params.generate.generators:  # names a folder: generate@NAME's work folder
        check_name(name, f"{GENERATORS}[{name!r}]")
    result: dict[str, list[str]] = {}
    for family, entries in every.items():
        names = [n for n, _ in entries]
        inputs: list[dict[str, Any]] = [{"name": n, "path": p} for n, p in entries]
        if family == SOURCES:  # how the reader reads it, which its tracker must know
            for item in inputs:
                item["pairs"] = _is_pairs(params.generate.sources[item["name"]], item["path"])
        write_json({"family": family, "inputs": inputs}, ROOT / family / INDEX)
        prune(family, names)
        result[family] = names
    # merge_candidates depends on the folder of every generator's candidates; with no
    # generator at all (rebuilding a published release) it is empty, but it must exist.
    out_dir = inside_repository(params.generate.out_dir, "generate.out_dir")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    prune_lock()
    return result


# The foreach stages over a params family (``dvc.yaml``): an instance whose item params no
# longer name is gone from the pipeline, but DVC keeps its entry in ``dvc.lock``, with the
# hash of the input it once read (an errata file long removed from params included).
FOREACH_STAGES = {
    "track_extract": "extract.sources",
    "track_source": SOURCES,
    "track_frequency": "filter.frequency.path",
    "track_pin": "split.pin",
    "track_errata": "extract.errata",
    "track_controls": "annotate.controls",
    "track_stage1": "annotate.stage1",
    "track_stage2": "annotate.stage2",
    "track_votes": "annotate.votes",
    "track_audit_model": "audit.likely_label_error.model",
    "generate": GENERATORS,
}
LOCK_FILE = Path("dvc.lock")
DVC_PARAMS = Path("params.yaml")  # the file dvc.yaml interpolates, whatever --params says


def foreach_keys(value: Any) -> set[str]:
    """The instance names DVC gives a ``foreach`` over ``value``: a mapping's keys; a
    list's items, or their indices when any item is a mapping or a list (DVC's rule)."""
    if isinstance(value, dict):
        return {str(k) for k in value}
    if isinstance(value, list):
        if any(isinstance(v, dict | list) for v in value):
            return {str(i) for i in range(len(value))}
        return {str(v) for v in value}
    return set()


# Foreach stages rucola's dvc.yaml no longer has, whose instances an older version left in
# dvc.lock: ``track_generator@NAME``, one per generator, became ``track_generators``.
RETIRED_STAGES = frozenset({"track_generator"})


def stale_lock_stages(raw: dict[str, Any], stages: Iterable[str]) -> list[str]:
    """The entries of ``stages`` (dvc.lock's names) that are instances of a foreach stage
    over a family that ``raw`` (params.yaml as DVC reads it) no longer names, or of a
    retired one (:data:`RETIRED_STAGES`)."""
    stale = []
    for name in stages:
        stage, at, key = name.partition("@")
        if at and stage in RETIRED_STAGES:
            stale.append(name)
            continue
        if not at or stage not in FOREACH_STAGES:
            continue
        value: Any = raw
        for part in FOREACH_STAGES[stage].split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if key not in foreach_keys(value):
            stale.append(name)
    return sorted(stale)


def prune_lock(lock: Path = LOCK_FILE, params_file: Path = DVC_PARAMS) -> list[str]:
    """Remove from ``dvc.lock`` the foreach instances ``params.yaml`` no longer names (DVC
    rewrites the file after each stage, from what is on disk, so the removal stays)."""
    import yaml

    if not lock.is_file() or not params_file.is_file():
        return []
    try:
        # libyaml's loader (as rucola.ownership reads the lock): the pure-Python one took a
        # quarter of a tracker stage's time on the sample's lock
        raw = yaml.load(params_file.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) or {}
        lock_data = yaml.load(lock.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        stages = (lock_data or {}).get("stages") or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # DVC itself will say what is wrong with either file
    stale = stale_lock_stages(raw, stages) if isinstance(raw, dict) else []
    if stale:
        from dvc.utils.serialize import modify_yaml

        with modify_yaml(lock) as data:
            for name in stale:
                data["stages"].pop(name, None)
    return stale
