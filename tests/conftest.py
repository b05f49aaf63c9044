"""Shared fixtures: the real public data (through RUCOLA_SHARED_DATA) and CLI helpers."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from long_modules import LONG_MODULES
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SHARED = "../shared/data"


def default_shared_data() -> str | None:
    """``../shared/data`` (relative to the repository) when it holds the RuCoLA files."""
    path = (ROOT / DEFAULT_SHARED).resolve()
    return DEFAULT_SHARED if (path / "rucola" / "in_domain_train.csv").is_file() else None


os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of real public data: ``$RUCOLA_SHARED_DATA``, else ``../shared/data``
    beside the repository when it is there (where the README says it lies, so a plain
    ``make test`` runs the real-data tests too); skip without either, fail if broken."""
    value = os.environ.get("RUCOLA_SHARED_DATA") or default_shared_data()
    if not value:
        pytest.skip(f"RUCOLA_SHARED_DATA is not set and {DEFAULT_SHARED} is not there")
    path = Path(value)
    if not path.is_absolute():
        path = (ROOT / path).resolve()
    needed = ["rucola/in_domain_train.csv", "rucola/in_domain_dev.csv", "rnc/freqrnc2011.tsv"]
    missing = [n for n in needed if not (path / n).is_file()]
    if missing:
        pytest.fail(f"RUCOLA_SHARED_DATA={value} lacks {', '.join(missing)}")
    return path


def build_sample(root: Path) -> str:
    """The sample pipeline built in ``root`` (created) as a user has it after ``make repro``
    (a real git and DVC repository: ``dvc repro``, then everything committed); returns
    what the cold ``dvc repro`` printed."""
    from dvc_project import copy_project, git, sh

    copy_project(root)
    (root / "docs").mkdir(exist_ok=True)  # what `python -m rucola.dev check` reads too
    (root / "docs/params.md").write_bytes((ROOT / "docs/params.md").read_bytes())
    git("init", "-q", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "the project", cwd=root)
    cold = sh("dvc", "repro", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "the sample reproduced", cwd=root)
    assert git("status", "--porcelain", cwd=root) == ""
    return cold


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory, worker_id: str) -> Path:
    """The sample built once per test session (:func:`build_sample`) and shared by every
    xdist worker: the first worker to ask builds it under a file lock in the session's
    shared temporary folder, the others wait for it, as pytest-xdist documents; what the
    cold build printed is in ``cold_repro.log`` beside it. Read it, never change it (every
    worker reads it at once): a test that changes it takes :func:`built_sample_copy`, a
    module its own :func:`dvc_project.copy_of_built`."""
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the folder above every worker's own
    root, log = shared / "built_sample" / "sample", shared / "built_sample" / "cold_repro.log"
    with FileLock(str(shared / "built_sample.lock")):
        if not log.is_file():
            if root.parent.exists():  # a worker's build that failed: start again
                shutil.rmtree(root.parent)
            cold = build_sample(root)
            log.write_text(cold, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def cold_repro(built_sample: Path) -> str:
    """What the cold ``dvc repro`` of :func:`built_sample` printed."""
    return (built_sample.parent / "cold_repro.log").read_text(encoding="utf-8")


@pytest.fixture
def built_sample_copy(built_sample: Path, tmp_path: Path) -> Path:
    """A copy of :func:`built_sample` of the test's own (about 25 MB: the repository, its
    DVC cache and outputs), to change freely."""
    from dvc_project import copy_of_built

    return copy_of_built(built_sample, tmp_path / "sample")


@pytest.fixture
def run_cli():
    """Invoke ``rucola`` in-process; returns (exit code, stdout, stderr)."""
    from rucola.cli import app

    def invoke(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
        runner = CliRunner()
        old = Path.cwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            result = runner.invoke(app, list(args), catch_exceptions=False)
        finally:
            os.chdir(old)
        return result.exit_code, result.stdout, result.stderr

    return invoke


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long modules first, longest first (``long_modules.py``); every other test keeps
    its place."""
    rank = {name: i for i, name in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


# CI shows only the last lines of a run, after pytest's summary: each failure (a test's, or
# the session's: tests that wrote into the repository) is named there once more, on one
# line, so a failed run says what failed and why.
_FAILED: list[str] = []


def _repository_state() -> dict[str, float]:
    """Every file under the repository's data/ and reports/ with its modification time."""
    state = {}
    for folder in ("data", "reports"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file():
                state[path.relative_to(ROOT).as_posix()] = path.stat().st_mtime
    return state


def _is_worker(config: pytest.Config) -> bool:
    """A pytest-xdist worker (``make test`` runs the suite on every core): the checks and
    the last line below are the controller's, which sees every test's report."""
    return hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if not _is_worker(session.config):
        session.config._rucola_state = _repository_state()  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A test writes inside its tmp_path only: a default output path left in a test's params
    (a key added to the schema later) would otherwise write into the repository's data."""
    before = getattr(session.config, "_rucola_state", None)
    if before is None:
        return
    after = _repository_state()
    touched = sorted(k for k, v in after.items() if before.get(k) != v)
    touched += sorted(k for k in before if k not in after)
    if touched:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"tests wrote into the repository: {', '.join(touched[:10])}"
        if reporter is not None:
            reporter.write_line(message)
        _FAILED.append(f"the session: {message}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:  # in the controller too: xdist hands it every worker's reports
        crash = getattr(report.longrepr, "reprcrash", None)
        why = crash.message.splitlines()[0][:200] if crash and crash.message else ""
        _FAILED.append(f"{report.nodeid} ({report.when}): {why}")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _FAILED and not _is_worker(config):
        sys.__stderr__.write(f"failed {len(_FAILED)}: {' | '.join(_FAILED)}\n")
