"""Publishing against a local stand-in for the Hub (``fake_hub_recorder``), dry runs with
networking disabled, and the refusals."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_hub_recorder import HubStandIn  # noqa: E402

from rucola.io import file_sha256  # noqa: E402

GOLD_SENTENCE = "Тестовое предложение с тайной меткой."


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
    split = root / "data/interim/split.parquet"
    pd.DataFrame({"sentence": ["a"], "split": ["train"]}).to_parquet(split)
    (release / "README.md").write_text(
        f"---\nlicense: apache-2.0\n---\n# card\n(`data_sha256` {file_sha256(split)})\n"
    )
    (root / "reports/validation.json").write_text(
        json.dumps({"success": True, "data_sha256": file_sha256(split)})
    )
    (root / ".gitignore").write_text("data/\nreports/\n")
    (root / "params.yaml").write_text("release:\n  changelog: CHANGELOG.md\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


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
    assert set(private[0]["files"]) == {"test_gold.parquet"}
    import io

    test = pd.read_parquet(io.BytesIO(files["default/test.parquet"]))
    assert test["label"].tolist() == [-1] and test["error_type"].isna().all()
    assert not any(b"Semantics" in content for content in files.values())
    assert all(r["authorization"] == "Bearer hf_test_token" for r in hub.requests)
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
    assert "sha256:" in stdout


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
    code, _, stderr = run_cli(
        "release", "publish", "--repo-id", "org/rucola", "--version", "1.0.0", cwd=project
    )
    assert code == 1 and "error:" in stderr and "Traceback" not in stderr


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
        (project / "params.yaml").write_text("release:\n  changelog: CHANGES.md\n")
    elif case == "old_version":
        git(project, "tag", "v1.2.0")
    elif case == "bad_version":
        version = "1.0"
    elif case == "failed_validation":
        (project / "reports/validation.json").write_text('{"success": false}')
    elif case == "other_data":
        pd.DataFrame({"sentence": ["b"], "split": ["train"]}).to_parquet(
            project / "data/interim/split.parquet"
        )
    elif case == "stale_release":
        (project / "data/release/rucola/README.md").write_text("# an older build\n")
    elif case == "leaked_label":
        path = project / "data/release/rucola/default/test.parquet"
        pd.read_parquet(path).assign(label=[1]).to_parquet(path)
    code, _, stderr = run_cli(
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
