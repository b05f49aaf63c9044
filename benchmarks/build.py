"""`make bench`: the sample's cold build and its no-op build, with the bookkeeping share.

Of the pipeline's stages, the bookkeeping ones (``fingerprint_code``, ``track_index`` and
the ``track_*`` trackers: see docs/pipeline.md) compute no data; they exist so DVC reruns
exactly what a change touches. This prints, for a cold ``dvc repro`` of the embedded
sample in a fresh repository (no output of the pipeline there yet), the seconds of every
stage (from its ``Running stage`` line to the next one: the command, its Python start-up
and DVC's own work on its outputs), the bookkeeping stages' total and share, then the best
of three ``dvc repro`` runs with nothing to do.

``--published``: the published RuCoLA v1 instead (``$RUCOLA_SHARED_DATA`` or
``../shared/data``), in a corpus repository as a maintainer lays it out (``rucola init
--preset rucola-v1``, the published files ``dvc add``-ed into ``data/raw/rucola_v1``): the
build whose data stages dominate, where the sample's is mostly start-up.

``--before REV`` builds the same way with the code of an earlier commit (its package laid
out as an install would lay it out, first on ``PYTHONPATH``; the dependencies are this
venv's), so one run shows the figures before and after a change; ``make bench`` passes
the commit before issue 44 made the bookkeeping cheap. ``--tiny``: a three-stage
repository of the same shape, so the test suite checks that this script runs; no figure
of it means anything.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "tests"))
from dvc_project import copy_project  # noqa: E402  (the copy the DVC tests make)

from rucola.corpus.sources.rucola_csv import PUBLISHED_FILES  # noqa: E402

BOOKKEEPING = re.compile(r"(fingerprint_code|track_index|track_[a-z0-9_]+(@.*)?)")


def environment(code: Path | None) -> dict[str, str]:
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def timed_repro(project: Path, env: dict[str, str]) -> tuple[float, dict[str, float]]:
    """One ``dvc repro`` in ``project``: its seconds, and each stage's it ran. A failed
    build stops the benchmark with DVC's output (a figure of a failed run means nothing)."""
    start = time.perf_counter()
    marks: list[tuple[str, float]] = []
    output: list[str] = []
    with subprocess.Popen(
        ["dvc", "repro"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if line.startswith("Running stage '"):
                marks.append((line.split("'")[1], time.perf_counter()))
    end = time.perf_counter()
    if process.returncode != 0:
        raise SystemExit(f"dvc repro failed in {project}:\n{''.join(output[-40:])}")
    ends = [t for _, t in marks[1:]] + [end] * bool(marks)
    return end - start, {name: stop - t for (name, t), stop in zip(marks, ends, strict=True)}


def installed_layout(source: Path, target: Path) -> Path:
    """``source``'s package as an install lays it out (``[tool.setuptools] package-dir``:
    ``corpus/`` becomes ``rucola/corpus/``), in ``target``; returns ``target``."""
    config = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    for name, folder in sorted(mapping.items(), key=lambda item: item[0].count(".")):
        destination = target.joinpath(*name.split("."))
        shutil.copytree(
            source / folder,
            destination,
            ignore=shutil.ignore_patterns("__pycache__"),
            dirs_exist_ok=True,
        )
    return target


def checkout(revision: str, target: Path) -> Path:
    """The files of commit ``revision`` of this repository, in ``target``."""
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"--before {revision}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def report(label: str, cold: float, stages: dict[str, float], noop: float) -> None:
    keeping = {name: s for name, s in stages.items() if BOOKKEEPING.fullmatch(name)}
    share = sum(keeping.values()) / cold if cold else 0.0
    print(
        f"{label}: cold build {cold:.1f} s, {len(stages)} stages; bookkeeping "
        f"{len(keeping)} stages {sum(keeping.values()):.1f} s = {share:.1%} of the cold "
        f"build (goal < 10%); no-op build {noop:.2f} s (best of 3; goal < 3 s)"
    )
    slowest = sorted(stages.items(), key=lambda item: -item[1])
    print(f"  {label}, slowest stages: " + ", ".join(f"{n} {s:.1f} s" for n, s in slowest[:8]))
    if keeping:
        each = sorted(keeping.values())
        print(
            f"  {label}, a bookkeeping stage: median {each[len(each) // 2]:.2f} s, "
            f"max {each[-1]:.2f} s"
        )


def start_up(project: Path, env: dict[str, str], command: list[str], runs: int = 5) -> float:
    """The median seconds of a bookkeeping ``command`` in the built ``project``: its work
    is one input or a few small files, so its time is its start-up."""
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=project, env=env, check=True, capture_output=True)
        seconds.append(time.perf_counter() - start)
    return sorted(seconds)[runs // 2]


def tracker_command(project: Path) -> list[str]:
    """What a tracker stage runs for the first input ``extract.sources`` names."""
    import yaml

    params = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))
    first = params["extract"]["sources"][0]
    return ["rucola", "track", "extract.sources", first["path"]]


def cold_and_noop(label: str, project: Path, env: dict[str, str]) -> None:
    """A cold ``dvc repro`` of ``project`` (a git repository), then three with nothing to
    do; prints :func:`report`'s lines."""
    cold, stages = timed_repro(project, env)
    noop = min(timed_repro(project, env)[0] for _ in range(3))
    report(label, cold, stages, noop)


# What the pipeline writes that the project copy carries (git tracks these): a cold build
# starts without them, as in a corpus repository ``rucola init`` just made. With them there
# and no dvc.lock to vouch for them, every tracker took each file for one it may not
# replace until DVC's own reading of the stage said otherwise: 0.5 s a tracker more.
OUTPUTS = ("reports/code", "reports/inputs")


def build(label: str, project: Path, code: Path | None) -> None:
    env = environment(code)
    for name in OUTPUTS:
        shutil.rmtree(project / name, ignore_errors=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    cold_and_noop(label, project, env)
    track = start_up(project, env, tracker_command(project))
    index = start_up(project, env, ["rucola", "track-index"])
    print(
        f"  {label}, start-up (median of 5): `rucola track`, once per input, {track:.2f} s "
        f"(goal < 0.2 s); `rucola track-index` {index:.2f} s (goal < 0.6 s)"
    )


def shared_data() -> Path:
    """The folder of the published RuCoLA files, or one line saying where it was sought."""
    value = os.environ.get("RUCOLA_SHARED_DATA")
    folder = Path(value) if value else ROOT.parent / "shared/data"
    if not all((folder / "rucola" / name).is_file() for name in PUBLISHED_FILES):
        raise SystemExit(
            f"--published: {folder}/rucola lacks the published RuCoLA files "
            "(set RUCOLA_SHARED_DATA to the folder that holds rucola/)"
        )
    return folder


def published(label: str, target: Path, code: Path | None, shared: Path) -> None:
    """A cold and a no-op build of the published RuCoLA v1 in a corpus repository of its
    own, with ``code`` (None: this checkout's installed package)."""
    env = environment(code)
    target.parent.mkdir(parents=True, exist_ok=True)
    init = ["rucola", "init", str(target), "--preset", "rucola-v1"]
    subprocess.run(init, cwd=target.parent, env=env, check=True, capture_output=True)
    raw = target / "data/raw/rucola_v1"
    raw.mkdir(parents=True)
    for name in PUBLISHED_FILES:
        shutil.copy2(shared / "rucola" / name, raw / name)
    add = ["dvc", "add", "-q", "data/raw/rucola_v1"]
    subprocess.run(add, cwd=target, env=env, check=True, capture_output=True)
    cold_and_noop(label, target, env)


def tiny_project(target: Path) -> Path:
    """Three stages of the sample's shape: a code fingerprint, a tracker, a stage."""
    import shlex

    import yaml

    target.mkdir(parents=True)
    write = f"{shlex.quote(sys.executable)} -c \"open('{{0}}', 'w').write('{{0}}')\""
    outs = {"fingerprint_code": "code.txt", "track_input": "input.txt", "extract": "out.txt"}
    stages = {
        name: {"cmd": write.format(out), "outs": [{out: {"cache": False}}]}
        for name, out in outs.items()
    }
    (target / "dvc.yaml").write_text(yaml.safe_dump({"stages": stages}), encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=target, check=True)
    subprocess.run(["dvc", "init", "-q"], cwd=target, env=environment(None), check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", metavar="REV", help="also build with this commit's code")
    parser.add_argument("--tiny", action="store_true", help="a three-stage repository only")
    parser.add_argument(
        "--published", action="store_true", help="the published RuCoLA v1, not the sample"
    )
    args = parser.parse_args()
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if args.tiny:
            cold_and_noop("tiny", tiny_project(tmp_path / "tiny"), environment(None))
            return
        shared = shared_data() if args.published else None
        if args.before:
            label = f"before ({args.before})"
            source = checkout(args.before, tmp_path / "before_source")
            code = installed_layout(source, tmp_path / "before_code")
            if shared is not None:
                published(label, tmp_path / "before/c", code, shared)
            else:
                build(label, copy_project(tmp_path / "before", source), code)
        if shared is not None:
            published("now", tmp_path / "now/c", None, shared)
        else:
            build("now", copy_project(tmp_path / "now"), None)


if __name__ == "__main__":
    main()
