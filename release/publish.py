"""Publishing a version to the Hugging Face Hub: checks first, then one atomic commit.

A release manager's guarantees: only data that passed validation (by content hash) is
published, from a clean git tree, under a new semantic version; all files go in one
``create_commit``, then the tag; hidden test labels go only to the private repository,
which must be another repository than the public one and which the Hub must report as
private before anything is uploaded. Repository ids are checked against the Hub's rules
before any network call. The new changelog is uploaded from memory and written locally
only once the Hub commit and tag succeeded, so a failed publish leaves the git tree as it
was. A release with annotator votes is published only when its annotator ids were hashed
with the maintainer's secret key: the one in ``$RUCOLA_ANNOTATOR_KEY`` now (compared by
fingerprint), never the sample's published key.

What goes to the public repository is the build's publish manifest
(``release.manifest``), not the folder: exactly its files, each checked against its size
and SHA-256, the CSV layout under ``rucola_csv/``, plus the new ``CHANGELOG.md`` and the
manifest itself with the changelog added. Any other file in the public or CSV folder
stops the publish, named, before anything is sent.

Two kinds of refusal. What makes a plan impossible or unsafe to show (a bad version or
repository id, a file that differs from the manifest, a label in the public test split)
stops at once. What only the real run needs (a clean git tree, a new version, a passed
validation of exactly this data, a release built from it, votes hashed with the secret
key) is a *blocker*: the plan is still made, so ``--dry-run`` shows the whole plan and then
every blocker, and the real run refuses a plan with any blocker before any network call.

This module makes the plan; ``release.hub`` sends it (the only module that talks to the
Hub) and ``release.changelog`` renders and writes the changelog.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq

from rucola.corpus import schema
from rucola.errors import RucolaError
from rucola.io import file_sha256
from rucola.ownership import BOOKKEEPING as OWNERSHIP_FILES
from rucola.release.manifest import (
    COMPAT_PREFIX,
    MANIFEST_FILE,
    render,
    verified_files,
    with_file,
)
from rucola.release.public import DEFAULT, GOLD_FILES, SOURCE_FILE
from rucola.release.votes import RELEASED_VOTE_SCHEMA, VOTES_CONFIG, check_publishable

if TYPE_CHECKING:
    from rucola.settings import Params

# no leading zeros (semver.org, item 2): ``01.0.0`` would be tagged ``v01.0.0`` beside ``v1.0.0``.
# Matched whole (``fullmatch``): ``$`` also matches before a final newline, and ``1.0.0\n``
# would be tagged and kept as a folder ``v1.0.0\n``; ASCII digits only (``\d`` takes ``١``).
SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
REPO_ID_RULES = (
    "ORG/NAME: letters, digits, '-', '_', '.'; no '--' or '..', neither part starting or"
    " ending with '-' or '.', at most 96 characters each"
)


def check_repo_id(option: str, repo_id: str) -> None:
    """``namespace/name`` as the Hub accepts it. Checked before any network call: an id
    such as ``../../etc`` or ``a/b/c`` would otherwise end up in a request path, and a bare
    ``name`` would go to whichever namespace the token belongs to."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
        valid = repo_id.count("/") == 1 and not repo_id.startswith("/")
    except HFValidationError:
        valid = False
    if not valid:
        raise RucolaError(f"{option}: '{repo_id}' is not a Hub repository id ({REPO_ID_RULES})")


def check_repo_ids(repo_id: str, private_repo_id: str | None) -> None:
    """Both ids valid, and two repositories: the Hub compares ids case-insensitively, so
    ``--private-repo-id ORG/Name`` with ``--repo-id org/name`` would publish the hidden
    test labels."""
    check_repo_id("--repo-id", repo_id)
    if private_repo_id is None:
        return
    check_repo_id("--private-repo-id", private_repo_id)
    if private_repo_id.lower() == repo_id.lower():
        raise RucolaError(
            f"--private-repo-id: '{private_repo_id}' is the public repository"
            f" (--repo-id '{repo_id}'); the hidden test labels need a separate private one"
        )


@dataclass(frozen=True)
class PlannedFile:
    """A file to upload: from ``local``, or from ``content`` when it exists only in memory
    (the new changelog, written locally after the Hub accepted the release)."""

    local: Path | None
    path_in_repo: str
    size: int
    sha256: str
    content: bytes | None = None

    @classmethod
    def from_bytes(cls, content: bytes, path_in_repo: str) -> PlannedFile:
        return cls(None, path_in_repo, len(content), hashlib.sha256(content).hexdigest(), content)

    @property
    def source(self) -> str | bytes:
        if self.content is not None:
            return self.content
        assert self.local is not None
        return str(self.local)


@dataclass(frozen=True)
class Plan:
    """What one release uploads, per repository: the dry run prints it, the real run
    commits exactly it."""

    repo_id: str
    version: str
    revision: str
    files: list[PlannedFile]
    private_repo_id: str | None = None
    private_files: list[PlannedFile] = field(default_factory=list)
    # what the release manager should know (an empty gold), and what stops the real run
    warnings: tuple[str, ...] = ()
    blockers: tuple[RucolaError, ...] = ()

    def __post_init__(self) -> None:
        check_repo_ids(self.repo_id, self.private_repo_id)

    @property
    def tag(self) -> str:
        return f"v{self.version}"

    def uploads(self) -> dict[str, list[PlannedFile]]:
        """Repository -> its files, in commit order (private first, so that a failure there
        publishes nothing)."""
        repos = {self.private_repo_id: self.private_files} if self.private_repo_id else {}
        return {**repos, self.repo_id: self.files}

    def describe(self) -> str:
        """One header line per repository (``publish``/``private`` and its id, how many
        files, and how many of them are the CSV layout), then one line per file with its
        size and full sha256."""
        lines = []
        for repo_id, files in self.uploads().items():
            kind = "private" if repo_id == self.private_repo_id else "publish"
            must = ", must be private" if kind == "private" else ""
            csv = sum(f.path_in_repo.startswith(COMPAT_PREFIX) for f in files)
            layout = f", {csv} of them the CSV layout under {COMPAT_PREFIX}" if csv else ""
            lines.append(
                f"{kind} {repo_id} (dataset{must}) revision {self.revision}, tag {self.tag}:"
                f" {len(files)} files{layout}"
            )
            lines += [f"  {f.path_in_repo}  {f.size} B  sha256:{f.sha256}" for f in files]
        return "\n".join(lines)


def check_version(version: str) -> tuple[int, int, int]:
    """``version`` as (major, minor, patch); an error unless it is ``X.Y.Z`` (semver)."""
    match = SEMVER.fullmatch(version) if isinstance(version, str) else None
    if not match:
        raise RucolaError(
            f"--version: {version!r} is not semantic (X.Y.Z, numbers without leading zeros)"
        )
    major, minor, patch = (int(g) for g in match.groups())
    return major, minor, patch


def _git(root: Path, *args: str) -> str:
    try:
        result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    except FileNotFoundError:
        raise RucolaError("git is not installed") from None
    if result.returncode != 0:
        raise RucolaError(f"git {' '.join(args)} failed: {result.stderr.strip()}", root)
    return result.stdout


SHOWN_PATHS = 5  # changed files a dirty-tree blocker names


def git_blockers(root: Path, version: str) -> list[RucolaError]:
    """What in git stops the release: changed tracked files (a release is published from
    a commit, so that it can be rebuilt from it), and a version not greater than every
    ``vX.Y.Z`` tag."""
    found = []
    dirty = [
        line[3:]
        for line in _git(root, "status", "--porcelain", "--untracked-files=no").splitlines()
        if line.strip()
    ]
    if dirty:
        shown = ", ".join(dirty[:SHOWN_PATHS])
        more = f" and {len(dirty) - SHOWN_PATHS} more" if len(dirty) > SHOWN_PATHS else ""
        found.append(
            RucolaError(
                f"the git tree is not clean: {len(dirty)} changed file(s): {shown}{more}",
                hint="commit them first (docs/maintaining.md): a release "
                "is published from a commit, so that it can be rebuilt from it",
            )
        )
    wanted = check_version(version)
    tags = [t[1:] for t in _git(root, "tag", "--list", "v*").split() if SEMVER.fullmatch(t[1:])]
    if any(check_version(t) >= wanted for t in tags):
        latest = max(tags, key=check_version)
        found.append(
            RucolaError(
                f"version {version} is not new: v{latest} is already tagged",
                hint="choose a greater version",
            )
        )
    return found


def check_split(split_path: Path) -> None:
    """The split data exists: the changelog is a diff of it, so nothing can be planned
    without it."""
    if not split_path.is_file():
        raise RucolaError("split data not found; run 'dvc repro'", split_path)


def check_release_matches(release_dir: Path, private_dir: Path, split_path: Path) -> None:
    """The folders must have been built from the validated data: the private folder records
    its hash (not the public card: the hash is one of the hidden labels too)."""
    card, source = release_dir / "README.md", private_dir / SOURCE_FILE
    if not card.is_file():
        raise RucolaError("no dataset card; run 'rucola release build'", release_dir)
    hint = "run 'rucola release build' (or 'dvc repro') again"
    try:
        recorded = json.loads(source.read_text(encoding="utf-8")).get("data_sha256")
    except FileNotFoundError:
        raise RucolaError("the build's record of its data is missing", source, hint=hint) from None
    except (UnicodeDecodeError, ValueError, AttributeError):
        raise RucolaError("the build's record of its data is not JSON", source) from None
    if recorded != file_sha256(split_path):
        raise RucolaError(
            "the release folder was not built from the validated data", source, hint=hint
        )


def _planned(folder: Path, prefix: str = "") -> list[PlannedFile]:
    """Every file of a built folder but its ownership manifest, which is local bookkeeping
    (``rucola.io.atomic_dir``), not part of the dataset."""
    if not folder.is_dir():
        raise RucolaError("release folder not found; run 'rucola release build'", folder)
    return [
        PlannedFile(p, prefix + p.relative_to(folder).as_posix(), p.stat().st_size, file_sha256(p))
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).as_posix() not in OWNERSHIP_FILES
    ]


def manifest_files(
    public_dir: Path, compat_dir: str | Path | None, changelog: str | None
) -> list[PlannedFile]:
    """Exactly the manifest's files (checked, and nothing else in the folders), then the
    changelog from memory and the manifest as uploaded, listing the changelog too."""
    compat = Path(compat_dir) if compat_dir is not None else None
    verified = verified_files(public_dir, compat)
    files = [PlannedFile(p, e.path, e.size, e.sha256) for p, e in verified]
    entries = [e for _, e in verified]
    if changelog is not None:
        content = changelog.encode("utf-8")
        files = [f for f in files if f.path_in_repo != "CHANGELOG.md"]
        files.append(PlannedFile.from_bytes(content, "CHANGELOG.md"))
        entries = with_file(entries, "CHANGELOG.md", content)
    files.append(PlannedFile.from_bytes(render(entries), MANIFEST_FILE))
    return files


def check_hidden_labels(files: list[PlannedFile]) -> None:
    """Refuse a public test split that carries a label or a hidden column, votes on test
    rows, and a public votes file with any column but the released ones (a raw worker id)."""
    for planned in files:
        path = Path(planned.path_in_repo)
        if planned.local is None or planned.local.suffix != ".parquet":
            continue
        if path.parts[0] == VOTES_CONFIG:
            names = pq.read_schema(planned.local).names
            if path.name.startswith("test") or names != RELEASED_VOTE_SCHEMA.names:
                what = "votes on test rows" if path.name.startswith("test") else "other columns"
                raise RucolaError(f"the public votes carry {what}", planned.local)
            split = set(pq.read_table(planned.local, columns=["split"])["split"].to_pylist())
            if "test" in split:
                raise RucolaError("the public votes carry votes on test rows", planned.local)
            continue
        if not path.name.startswith("test"):
            continue
        table = pq.read_table(planned.local)
        if "label" in table.column_names and set(table.column("label").to_pylist()) - {-1}:
            raise RucolaError("the public test split carries labels", planned.local)
        for column in schema.HIDDEN_COLUMNS:
            if column in table.column_names and table.column(column).null_count != len(table):
                raise RucolaError(f"the public test split carries '{column}'", planned.local)


def _rows(path: Path) -> int:
    """Rows of a built parquet file, from its footer."""
    try:
        return pq.read_metadata(path).num_rows
    except (OSError, ValueError) as exc:  # ArrowInvalid is a ValueError
        raise RucolaError(f"not a readable parquet file ({exc})", path) from None


def gold_warnings(
    private_dir: Path, files: list[PlannedFile], private_repo_id: str | None
) -> list[str]:
    """A test gold empty, or holding fewer rows than the public test split, beside a
    public test split with rows: nobody, the maintainers included, can score that test
    split, or all of it (a rebuild of published files without their gold, RuCoLA v1
    without ``test_gold.csv``; a gold that labels some test rows only). Allowed, but
    never silent."""
    gold = private_dir / GOLD_FILES[DEFAULT]
    test = next((f for f in files if f.path_in_repo == f"{DEFAULT}/test.parquet"), None)
    tests = _rows(test.local) if test is not None and test.local is not None else 0
    held = _rows(gold) if gold.is_file() else 0
    if not tests or held >= tests:
        return []
    sent = f"; it is uploaded to {private_repo_id}" if gold.is_file() and private_repo_id else ""
    if held:
        return [
            f"{gold}: the test gold holds {held} of the {tests} rows of {DEFAULT}/test.parquet,"
            f" so {tests - held} cannot be scored (built without their labels){sent}"
        ]
    state = "has no rows" if gold.is_file() else "is missing"
    sent = sent.replace("uploaded", "uploaded empty")
    return [
        f"{gold}: the test gold {state}, so the {tests} rows"
        f" of {DEFAULT}/test.parquet cannot be scored (built without their labels, as from"
        f" published files without test_gold.csv){sent}"
    ]


def _blocker(check: Any, *args: Any) -> list[RucolaError]:
    """``check(*args)``'s refusal as a blocker (an empty list when it passes)."""
    try:
        check(*args)
    except RucolaError as exc:
        return [exc]
    return []


def plan_release(
    params: Params,
    repo_id: str,
    version: str,
    private_repo_id: str | None,
    changelog: str | None,
    root: Path | None = None,
) -> Plan:
    """The files of one release; ``changelog`` is the full new CHANGELOG.md text, uploaded
    from memory (the dry run lists exactly what the real run sends). Its blockers (see the
    module docstring) are those of the git repository at ``root`` (default: the current
    folder), the validation, the build and the votes' key."""
    from rucola.release.build import check_separate_folders, check_validated
    from rucola.release.committed import check_committed

    section = params.release
    check_version(version)
    check_separate_folders(
        {"out": section.out, "private": section.private, "compat": section.compat}
    )
    out, private_dir, split = Path(section.out), Path(section.private), Path(params.split.out)
    check_split(split)
    try:
        git = git_blockers(root or Path.cwd(), version)
        git += _blocker(check_committed, root or Path.cwd(), params, "release publish")
    except RucolaError as exc:  # not a git repository, no git
        git = [exc]
    blockers = [
        *_blocker(check_validated, split, Path(params.validate.private_report)),
        *_blocker(check_release_matches, out, private_dir, split),
        *git,
        # annotator ids hashed with the secret key in the environment, not the sample's
        *_blocker(check_publishable, out, private_dir),
    ]
    files = manifest_files(out, section.compat, changelog)
    check_hidden_labels(files)
    private = _planned(private_dir) if private_repo_id else []
    return Plan(
        repo_id,
        version,
        "main",
        files,
        private_repo_id,
        private,
        warnings=tuple(gold_warnings(private_dir, files, private_repo_id)),
        blockers=tuple(blockers),
    )
