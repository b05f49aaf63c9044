"""``dvc.yaml`` is written by hand; these tests hold it to the rules a person could break.

A stage's code is one dep, its command's fingerprint (``reports/code/<command>.json``,
:mod:`rucola.code_fingerprint`), never a list of files; every output says who may see it;
every input is read under the key of the stage that writes it; every params-named input
has its tracker; the params a stage lists are settings its command's fingerprint covers;
and DVC itself accepts the file.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from dvc_project import ROOT, checked, copy_project

from rucola.cli import app
from rucola.code_fingerprint import (
    OUT_DIR,
    VARIANTS_ATTRIBUTE,
    VERSION_FILE,
    commands,
    file_name,
    fingerprint,
)

MAX_LINES = 400
FINGERPRINT_STAGE = "fingerprint_code"


def committed() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))


def stage_bodies() -> dict[str, dict[str, Any]]:
    """Stage name -> its definition (the ``do`` of a foreach stage), as committed."""
    return {name: s.get("do", s) for name, s in committed()["stages"].items()}


def entries(body: dict[str, Any], key: str) -> list[tuple[str, dict[str, Any]]]:
    """A list of deps/outs/plots/metrics as (path, flags)."""
    found = []
    for entry in body.get(key, []):
        if isinstance(entry, dict):
            ((path, flags),) = entry.items()
            found.append((path, flags or {}))
        else:
            found.append((entry, {}))
    return found


def command_words(cmd: str) -> str:
    """``rucola annotate export --stage 1`` -> ``annotate export``: the command it runs."""
    known = commands(app)
    words: list[str] = []
    for word in shlex.split(cmd)[1:]:
        if " ".join([*words, word]) not in known and not any(
            k.startswith(" ".join([*words, word]) + " ") for k in known
        ):
            break
        words.append(word)
    return " ".join(words)


def test_it_is_short_and_lists_no_code_file():
    text = (ROOT / "dvc.yaml").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES
    assert "do not edit" not in text.lower()
    paths = [
        path
        for body in stage_bodies().values()
        for key in ("deps", "outs", "plots", "metrics")
        for path, _ in entries(body, key)
    ]
    assert paths and not [p for p in paths if p.endswith(".py")]


@pytest.mark.slow
def test_each_stage_depends_on_its_own_commands_fingerprint_only():
    """The fingerprint is the stage's code: a stage without it would not rerun when its
    code changes, and one with another command's would rerun for code it does not run."""
    wrong = []
    for name, body in stage_bodies().items():
        if name == FINGERPRINT_STAGE:
            continue
        prints = [p for p, _ in entries(body, "deps") if p.startswith(f"{OUT_DIR.as_posix()}/")]
        words = command_words(body["cmd"])
        want = f"{OUT_DIR.as_posix()}/{file_name(words)}"
        if hasattr(commands(app)[words], VARIANTS_ATTRIBUTE):  # generate: its method's
            want = want.removesuffix(".json") + "/${item.method}.json"
        wanted = [want]
        if name == "release":  # and the version the card names (issue 46)
            wanted.append(f"{OUT_DIR.as_posix()}/{VERSION_FILE}")
        if prints != wanted:
            wrong.append(f"{name}: {prints}, expected {wanted}")
    assert not wrong, "\n".join(wrong)


def test_the_fingerprint_stage_depends_on_every_code_folder():
    from rucola.import_graph import package_dirs

    deps = {p for p, _ in entries(stage_bodies()[FINGERPRINT_STAGE], "deps")}
    # every folder of code; not the sample (rucola.sample: data only), an input the
    # trackers fingerprint, whose edit reruns its tracker and reader, not this stage
    folders = {
        p.relative_to(ROOT).as_posix() for p in package_dirs().values() if any(p.rglob("*.py"))
    }
    assert folders | {"pyproject.toml"} == deps
    assert "__pycache__" in (ROOT / ".dvcignore").read_text(encoding="utf-8").split()
    ((out, flags),) = entries(stage_bodies()[FINGERPRINT_STAGE], "outs")
    assert out == OUT_DIR.as_posix() and flags["cache"] is False and flags["persist"] is True


def test_every_output_is_declared_public_or_private():
    """git publishes what it tracks: a ``cache: false`` output must be public; a cached
    one names the remote of its access, so ``dvc push`` sends nothing private where the
    public may read."""
    wrong = []
    for name, body in stage_bodies().items():
        for key in ("outs", "plots", "metrics"):
            for path, flags in entries(body, key):
                access = (flags.get("meta") or {}).get("access")
                if access not in ("public", "private"):
                    wrong.append(f"{name}: {path} is not declared public or private")
                elif flags.get("cache") is False and access != "public":
                    wrong.append(f"{name}: private {path} would be tracked by git")
                elif flags.get("cache", True) and flags.get("remote") != access:
                    wrong.append(f"{name}: {path} ({access}) goes to remote {flags.get('remote')}")
    assert not wrong, "\n".join(wrong)


def test_inputs_are_read_under_the_key_of_the_stage_that_writes_them():
    """One key per path: an interpolated dep is another stage's output (or its folder)."""
    outs: set[str] = set()
    for body in stage_bodies().values():
        for key in ("outs", "plots", "metrics"):
            outs |= {path for path, _ in entries(body, key)}
    wrong = []
    for name, body in stage_bodies().items():
        for dep, _ in entries(body, "deps"):
            if "${" not in dep or re.search(r"\$\{(item|key)", dep):
                continue
            if not any(o == dep or o.startswith(dep + "/") for o in outs):
                wrong.append(f"{name}: {dep}")
    assert not wrong, "deps no stage writes:\n" + "\n".join(wrong)


def test_every_params_input_has_its_tracker():
    """Each family of ``rucola.track`` has a foreach stage over its params key, depending
    on the input, and track_index lists every family (generators after sources)."""
    from rucola.track import FAMILIES, GENERATORS

    stages = committed()["stages"]
    tracked = {
        s["foreach"].strip("${}")
        for name, s in stages.items()
        if "foreach" in s and s["do"]["cmd"].startswith("rucola track ")
    }
    assert tracked == set(FAMILIES)
    assert sorted(stages["track_index"]["params"]) == sorted([*FAMILIES, GENERATORS])


def test_every_foreach_stage_is_known_to_the_lock_pruner():
    """``rucola track-index`` removes stale foreach instances from dvc.lock by stage name
    and family (``rucola.track.FOREACH_STAGES``): it must know every foreach stage."""
    from rucola.track import FOREACH_STAGES

    foreach = {name: s["foreach"] for name, s in committed()["stages"].items() if "foreach" in s}
    assert {name: f"${{{family}}}" for name, family in FOREACH_STAGES.items()} == foreach


def _covered(key: str, settings: dict[str, str]) -> bool:
    """A params key is covered by a fingerprint that hashes it, a key above it, or the
    model that holds it (or a model below it, for a section a stage lists whole)."""
    from rucola.code_fingerprint import _models, resolve

    key = re.sub(r"\.\$\{.*", "", key)
    parts = key.split(".")
    if any(".".join(parts[:i]) in settings for i in range(1, len(parts) + 1)):
        return True
    resolved = resolve(key)
    if resolved is None:
        return False
    holder, _, annotation = resolved
    covered = {f"{m.__module__}.{m.__name__}" for m in {holder, *_models(annotation)}}
    return bool(covered & set(settings))


@pytest.mark.slow
def test_the_params_a_stage_lists_are_settings_its_fingerprint_covers():
    """DVC reruns a stage when a value it lists changes; its fingerprint must cover each
    such key's model (or field) too, or a change to what the key means (its default, its
    rule) would leave the stage's outputs standing. A key listed here that the command
    does not read is a stale params entry, or a read the fingerprint cannot see."""
    root = Path(ROOT)
    prints: dict[str, dict[str, str]] = {}
    wrong = []
    for name, body in stage_bodies().items():
        if name == FINGERPRINT_STAGE:
            continue
        words = command_words(body["cmd"])
        if words not in prints:
            prints[words] = fingerprint(words, commands(app)[words], root)["settings"]
        for key in body.get("params", []):
            if not _covered(key, prints[words]):
                wrong.append(f"{name} (rucola {words}): {key}")
    assert not wrong, "params keys no fingerprint covers:\n" + "\n".join(wrong)


@pytest.mark.slow
def test_dvc_accepts_the_file(tmp_path: Path):
    root = copy_project(tmp_path / "project")
    checked("git", "init", "-q", cwd=root)
    listed = checked("dvc", "stage", "list", cwd=root).stdout
    for name in ("fingerprint_code", "extract", "filter", "release", "generate@perturbations"):
        assert re.search(rf"^{re.escape(name)}\s", listed, re.M), listed
