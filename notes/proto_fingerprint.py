"""Prototype for issue 34: what each stage's fingerprint would cover (code files and settings
classes) under the narrower rules. Run: .venv/bin/python notes/proto_fingerprint.py"""

from __future__ import annotations

import inspect
import re
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from rucola.dev import imports as g
from rucola.dev.pipeline import stages
from rucola.settings import Params
from rucola.settings.keys import _unwrap

SETTINGS = "rucola.settings"
SHARED_SETTINGS = {f"{SETTINGS}.{m}" for m in ("types", "keys", "problems", "schema")} | {SETTINGS}


def closure(cmd: str) -> set[str]:
    func = g.command_function(cmd)
    start = {func.__module__}
    seen: set[str] = set()
    todo = list(start)
    commands = {m for m in g.modules() if g.in_cli(m) and g.command_functions(m)}
    while todo:
        name = todo.pop()
        if name in seen or name not in g.modules():
            continue
        seen.add(name)
        todo.extend(g.parents(name))
        skipped: frozenset[str] = frozenset()
        if g.in_cli(name):
            skipped = g.command_functions(name) - ({func.__name__} if name == func.__module__ else set())
        for i in g.imports(name):
            if i.function in skipped:
                continue
            if name == "rucola.cli" and i.target in commands and i.target != func.__module__:
                continue  # the package registers every command module: not this stage's code
            if i.target.startswith(SETTINGS + ".") and i.target not in SHARED_SETTINGS:
                continue  # section modules: replaced by the classes the stage reads
            todo.append(i.target)
    # rucola.settings/__init__ imports every section: keep the package file, not its imports
    return seen


def models_of(tp: Any) -> set[type[BaseModel]]:
    tp, _ = _unwrap(tp)
    found: set[type[BaseModel]] = set()
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        for cls in tp.__mro__:
            if isinstance(cls, type) and issubclass(cls, BaseModel) and cls.__module__.startswith(SETTINGS):
                found.add(cls)
        for field in tp.model_fields.values():
            found |= models_of(field.annotation)
    for arg in get_args(tp) if get_origin(tp) else ():
        found |= models_of(arg)
    return found


def settings_of(keys: list[str]) -> set[type[BaseModel]]:
    found: set[type[BaseModel]] = set()
    for key in keys:
        if key.startswith("#") or "${" in key:
            key = re.sub(r"\.\$\{.*", "", key)
        tp: Any = Params
        holder = Params
        for part in key.split("."):
            tp, _ = _unwrap(tp)
            if get_origin(tp) is dict:
                tp = get_args(tp)[-1]
                tp, _ = _unwrap(tp)
            holder = tp
            tp = tp.model_fields[part].annotation
        inner, _ = _unwrap(tp)
        if get_origin(inner) is dict:
            inner = get_args(inner)[-1]
        found |= models_of(inner) if isinstance(inner, type) and issubclass(inner, BaseModel) else models_of(holder)
    return found


for stage in stages():
    params = [p if isinstance(p, str) else p.path for p in stage.params]
    mods = closure(stage.command)
    classes = settings_of([p for p in params if not p.startswith("#")])
    print(f"{stage.name:20} code {len(mods):3}  settings {sorted(c.__name__ for c in classes)}")
