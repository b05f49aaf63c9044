"""A corpus repository of its own: what ``rucola init`` lays out and ``rucola upgrade``
rewrites, and the check every command makes that the installed tool is the one the
repository was set up with.

A corpus's history is kept apart from the tool's, as ``dvc init``, cookiecutter templates
and datatrove's user pipelines keep theirs: the corpus repository holds the maintainer's
overlay (``corpus.yaml``, theirs to edit), the inputs under ``data/raw/`` (DVC), and files
generated from the installed package:

- ``dvc.yaml``: this repository's pipeline, every stage calling the installed ``rucola``;
  only the ``fingerprint_code`` stage differs, depending on ``.rucola/tool.json`` (the
  installed code, recorded) rather than on source folders the corpus does not have (its
  template, ``corpus_template/dvc.yaml.template``, is derived from this repository's by
  ``python -m rucola.dev generate``);
- ``params.yaml``: ``corpus.yaml`` completed over the schema's defaults
  (``rucola.completion``), every key present because DVC interpolates and tracks keys;
- ``reports/code/``: the installed package's per-command code fingerprints, which the
  stages depend on (``rucola.code_fingerprint``);
- ``.rucola/tool.json``: the installed version and the hash of its whole code. Every
  command run in the repository compares it with the installed package first
  (:mod:`rucola.tool_record`) and refuses to run other code ("run `rucola upgrade`");
- ``.rucola/generated.json``: the hash of each generated file as it was written, so that
  ``rucola upgrade`` never overwrites a file the maintainer edited by hand (an xattr
  would not survive a clone; a committed record does). ``params.yaml`` is recorded by its
  values, not its bytes: DVC rewrites the file (``exp apply``) without changing them.

Nothing here is ``always_changed`` in DVC's sense: a second clone's ``dvc status`` stays
clean, and an upgrade reruns exactly the stages whose code fingerprints it changes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from string import Template
from typing import Any

import yaml

from rucola.code_fingerprint import sha256
from rucola.errors import RucolaError
from rucola.package_version import version
from rucola.tool_record import TOOL, code_record
from rucola.tool_record import render as render_tool

PACKAGE = Path(__file__).resolve().parent
PRESETS_DIR = PACKAGE / "presets"
TEMPLATE_DIR = PACKAGE / "corpus_template"
OVERLAY = "corpus.yaml"
PARAMS = "params.yaml"
PIPELINE = "dvc.yaml"
RECORD_DIR = Path(".rucola")
GENERATED = RECORD_DIR / "generated.json"
README = "README.md"
RAW_README = "data/raw/README.md"
GITIGNORE = ".gitignore"
SAMPLE = "data/sample"  # where the sample preset's params look for the embedded sample
GITIGNORE_MARK = "# rucola: what its commands write beside their outputs"


def presets() -> list[str]:
    """The presets ``rucola init --preset`` takes: the overlays shipped with the package
    that build a corpus (``rucola.yaml`` is RuCoLA's identity, included by others)."""
    names = sorted(p.stem for p in PRESETS_DIR.glob("*.yaml"))
    return [name for name in names if name != "rucola"]


# --- the overlay ----------------------------------------------------------------------


def preset_overlay(name: str) -> str:
    """The text of ``corpus.yaml`` for a preset: the preset's overlay as shipped, with the
    overlays it includes merged in (a corpus repository has no overlays beside its own)."""
    from rucola.completion import _Dumper, _header, _overlay_data

    if name not in presets():
        raise RucolaError(f"--preset: no preset {name!r}", hint=f"one of: {', '.join(presets())}")
    path = PRESETS_DIR / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    if "include" not in data:
        return text
    merged = _overlay_data(path)
    body = yaml.dump(merged, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=88)
    return "\n".join([*_header(text), body]).rstrip("\n") + "\n"


def new_overlay(name: str, language: str) -> str:
    """``corpus.yaml`` of a new corpus: who it is; the rest is the schema's defaults until
    the maintainer says otherwise (docs/own-corpus.md)."""
    from rucola.names import check_name

    check_name(name, "--name")
    return Template((TEMPLATE_DIR / "corpus.yaml").read_text(encoding="utf-8")).substitute(
        name=name, language=language
    )


def completed_params(root: Path) -> str:
    """``params.yaml``: ``corpus.yaml`` over the schema's defaults, every key with its
    description; an overlay the schema refuses is its problems, one line each."""
    from rucola.completion import _checked, _header, _merged, _overlay_data, _text
    from rucola.settings import Params, defaults_of

    overlay = root / OVERLAY
    if not overlay.is_file():
        raise RucolaError(f"no {OVERLAY}: not a corpus repository made by `rucola init`", overlay)
    data = _overlay_data(overlay)
    merged = _checked(_merged(defaults_of(Params), data, Params), overlay, Params)
    header = [
        f"# GENERATED by `rucola init`/`rucola upgrade` from {OVERLAY} over the schema's",
        "# defaults (every key a stage may read; DVC interpolates and tracks them). Edit",
        f"# {OVERLAY}, then `rucola upgrade`; a value changed here is refused by the upgrade.",
        "#",
        *_header(overlay.read_text(encoding="utf-8")),
    ]
    return _text(merged, header, Params)


def params_values_hash(text: str) -> str:
    """What ``params.yaml`` says, hashed: the record a hand edit is found by (DVC's own
    rewrites keep every value and change only the layout)."""
    return sha256(json.dumps(yaml.safe_load(text), sort_keys=True, ensure_ascii=False))


# --- the generated files --------------------------------------------------------------


def pipeline_text() -> str:
    return (TEMPLATE_DIR / f"{PIPELINE}.template").read_text(encoding="utf-8")


def readme_text(name: str) -> str:
    return Template((TEMPLATE_DIR / README).read_text(encoding="utf-8")).substitute(name=name)


def _content_hash(relative: str, text: str) -> str:
    return params_values_hash(text) if relative == PARAMS else sha256(text)


def generated_files(root: Path, app: Any, code_root: Path) -> dict[str, str]:
    """Every generated file (path -> text): ``dvc.yaml``, ``params.yaml``,
    ``reports/code/`` (each command's fingerprint of the code under ``code_root``, and the
    version) and ``.rucola/tool.json``."""
    from rucola.code_fingerprint import OUT_DIR, files

    wanted = {PIPELINE: pipeline_text(), PARAMS: completed_params(root)}
    for name, text in files(app, code_root).items():
        wanted[(OUT_DIR / name).as_posix()] = text
    wanted[TOOL.as_posix()] = render_tool(code_record(code_root))
    return wanted


def read_record(root: Path) -> dict[str, str]:
    path = root / GENERATED
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RucolaError(f"cannot be read as rucola's record: {error}", path) from None
    files = record.get("files") if isinstance(record, dict) else None
    if not isinstance(files, dict):
        raise RucolaError("not rucola's record of generated files (no `files`)", path)
    return {str(k): str(v) for k, v in files.items()}


def hand_edited(
    root: Path, record: dict[str, str], wanted: dict[str, str] | None = None
) -> list[str]:
    """The generated files whose content differs from what was recorded when written and
    from what rucola would write now (``wanted``): a file an upgrade killed before its
    record was written holds the new content, and the next upgrade takes it."""
    edited = []
    for relative, recorded in sorted(record.items()):
        path = root / relative
        if not path.is_file():
            continue  # removed: written again
        text = path.read_text(encoding="utf-8")
        if (wanted or {}).get(relative) == text:
            continue
        if _content_hash(relative, text) != recorded:
            edited.append(relative)
    return edited


def write_generated(root: Path, wanted: dict[str, str], record: dict[str, str]) -> list[str]:
    """Write every file of ``wanted`` whose content changed (a file left as it is keeps its
    mtime, so DVC hashes nothing again), remove recorded fingerprints the installed code no
    longer has, then the record; the files written or removed."""
    from rucola.io import atomic_path
    from rucola.ownership import remove

    def recorded(relative: str) -> Callable[[Path], bool]:
        """The record is the proof that rucola wrote the file (DVC's rewrite of
        ``params.yaml`` leaves no ledger entry of rucola's; :func:`hand_edited` has
        compared every recorded file already)."""
        return lambda path: (
            relative in record and not hand_edited(root, {relative: record[relative]}, wanted)
        )

    changed = []
    for relative, text in sorted(wanted.items()):
        path = root / relative
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path, claim=recorded(relative)) as tmp:
            tmp.write_text(text, encoding="utf-8")
        changed.append(relative)
    for relative in sorted(set(record) - set(wanted)):
        path = root / relative
        if path.is_file():
            remove(path, claim=recorded(relative))
            changed.append(relative)
    hashes = {path: _content_hash(path, text) for path, text in sorted(wanted.items())}
    text = json.dumps({"files": hashes, "rucola": version()}, indent=2, sort_keys=True) + "\n"
    with atomic_path(root / GENERATED, claim=lambda path: bool(record)) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return changed


# --- rucola init ------------------------------------------------------------------------


def _run(command: list[str], cwd: Path, what: str) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr or done.stdout).strip().splitlines()
        raise RucolaError(f"{what} failed: {last[-1] if last else done.returncode}", cwd)


def _in_git(root: Path) -> bool:
    done = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True
    )
    return done.returncode == 0


def _remote_templates() -> str:
    return (TEMPLATE_DIR / "remotes.conf").read_text(encoding="utf-8")


def _gitignore_block() -> str:
    return (TEMPLATE_DIR / "gitignore").read_text(encoding="utf-8")


def sample_files() -> dict[str, bytes]:
    """``data/sample/...`` -> bytes: the sample preset's inputs, written with its overlay so
    that ``rucola init demo --preset sample && cd demo && dvc repro`` builds."""
    from rucola.import_graph import package_folder

    # site-packages/rucola/sample for a wheel, data/sample/ for an editable install
    folder = package_folder("rucola.sample", PACKAGE.parent)
    return {
        f"{SAMPLE}/{path.relative_to(folder).as_posix()}": path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def own_files(name: str) -> dict[str, str]:
    """The files ``rucola init`` writes once and then leaves to the maintainer."""
    return {
        README: readme_text(name),
        RAW_README: (TEMPLATE_DIR / "raw_README.md").read_text(encoding="utf-8"),
        # keeps reports/generate/ in git, which merge_candidates depends on
        "reports/generate/README.md": (TEMPLATE_DIR / "generate_README.md").read_text(
            encoding="utf-8"
        ),
    }


def init(
    root: Path,
    overlay: str,
    name: str,
    app: Any,
    code_root: Path,
    data: dict[str, bytes] | None = None,
) -> list[str]:
    """Make ``root`` a corpus repository: git and DVC (each only where missing), the
    overlay, the generated files, the corpus's README, ``data/raw/`` and the commented
    remotes (and ``data``, the inputs a preset ships: the sample's); refuses, before writing
    anything, when a file it would write is there already
    and was not written by it. The files written."""
    if root.exists() and not root.is_dir():
        raise RucolaError("is not a folder", root)
    if (root / GENERATED).is_file():
        raise RucolaError(
            "is a corpus repository already",
            root,
            hint="`rucola upgrade` there rewrites its generated files; corpus.yaml is yours",
        )
    record: dict[str, str] = {}
    wanted = {OVERLAY: overlay, **own_files(name)}
    data = data or {}
    foreign = [
        relative
        for relative in [*wanted, PIPELINE, PARAMS, TOOL.as_posix(), *data]
        if (root / relative).exists()
    ]
    if (root / "reports" / "code").is_dir():
        foreign.append("reports/code/")
    if foreign:
        raise RucolaError(
            f"already holds {', '.join(foreign)}, which rucola init did not write",
            root,
            hint="init an empty folder, or move those files away first",
        )
    root.mkdir(parents=True, exist_ok=True)
    if not _in_git(root):
        _run(["git", "init", "-q"], root, "git init")
    if not (root / ".dvc").is_dir():
        _run([sys.executable, "-m", "dvc", "init", "-q"], root, "dvc init")
    config = root / ".dvc" / "config"
    remotes = _remote_templates()
    if remotes.splitlines()[0] not in config.read_text(encoding="utf-8"):
        with config.open("a", encoding="utf-8") as handle:
            handle.write(remotes)
    gitignore = root / GITIGNORE
    present = gitignore.read_text(encoding="utf-8") if gitignore.is_file() else ""
    if GITIGNORE_MARK not in present:
        block = _gitignore_block()
        separator = "\n" if present and not present.endswith("\n") else ""
        gitignore.write_text(present + separator + block, encoding="utf-8")
    for relative, text in wanted.items():
        path = root / relative
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for relative, content in data.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(content)
    generated = generated_files(root, app, code_root)
    return [*wanted, *data, *write_generated(root, generated, record)]


# --- rucola upgrade ---------------------------------------------------------------------


def upgrade(root: Path, app: Any, code_root: Path) -> list[str]:
    """Rewrite the generated files for the installed version, keeping ``corpus.yaml``;
    refuses, writing nothing, when a generated file was edited by hand. The files
    written."""
    record = read_record(root)
    if not record:
        raise RucolaError(
            f"no {GENERATED.as_posix()}: not a corpus repository made by `rucola init`", root
        )
    wanted = generated_files(root, app, code_root)
    edited = hand_edited(root, record, wanted)
    if edited:
        raise RucolaError(
            f"edited by hand since rucola wrote them: {', '.join(edited)}",
            root,
            hint=f"put the change into {OVERLAY} (or `git checkout` the files), then upgrade",
        )
    return write_generated(root, wanted, record)


FINGERPRINT_STAGE = "fingerprint_code"


def stages_to_rerun(root: Path) -> list[str]:
    """The stages ``dvc repro`` will run now (their dependencies, params or outputs changed:
    DVC's own status), and the stages downstream of them, in the pipeline's order; every
    stage where the repository has never been built. Not downstream of the fingerprint
    stage: it writes again the fingerprints the upgrade wrote, and a stage whose own
    fingerprint is unchanged does not run."""
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        changed = set(repo.status())
        graph = repo.index.graph  # an edge runs from a stage to one it depends on
        order = [stage for stage in repo.index.stages if stage in graph]
        chosen = [stage for stage in order if stage.addressing in changed]
        queue = [stage for stage in chosen if stage.addressing != FINGERPRINT_STAGE]
        while queue:
            for dependent in graph.predecessors(queue.pop()):
                if dependent not in chosen:
                    chosen.append(dependent)
                    queue.append(dependent)
    return [stage.addressing for stage in order if stage in chosen]
