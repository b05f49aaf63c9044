"""The building blocks of the pipeline's description and the writer of ``dvc.yaml``.

A stage is described once, compactly (:class:`Stage`: its command, the params keys it
reads, its non-code inputs, its outputs); its code deps are never written by hand but
computed from the import closure of the command it runs (:mod:`rucola.dev.imports`), file
by file, plus the package data the code reads (:data:`PACKAGE_DATA`). :func:`render` writes
the YAML text, comments included, which is why it is emitted line by line rather than
dumped: ``yaml.safe_dump`` drops comments.
"""

from __future__ import annotations

import glob
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from rucola.dev.imports import ROOT, command_modules, modules

# Files a module reads at run time (not imported, so the closure cannot see them), as globs
# relative to the repository; a stage whose closure holds the module depends on each file.
# pyproject.toml's package-data lists them for the wheel; tests/test_wiring.py proves every
# package-data pattern is named here, so a new template cannot be forgotten.
PACKAGE_DATA: dict[str, tuple[str, ...]] = {
    "rucola.release.card": ("release/templates/*",),
    # the offline Data Docs' bootstrap-table, copied beside the pages
    "rucola.validation.offline_docs": (
        "validation/vendor/bootstrap-table/*.min.*",
        "validation/vendor/bootstrap-table/LICENSE",
        "validation/vendor/bootstrap-table/extensions/filter-control/*",
    ),
}


@dataclass(frozen=True)
class Entry:
    """One item of a deps/params/outs/plots/metrics list: a path or params key, its flags
    (``cache: false``, ``persist: true``, a plot's ``template``...) and a trailing comment."""

    path: str
    flags: tuple[tuple[str, Any], ...] = ()
    comment: str = ""

    def data(self) -> str | dict[str, Any]:
        return {self.path: dict(self.flags)} if self.flags else self.path


def item(path: str, comment: str = "", **flags: Any) -> Entry:
    """An entry; ``cache=False`` and the like become the entry's flags, in order."""
    return Entry(path, tuple(flags.items()), comment)


# Every output says whether it is public or private (``meta: {access: ...}`` in dvc.yaml,
# which DVC keeps and ignores): public outputs are git-tracked reports or the published
# release, computed from the public form of rows only; private ones live in the DVC cache
# and its (private) remote, never in git. tests/guarantees/test_guard_tracked_files.py
# holds every git-tracked file to a public output and every private one to .gitignore.
# A cached output also names the DVC remote of its access (``remote: public|private``, two
# remotes in .dvc/config; the default, for what `dvc add` tracks, is the private one), so
# `dvc push` sends nothing private where the public may read.
ACCESS = "access"
PUBLIC, PRIVATE = "public", "private"


def report(path: str, comment: str = "", **flags: Any) -> Entry:
    """A public output kept in git rather than the DVC cache (reports, plots,
    fingerprints): computed from what is public of a row only. ``persist``: DVC leaves it
    in place while its stage runs (rucola replaces it atomically at the end), so a failed or
    killed ``dvc repro`` never leaves a committed report deleted; the price is that DVC's
    run cache skips such a stage (README, "Reports survive a failed run")."""
    return item(path, comment, cache=False, persist=True, meta={ACCESS: PUBLIC}, **flags)


def public(path: str, comment: str = "") -> Entry:
    """A public output in the DVC cache (the release folders: published, not in git)."""
    return item(path, comment, meta={ACCESS: PUBLIC}, remote=PUBLIC)


def private(path: str, comment: str = "") -> Entry:
    """A private output: DVC cache and private remote only, never in git (rows with
    hidden labels, private reports, the gold)."""
    return item(path, comment, meta={ACCESS: PRIVATE}, remote=PRIVATE)


def access(entry: Entry | str) -> str | None:
    """An output's declared access (``public`` or ``private``), or None if undeclared."""
    if isinstance(entry, str):
        return None
    meta = dict(entry.flags).get("meta")
    return meta.get(ACCESS) if isinstance(meta, dict) else None


Items = tuple[Entry | str, ...]


@dataclass(frozen=True)
class Stage:
    """One DVC stage. ``deps`` are the non-code inputs; the code deps are computed."""

    name: str
    cmd: str | tuple[str, ...]  # a tuple: one command folded over several lines
    deps: Items = ()
    params: Items = ()
    outs: Items = ()
    plots: Items = ()
    metrics: Items = ()
    foreach: str | None = None
    comment: str = ""  # lines written above the stage
    extra_code: tuple[str, ...] = field(default=())  # more modules the command may run

    @property
    def command(self) -> str:
        return self.cmd if isinstance(self.cmd, str) else " ".join(self.cmd)


def note(text: str) -> Entry:
    """A comment line inside a list (why an input is there); not an entry for DVC."""
    return Entry(f"# {text}")


def _entries(items: Items) -> list[Entry]:
    return [i if isinstance(i, Entry) else Entry(i) for i in items]


def _data(items: Items) -> list[str | dict[str, Any]]:
    return [e.data() for e in _entries(items) if not e.path.startswith("#")]


def code_deps(stage: Stage) -> list[str]:
    """The files the stage's command may run (its import closure), relative to the root,
    and the package data those modules read; sorted, one per file, never a folder."""
    names = command_modules(stage.command) | set(stage.extra_code)
    files = {modules()[name].path.relative_to(ROOT).as_posix() for name in names}
    for name in names:
        for pattern in PACKAGE_DATA.get(name, ()):
            found = sorted(glob.glob(pattern, root_dir=ROOT))
            if not found:
                raise ValueError(f"PACKAGE_DATA[{name!r}]: {pattern} matches no file")
            files.update(found)
    return sorted(files)


def check_declared(stage: Stage) -> None:
    """Every output of ``stage`` is declared public or private, and a git-tracked one
    (``cache: false``) is public: git publishes what it tracks."""
    for key in ("outs", "plots", "metrics"):
        for entry in _entries(getattr(stage, key)):
            if entry.path.startswith("#"):
                continue
            kind = access(entry)
            if kind not in (PUBLIC, PRIVATE):
                raise ValueError(
                    f"{stage.name}: {key} {entry.path} is not declared public or private"
                )
            if kind == PRIVATE and dict(entry.flags).get("cache") is False:
                raise ValueError(f"{stage.name}: private {entry.path} would be tracked by git")


def data(stages: Iterable[Stage], plots: Items) -> dict[str, Any]:
    """What ``dvc.yaml`` holds, as DVC reads it (the test compares it with the file)."""
    out: dict[str, Any] = {}
    for stage in stages:
        check_declared(stage)
        body: dict[str, Any] = {"cmd": stage.command}
        body["deps"] = _data(stage.deps) + code_deps(stage)
        for key in ("params", "outs", "plots", "metrics"):
            if entries := _data(getattr(stage, key)):
                body[key] = entries
        out[stage.name] = {"foreach": stage.foreach, "do": body} if stage.foreach else body
    return {"stages": out, "plots": _data(plots)}


def scalar(value: Any) -> str:
    """One YAML scalar or flow list, quoted only where YAML needs it."""
    text = yaml.safe_dump(value, default_flow_style=True, width=math.inf, allow_unicode=True)
    return text.removesuffix("\n").removesuffix("\n...")


def _comment_lines(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}".rstrip() for line in text.splitlines()]


def _with_comment(line: str, comment: str) -> str:
    return f"{line}  # {comment}" if comment else line


def _list(key: str, entries: list[Entry], indent: str) -> list[str]:
    lines = [f"{indent}{key}:"]
    for e in entries:
        if e.path.startswith("#"):  # a comment line inside the list
            lines.append(f"{indent}  {e.path}")
        elif not e.flags:
            lines.append(_with_comment(f"{indent}  - {scalar(e.path)}", e.comment))
        else:
            lines.append(_with_comment(f"{indent}  - {scalar(e.path)}:", e.comment))
            lines += [f"{indent}      {k}: {scalar(v)}" for k, v in e.flags]
    return lines


CODE_NOTE = note("code: the files the command imports, directly or not (generated)")


def _stage_lines(stage: Stage) -> list[str]:
    check_declared(stage)
    lines = _comment_lines(stage.comment, "  ") if stage.comment else []
    lines.append(f"  {stage.name}:")
    indent = "    "
    if stage.foreach:
        lines += [f"    foreach: {stage.foreach}", "    do:"]
        indent = "      "
    if isinstance(stage.cmd, str):
        lines.append(f"{indent}cmd: {scalar(stage.cmd)}")
    else:
        lines.append(f"{indent}cmd: >-")
        lines += [f"{indent}  {part}" for part in stage.cmd]
    code = [Entry(path) for path in code_deps(stage)]
    lines += _list("deps", [*_entries(stage.deps), CODE_NOTE, *code], indent)
    for key in ("params", "outs", "plots", "metrics"):
        if entries := _entries(getattr(stage, key)):
            lines += _list(key, entries, indent)
    return lines


def render(header: str, stages: Iterable[Stage], plots: Items, plots_comment: str) -> str:
    """The text of ``dvc.yaml``: the header, every stage, then the top-level plots."""
    lines = _comment_lines(header, "")
    lines.append("stages:")
    for number, stage in enumerate(stages):
        if number:
            lines.append("")
        lines += _stage_lines(stage)
    lines.append("")
    lines += _comment_lines(plots_comment, "")
    lines += _list("plots", _entries(plots), "")
    return "\n".join(lines) + "\n"
