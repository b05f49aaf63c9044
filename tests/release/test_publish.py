"""Publishing against a local stand-in for the Hub (``fake_hub_recorder``), dry runs with
networking disabled, and the refusals."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_hub_recorder import HubStandIn  # noqa: E402
from identity import identity_yaml  # noqa: E402

from rucola.io import OWNER_FILE, file_sha256  # noqa: E402
from rucola.release.manifest import write_manifest  # noqa: E402

GOLD_SENTENCE = "Тестовое предложение с тайной меткой."


def params_yaml(changelog: str) -> str:
    """A RuCoLA project's params: its identity and release folders (data/release/rucola,
    as rucola/presets/rucola.yaml gives them), and ``changelog``."""
    return identity_yaml(f"release:\n  changelog: {changelog}\n")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with a validated split and a built release folder."""
    root = tmp_path / "project"
    release = root / "data/release/rucola"
    (release / "default").mkdir(parents=True)
    (root / "data/release/private").mkdir(parents=True)
    (root / "data/interim").mkdir(parents=True)
    (root / "reports").mkdir()
    for split in ("train", "validation"):
        pd.DataFrame(
            {
                "id": [0, 1],
                "sentence": [f"{split} один.", f"{split} два."],
                "label": [1, 0],
                "error_type": [None, "Syntax"],
                "domain": "in_domain",
                "detailed_source": "S",
            }
        ).to_parquet(release / "default" / f"{split}.parquet")
    pd.DataFrame(
        {
            "id": [0],
            "sentence": [GOLD_SENTENCE],
            "label": [-1],
            "error_type": pd.Series([None], dtype=object),
            "domain": pd.Series([None], dtype=object),
            "detailed_source": pd.Series([None], dtype=object),
        }
    ).to_parquet(release / "default" / "test.parquet")
    pd.DataFrame({"id": [0], "label": [0], "error_type": ["Semantics"]}).to_parquet(
        root / "data/release/private/test_gold.parquet"
    )
    for folder in (release, root / "data/release/private"):  # what atomic_dir leaves beside
        (folder / OWNER_FILE).write_text('{"files": [], "written_by": "rucola"}\n')
    split = root / "data/interim/split.parquet"
    pd.DataFrame({"sentence": ["a"], "split": ["train"]}).to_parquet(split)
    (release / "README.md").write_text("---\nlicense: apache-2.0\n---\n# card\n")
    # what the build writes last: the private record of the data, the publish manifest
    (root / "data/release/private/source.json").write_text(
        json.dumps({"data_sha256": file_sha256(split)})
    )
    write_manifest(release, None)
    (root / "reports/private").mkdir(parents=True, exist_ok=True)
    (root / "reports/private/validation.json").write_text(
        json.dumps({"success": True, "data_sha256": file_sha256(split)})
    )
    (root / ".gitignore").write_text("data/\nreports/\n")
    (root / "params.yaml").write_text(params_yaml("CHANGELOG.md"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def tree_state(root: Path) -> tuple[str, str, bytes | None]:
    """What a failed publish must leave untouched: files (untracked included), tags and the
    changelog's bytes."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    tags = subprocess.run(
        ["git", "tag", "--list"], cwd=root, check=True, capture_output=True, text=True
    ).stdout
    changelog = root / "CHANGELOG.md"
    return status, tags, changelog.read_bytes() if changelog.is_file() else None


def planned_uploads(stdout: str) -> dict[str, dict[str, tuple[int, str]]]:
    """A dry-run plan per repository: repo -> path -> (size, sha256)."""
    uploads: dict[str, dict[str, tuple[int, str]]] = {}
    for line in stdout.splitlines():
        if line.startswith(("publish ", "private ")):
            files = uploads.setdefault(line.split()[1], {})
        elif line.startswith("  "):
            path, size, _, digest = line.split()
            files[path] = (int(size), digest.removeprefix("sha256:"))
    return uploads


def committed(hub: HubStandIn) -> dict[str, dict[str, tuple[int, str]]]:
    """What the stand-in received, in the same shape as ``planned_uploads``."""
    return {
        commit["repo"]: {
            path: (len(content), hashlib.sha256(content).hexdigest())
            for path, content in commit["files"].items()
        }
        for commit in hub.commits
    }


def uploaded(hub: HubStandIn) -> list[str]:
    """Requests that sent files or tags (the repository checks and creations excluded)."""
    return [
        r["path"]
        for r in hub.requests
        if any(k in r["path"] for k in ("/preupload/", "/commit/", "/tag/"))
    ]


PUBLISH = ("release", "publish", "--version", "1.0.0")


@pytest.fixture
def online(monkeypatch):
    """The suite runs offline for load_dataset; publishing needs the (stand-in) network."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)


def test_publish_one_commit_one_tag_no_hidden_label(run_cli, project, monkeypatch, online):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, stdout, stderr = run_cli(
            "release",
            "publish",
            "--repo-id",
            "org/rucola",
            "--version",
            "1.0.0",
            "--private-repo-id",
            "org/rucola-private",
            cwd=project,
        )
    assert code == 0, stderr
    public = [c for c in hub.commits if c["repo"] == "org/rucola"]
    private = [c for c in hub.commits if c["repo"] == "org/rucola-private"]
    assert len(public) == 1 and len(private) == 1
    assert [t["tag"] for t in hub.tags if t["repo"] == "org/rucola"] == ["v1.0.0"]
    assert hub.tags[-1]["revision"] == public[0]["oid"]
    files = public[0]["files"]
    assert {"README.md", "CHANGELOG.md", "default/test.parquet"} <= set(files)
    assert "test_gold.parquet" not in " ".join(files)
    assert set(private[0]["files"]) == {"test_gold.parquet", "source.json"}
    import io

    test = pd.read_parquet(io.BytesIO(files["default/test.parquet"]))
    assert test["label"].tolist() == [-1] and test["error_type"].isna().all()
    assert not any(b"Semantics" in content for content in files.values())
    assert all(r["authorization"] == "Bearer hf_test_token" for r in hub.requests)
    # the changelog is written after the Hub accepted the release, as it was uploaded
    assert "## v1.0.0" in (project / "CHANGELOG.md").read_text()
    assert files["CHANGELOG.md"] == (project / "CHANGELOG.md").read_bytes()
    assert tree_state(project)[0] == "?? CHANGELOG.md\n"


def dry_run_then_publish(run_cli, project: Path, monkeypatch, args: tuple) -> tuple:
    """The dry run's plan per repository (the dry run writes nothing), then the real run
    against a fake Hub; returns (plan, hub)."""
    code, stdout, stderr = run_cli(*args, "--dry-run", cwd=project)
    assert code == 0, stderr
    assert tree_state(project)[0] == ""
    plan = planned_uploads(stdout)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*args, cwd=project)
    assert code == 0, stderr
    return plan, hub


def test_dry_run_lists_exactly_what_is_sent(run_cli, project, monkeypatch, online):
    (project / "CHANGELOG.md").write_text("# Changelog\n\n## v0.9.0\n\nAn earlier one.\n")
    git(project, "add", "CHANGELOG.md")
    git(project, "commit", "-qm", "changelog")
    args = ("release", "publish", "--repo-id", "org/rucola", "--version", "1.0.0")
    plan, hub = dry_run_then_publish(run_cli, project, monkeypatch, args)
    assert list(plan) == ["org/rucola"] and "CHANGELOG.md" in plan["org/rucola"]
    assert plan == committed(hub)
    changelog = (project / "CHANGELOG.md").read_text()
    assert changelog.startswith("# Changelog\n\n## v1.0.0\n\nFirst release.\n")
    assert changelog.endswith("## v0.9.0\n\nAn earlier one.\n")


@pytest.mark.parametrize("had_changelog", [True, False])
@pytest.mark.parametrize(
    "fail_on",
    [
        "/api/datasets/org/rucola/preupload/",
        "/api/datasets/org/rucola/commit/",
        "/api/datasets/org/rucola/tag/",
        "/api/datasets/org/rucola-private/commit/",
    ],
)
def test_failed_publish_leaves_the_git_tree_as_it_was(
    run_cli, project, monkeypatch, online, fail_on, had_changelog
):
    if had_changelog:
        (project / "CHANGELOG.md").write_text("# Changelog\n\n## v0.9.0\n\nAn earlier one.\n")
        git(project, "add", "CHANGELOG.md")
        git(project, "commit", "-qm", "changelog")
    before = tree_state(project)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    args = ("release", "publish", "--repo-id", "org/rucola", "--version", "1.0.0")
    with HubStandIn(fail_with=409, fail_on=fail_on) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*args, "--private-repo-id", "org/rucola-private", cwd=project)
    assert code == 1
    assert "Hub refused" in stderr and "Traceback" not in stderr
    assert any(r.get("refused") for r in hub.requests)  # it failed where it was meant to
    assert tree_state(project) == before
    if fail_on.endswith("/rucola/tag/"):  # the commit went through with the new changelog
        public = [c for c in hub.commits if c["repo"] == "org/rucola"]
        assert b"## v1.0.0" in public[0]["files"]["CHANGELOG.md"]
    # nothing left behind blocks the next attempt
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*args, cwd=project)
    assert code == 0, stderr
    assert "## v1.0.0" in (project / "CHANGELOG.md").read_text()


def test_dry_run_touches_no_network(run_cli, project, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network used in a dry run")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    code, stdout, stderr = run_cli(
        "release",
        "publish",
        "--repo-id",
        "org/rucola",
        "--version",
        "1.0.0",
        "--dry-run",
        cwd=project,
    )
    assert code == 0, stderr
    assert "default/test.parquet" in stdout and "tag v1.0.0" in stdout
    assert "sha256:" in stdout and "CHANGELOG.md" in stdout
    assert stdout.rstrip().endswith("dry run: nothing was sent")
    assert stderr == ""  # a gold with rows, a clean tree: no warning, nothing blocks
    assert not (project / "CHANGELOG.md").exists()


def test_auth_failure_is_one_line(run_cli, project, monkeypatch, online):
    monkeypatch.setenv("HF_TOKEN", "hf_bad")
    with HubStandIn(fail_with=401) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, stdout, stderr = run_cli(
            "release", "publish", "--repo-id", "org/rucola", "--version", "1.0.0", cwd=project
        )
    assert code == 1
    assert "Hub refused" in stderr and "Traceback" not in stderr
    assert hub.commits == []


def test_unreachable_hub_is_one_line(run_cli, project, monkeypatch, online):
    monkeypatch.setenv("HF_TOKEN", "hf_x")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    before = tree_state(project)
    code, _, stderr = run_cli(
        "release", "publish", "--repo-id", "org/rucola", "--version", "1.0.0", cwd=project
    )
    assert code == 1 and "error:" in stderr and "Traceback" not in stderr
    assert tree_state(project) == before


# what stops only the real run: the dry run still prints the whole plan first (a card
# edited after the build, "stale_release", differs from the manifest: no plan can be made)
BLOCKERS = ["dirty", "old_version", "failed_validation", "other_data"]


@pytest.mark.parametrize(
    "case",
    [
        "dirty",
        "old_version",
        "bad_version",
        "failed_validation",
        "other_data",
        "leaked_label",
        "stale_release",
    ],
)
def test_refusals(run_cli, project, case):
    version = "1.0.0"
    if case == "dirty":
        (project / "params.yaml").write_text(params_yaml("CHANGES.md"))
    elif case == "old_version":
        git(project, "tag", "v1.2.0")
    elif case == "bad_version":
        version = "1.0"
    elif case == "failed_validation":
        (project / "reports/private/validation.json").write_text('{"success": false}')
    elif case == "other_data":
        pd.DataFrame({"sentence": ["b"], "split": ["train"]}).to_parquet(
            project / "data/interim/split.parquet"
        )
    elif case == "stale_release":
        (project / "data/release/rucola/README.md").write_text("# an older build\n")
    elif case == "leaked_label":
        path = project / "data/release/rucola/default/test.parquet"
        pd.read_parquet(path).assign(label=[1]).to_parquet(path)
    code, stdout, stderr = run_cli(
        "release",
        "publish",
        "--repo-id",
        "org/rucola",
        "--version",
        version,
        "--dry-run",
        cwd=project,
    )
    assert code == 1, case
    assert "error:" in stderr
    assert ("publish org/rucola" in stdout) == (case in BLOCKERS), case
    assert ("the real run would stop" in stdout) == (case in BLOCKERS), case


def test_dry_run_lists_exactly_what_each_repository_receives(run_cli, project, monkeypatch, online):
    """Per repository, the same paths and full sha256: the private list too, with the
    ledger beside the gold, and nothing of it in the public list."""
    pd.DataFrame({"id": [0], "cause": ["typo"]}).to_parquet(
        project / "data/release/private/corrections.parquet"
    )
    args = (*PUBLISH, "--repo-id", "org/rucola", "--private-repo-id", "org/rucola-private")
    plan, hub = dry_run_then_publish(run_cli, project, monkeypatch, args)
    assert set(plan["org/rucola-private"]) == {
        "corrections.parquet",
        "test_gold.parquet",
        "source.json",
    }
    assert "CHANGELOG.md" in plan["org/rucola"]
    assert not [p for files in plan.values() for p in files if p.startswith(".")]  # bookkeeping
    assert plan == committed(hub)
    assert hub.created == []


@pytest.mark.parametrize("private", ["org/rucola", "ORG/Rucola", "Org/RuCoLA"])
def test_private_repo_equal_to_public_refused(run_cli, project, monkeypatch, online, private):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        for dry_run in ((), ("--dry-run",)):
            args = (*PUBLISH, "--repo-id", "org/rucola", "--private-repo-id", private)
            code, stdout, stderr = run_cli(*args, *dry_run, cwd=project)
            assert code == 1
            assert "--private-repo-id" in stderr and "public repository" in stderr
            assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
            assert "test_gold" not in stdout
    assert hub.requests == []
    assert not (project / "CHANGELOG.md").exists()


def test_private_repo_reported_public_refused_before_any_upload(
    run_cli, project, monkeypatch, online
):
    before = tree_state(project)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    args = (*PUBLISH, "--repo-id", "org/rucola", "--private-repo-id", "org/rucola-private")
    with HubStandIn(repos={"org/rucola": False, "org/rucola-private": False}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*args, cwd=project)
    assert code == 1
    assert "reports org/rucola-private as public" in stderr and "Traceback" not in stderr
    assert hub.commits == [] and hub.tags == [] and uploaded(hub) == []
    assert hub.created == []
    assert tree_state(project) == before


def test_missing_private_repo_created_private(run_cli, project, monkeypatch, online):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    args = (*PUBLISH, "--repo-id", "org/rucola", "--private-repo-id", "org/rucola-private")
    with HubStandIn(repos={"org/rucola": False}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*args, cwd=project)
    assert code == 0, stderr
    assert hub.created == [
        {"repo": "org/rucola-private", "type": "dataset", "visibility": "private"}
    ]
    assert hub.repos["org/rucola-private"] is True
    assert [c["repo"] for c in hub.commits] == ["org/rucola-private", "org/rucola"]
    assert set(hub.commits[0]["files"]) == {"test_gold.parquet", "source.json"}
    # created, then asked again before the first upload
    gets = [r["path"] for r in hub.requests if r["method"] == "GET"]
    assert gets[:2] == ["/api/datasets/org/rucola-private"] * 2


def test_private_repo_created_public_refused(run_cli, project, monkeypatch, online):
    """An organisation's settings may override ``private=True``: asked again, refused."""
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    args = (*PUBLISH, "--repo-id", "org/rucola", "--private-repo-id", "org/rucola-private")
    with HubStandIn(repos={"org/rucola": False}, creates_public=True) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*args, cwd=project)
    assert code == 1 and "reports org/rucola-private as public" in stderr
    assert hub.commits == [] and uploaded(hub) == []


def test_missing_public_repo_created_public(run_cli, project, monkeypatch, online):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn(repos={}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*PUBLISH, "--repo-id", "org/rucola", cwd=project)
    assert code == 0, stderr
    assert hub.created == [{"repo": "org/rucola", "type": "dataset", "visibility": "public"}]
    assert [c["repo"] for c in hub.commits] == ["org/rucola"]


def test_public_repo_reported_private_warns(run_cli, project, monkeypatch, online):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn(repos={"org/rucola": True}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*PUBLISH, "--repo-id", "org/rucola", cwd=project)
    assert code == 0, stderr
    assert "warning: org/rucola is private on the Hub" in stderr
    assert [c["repo"] for c in hub.commits] == ["org/rucola"]


@pytest.mark.parametrize("option", ["--repo-id", "--private-repo-id"])
@pytest.mark.parametrize(
    "bad",
    ["../../etc", "/etc", "/abs", ".x/y", ".hidden/x", "a/b/c", "x", "org/..", "a/..", "org/", ""],
)
def test_bad_repo_ids_refused_before_any_request(
    run_cli, project, monkeypatch, online, option, bad
):
    ids = {"--repo-id": "org/rucola", "--private-repo-id": "org/rucola-private", option: bad}
    args = [a for name, value in ids.items() for a in (name, value)]
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*PUBLISH, *args, cwd=project)
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr
    assert lines[0].startswith(f"error: {option}: '{bad}' is not a Hub repository id")
    assert hub.requests == []
    assert not (project / "CHANGELOG.md").exists()


def test_bad_repo_id_checked_before_the_project(run_cli, tmp_path):
    """Checked first: no params, data or git needed to be told the id is wrong."""
    code, _, stderr = run_cli(*PUBLISH, "--repo-id", "../../etc", "--dry-run", cwd=tmp_path)
    assert code == 1 and "--repo-id: '../../etc'" in stderr


def test_plan_refuses_one_repository_twice():
    from rucola.errors import RucolaError
    from rucola.release.publish import Plan

    with pytest.raises(RucolaError, match="public repository"):
        Plan("org/rucola", "1.0.0", "main", [], "ORG/RUCOLA")
    with pytest.raises(RucolaError, match="--repo-id"):
        Plan("a/b/c", "1.0.0", "main", [])


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def test_dry_run_on_a_dirty_tree_prints_the_plan_then_every_blocker(
    run_cli, project, monkeypatch, online
):
    """Issue 24, item 4: the dry run of an uncommitted build shows the whole plan, then
    what stops the real run (each on its own line), and exits 1; the real run says the
    same and sends nothing."""
    changed = [f"notes{i}.txt" for i in range(7)]
    for name in changed:
        (project / name).write_text("a\n")
    git(project, "add", *changed)
    git(project, "commit", "-qm", "notes")
    for name in changed:
        (project / name).write_text("b\n")
    git(project, "tag", "v1.2.0")
    (project / "reports/private/validation.json").write_text('{"success": false}')
    args = (*PUBLISH, "--repo-id", "org/rucola")
    code, stdout, stderr = run_cli(*args, "--dry-run", cwd=project)
    assert code == 1
    assert planned_uploads(stdout)["org/rucola"].keys() >= {"README.md", "default/test.parquet"}
    assert "dry run: nothing was sent; the real run would stop: 3 problem(s)" in stdout
    errors = error_lines(stderr)
    assert len(errors) == 3 and "Traceback" not in stderr
    dirty = next(e for e in errors if "git tree is not clean" in e)
    assert "7 changed file(s): notes0.txt, notes1.txt, notes2.txt, notes3.txt" in dirty
    assert "and 2 more" in dirty and "commit them first" in dirty
    assert any("version 1.0.0 is not new: v1.2.0 is already tagged" in e for e in errors)
    assert any("validation failed" in e for e in errors)

    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, stdout, real = run_cli(*args, cwd=project)
    assert code == 1 and error_lines(real) == errors
    assert hub.requests == [] and "published" not in stdout
    assert not (project / "CHANGELOG.md").exists()


def test_a_plan_with_a_blocker_is_never_sent(project, monkeypatch, online):
    """``publish`` itself refuses a plan with a blocker, before any request."""
    from rucola.errors import RucolaError
    from rucola.params import load_settings
    from rucola.release.hub import publish
    from rucola.release.publish import plan_release

    (project / "params.yaml").write_text(params_yaml("CHANGES.md"))
    monkeypatch.chdir(project)
    plan = plan_release(load_settings(None), "org/rucola", "1.0.0", None, None)
    assert [b.message.split(":")[0] for b in plan.blockers] == ["the git tree is not clean"]
    with HubStandIn() as hub, pytest.raises(RucolaError, match="git tree is not clean"):
        publish(plan, token="hf_test_token", endpoint=hub.url)
    assert hub.requests == []


def write_empty_gold(project: Path) -> None:
    gold = project / "data/release/private/test_gold.parquet"
    pd.read_parquet(gold).iloc[0:0].to_parquet(gold)


def test_an_empty_gold_is_a_warning_naming_it(run_cli, project, monkeypatch, online):
    """Issue 24, item 4: published files rebuilt without their gold (RuCoLA v1 without
    test_gold.csv) give an empty test gold; the plan and the real run say so, and go on."""
    write_empty_gold(project)
    args = (*PUBLISH, "--repo-id", "org/rucola", "--private-repo-id", "org/rucola-private")
    code, stdout, stderr = run_cli(*args, "--dry-run", cwd=project)
    assert code == 0, stderr
    warning = (
        "warning: data/release/private/test_gold.parquet: the test gold has no rows, so the "
        "1 rows of default/test.parquet cannot be scored"
    )
    assert warning in stderr and "uploaded empty to org/rucola-private" in stderr
    assert "test_gold.parquet" in planned_uploads(stdout)["org/rucola-private"]
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*args, cwd=project)
    assert code == 0, stderr
    assert warning in stderr


def test_the_plan_shows_the_csv_layout_it_uploads(run_cli, project, monkeypatch, online):
    """Issue 24, item 4: the CSV layout is public; the plan lists its files under
    rucola_csv/, and the real run uploads exactly them."""
    compat = project / "data/release/rucola_csv"
    compat.mkdir()
    (compat / "test.csv").write_text(f"id,sentence\n0,{GOLD_SENTENCE}\n", encoding="utf-8")
    (compat / "sample_submission.csv").write_text("id,acceptable\n0,1\n")
    write_manifest(project / "data/release/rucola", compat)  # as the build writes it
    args = (*PUBLISH, "--repo-id", "org/rucola")
    plan, hub = dry_run_then_publish(run_cli, project, monkeypatch, args)
    assert {"rucola_csv/test.csv", "rucola_csv/sample_submission.csv"} <= set(plan["org/rucola"])
    assert plan == committed(hub)
    code, stdout, _ = run_cli(*args, "--dry-run", cwd=project)
    assert "2 of them the CSV layout under rucola_csv/" in stdout.splitlines()[0]


@pytest.mark.parametrize("version", ["1.0.0\n", "1.0.0\n\n", "1\u0661.0.0", "1.0.0 "])
@pytest.mark.parametrize("dry", [True, False])
def test_a_version_with_a_trailing_newline_or_other_digits_is_refused(
    run_cli, project, monkeypatch, version, dry
):
    """``$`` matched before a final newline, so ``1.0.0\\n`` passed the check and would have
    been tagged ``v1.0.0\\n``; ``\\d`` took other digits (``1\\u0661.0.0``, 11.0.0 to
    ``int``). The whole value must be ``X.Y.Z`` in ASCII digits: one line naming it (the
    newline shown escaped), nothing sent."""

    def refuse(*args, **kwargs):
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    before = tree_state(project)
    args = ["release", "publish", "--repo-id", "org/rucola", "--version", version]
    code, stdout, stderr = run_cli(*args, *(["--dry-run"] if dry else []), cwd=project)
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert lines[0] == (
        f"error: --version: {version!r} is not semantic (X.Y.Z, numbers without leading zeros)"
    )
    assert "publish org/rucola" not in stdout  # no plan either
    assert tree_state(project) == before


def test_a_partial_gold_warns_as_an_empty_one_does(tmp_path):
    """Issue 43: a gold labelling 1 of 3 test rows cannot score the others; said, not
    refused; a whole gold says nothing."""
    from rucola.release.publish import PlannedFile, gold_warnings

    test = tmp_path / "test.parquet"
    pd.DataFrame({"id": [0, 1, 2], "label": [-1, -1, -1]}).to_parquet(test)
    planned = [PlannedFile(test, "default/test.parquet", 0, "")]
    (tmp_path / "private").mkdir()
    gold = tmp_path / "private/test_gold.parquet"
    pd.DataFrame({"id": [1], "label": [0]}).to_parquet(gold)
    warnings = gold_warnings(tmp_path / "private", planned, "org/private")
    assert warnings == [
        f"{gold}: the test gold holds 1 of the 3 rows of default/test.parquet, so 2 cannot be "
        "scored (built without their labels); it is uploaded to org/private"
    ]
    pd.DataFrame({"id": [0, 1, 2], "label": [0, 1, 0]}).to_parquet(gold)
    assert gold_warnings(tmp_path / "private", planned, "org/private") == []
