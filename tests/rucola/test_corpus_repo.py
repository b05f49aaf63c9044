"""``rucola init`` and ``rucola upgrade``: a corpus repository of its own, generated from
the installed package, that refuses to overwrite what it did not write, refuses a hand
edit of a generated file, and refuses to run other code than the code it recorded.

One repository is made per module (``rucola init`` runs git, ``dvc init`` and every
command's fingerprint, a few seconds) and each test works on a copy."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from rucola import corpus_repo
from rucola.dev.pipeline import corpus_pipeline

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A corpus repository made by ``rucola init --preset itacola`` (in-process)."""
    from typer.testing import CliRunner

    from rucola.cli import app

    root = tmp_path_factory.mktemp("made") / "itacola-corpus"
    result = CliRunner().invoke(app, ["init", str(root), "--preset", "itacola"])
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def corpus(made: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "corpus"
    shutil.copytree(made, copy, symlinks=True)
    return copy


def values(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def tracked_or_untracked(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


def test_init_lays_out_a_corpus_repository_from_the_installed_package(corpus):
    assert (corpus / ".git").is_dir() and (corpus / ".dvc").is_dir()
    # the pipeline is this repository's, but for the fingerprint stage's dependencies
    pipeline = (corpus / "dvc.yaml").read_text(encoding="utf-8")
    assert pipeline == corpus_pipeline((ROOT / "dvc.yaml").read_text(encoding="utf-8"))
    stages = yaml.safe_load(pipeline)["stages"]
    ours = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    assert stages["fingerprint_code"]["deps"] == [".rucola/tool.json"]
    del stages["fingerprint_code"]["deps"], ours["fingerprint_code"]["deps"]
    assert stages == ours
    # the preset completes to the same values here and there
    assert values(corpus / "params.yaml") == values(ROOT / "configs" / "itacola.yaml")
    # the code fingerprints the stages depend on, as this checkout's
    for path in sorted((ROOT / "reports/code").rglob("*.json")):
        relative = path.relative_to(ROOT)
        assert (corpus / relative).read_text(encoding="utf-8") == path.read_text(
            encoding="utf-8"
        ), relative
    tool = json.loads((corpus / ".rucola/tool.json").read_text(encoding="utf-8"))
    assert tool["rucola"] == corpus_repo.version() and len(tool["code"]) == 64
    # the remotes as commented templates, DVC's config otherwise as dvc init wrote it
    config = (corpus / ".dvc/config").read_text(encoding="utf-8")
    assert "# ['remote \"private\"']" in config and "# ['remote \"public\"']" in config
    # none of the tool's code, and nothing git would commit under data/raw but its README
    files = tracked_or_untracked(corpus)
    assert not [f for f in files if f.endswith(".py")], files
    assert [f for f in files if f.startswith("data/")] == ["data/raw/README.md"]
    readme = "reports/generate/README.md"  # the folder merge_candidates depends on
    assert (corpus / readme).read_bytes() == (ROOT / readme).read_bytes()


def test_data_raw_has_no_rule_that_hides_dvc_files(corpus):
    (corpus / "data/raw/sheets").mkdir()
    (corpus / "data/raw/sheets.dvc").write_text("outs: []\n", encoding="utf-8")
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "--no-index", "data/raw/sheets.dvc"], cwd=corpus
    )
    assert ignored.returncode == 1  # not ignored


def test_a_new_corpus_is_named_and_its_params_complete(run_cli, tmp_path):
    root = tmp_path / "escola"
    code, _, stderr = run_cli("init", str(root), "--language", "es", "--name", "escola")
    assert code == 0, stderr
    params = values(root / "params.yaml")
    assert params["corpus"]["name"] == "escola" and params["corpus"]["language"] == "es"
    assert params["corpus"]["license"] == "unknown"
    assert params["release"]["out"] == "data/release/escola"
    assert "escola" in (root / "README.md").read_text(encoding="utf-8")
    assert "RuCoLA" not in (root / "corpus.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args, words",
    [
        (["--preset", "nosuch"], "no preset 'nosuch'"),
        (["--preset", "itacola", "--language", "it"], "give --preset NAME, or"),
        ([], "give --preset NAME, or"),
        (["--language", "es"], "both --language CODE and --name NAME"),
        (["--language", "es", "--name", "../up"], "--name"),
    ],
)
def test_wrong_arguments_are_one_line_and_write_nothing(run_cli, tmp_path, args, words):
    code, _, stderr = run_cli("init", str(tmp_path / "c"), *args)
    assert code == 1 and words in stderr, stderr
    assert len(stderr.strip().splitlines()) <= 2 and "Traceback" not in stderr
    assert not (tmp_path / "c").exists()


def test_init_refuses_a_folder_holding_files_it_did_not_write(run_cli, tmp_path):
    root = tmp_path / "theirs"
    root.mkdir()
    (root / "README.md").write_text("their own\n", encoding="utf-8")
    (root / "dvc.yaml").write_text("stages: {}\n", encoding="utf-8")
    code, _, stderr = run_cli("init", str(root), "--preset", "cola")
    assert code == 1 and "README.md, dvc.yaml" in stderr and "did not write" in stderr
    assert sorted(p.name for p in root.iterdir()) == ["README.md", "dvc.yaml"]
    assert (root / "README.md").read_text(encoding="utf-8") == "their own\n"


def test_init_again_points_to_upgrade_and_writes_nothing(run_cli, corpus):
    def files() -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file()}

    before = files()
    code, _, stderr = run_cli("init", str(corpus), "--preset", "cola")
    assert code == 1 and "a corpus repository already" in stderr and "rucola upgrade" in stderr
    assert files() == before


def test_upgrade_with_nothing_new_writes_nothing(run_cli, corpus):
    code, stdout, stderr = run_cli("upgrade", cwd=corpus)
    assert code == 0 and "up to date" in stdout, stderr


@pytest.mark.parametrize("name", ["dvc.yaml", "params.yaml", "reports/code/extract.json"])
def test_upgrade_refuses_a_generated_file_edited_by_hand(run_cli, corpus, name):
    path = corpus / name
    text = path.read_text(encoding="utf-8")
    if name == "params.yaml":
        edited = text.replace("min_tokens: 4", "min_tokens: 5", 1)
    else:
        edited = text.replace("\n", "\n\n", 1) if name == "dvc.yaml" else text.replace("a", "b", 1)
    assert edited != text
    path.write_text(edited, encoding="utf-8")
    (corpus / "corpus.yaml").write_text(
        (corpus / "corpus.yaml").read_text(encoding="utf-8") + "filter: {min_tokens: 6}\n",
        encoding="utf-8",
    )
    before = (corpus / "params.yaml").read_bytes()
    code, _, stderr = run_cli("upgrade", cwd=corpus)
    assert code == 1 and f"edited by hand since rucola wrote them: {name}" in stderr, stderr
    assert "corpus.yaml" in stderr  # where the change belongs
    assert (corpus / "params.yaml").read_bytes() == before  # nothing written


def test_upgrade_takes_dvcs_own_rewrite_of_params_and_the_overlays_new_values(run_cli, corpus):
    params = corpus / "params.yaml"
    # DVC rewrites params.yaml (exp apply) with the same values and its own layout
    params.write_text(yaml.safe_dump(values(params), sort_keys=False), encoding="utf-8")
    overlay = corpus / "corpus.yaml"
    overlay.write_text(
        overlay.read_text(encoding="utf-8") + "filter: {min_tokens: 6}\n", encoding="utf-8"
    )
    code, stdout, stderr = run_cli("upgrade", cwd=corpus)
    assert code == 0, stderr
    assert "wrote params.yaml" in stdout
    assert values(params)["filter"]["min_tokens"] == 6
    assert "dvc repro` will run" in stdout  # never built: every stage
    record = json.loads((corpus / ".rucola/generated.json").read_text(encoding="utf-8"))
    assert record["files"]["params.yaml"] == corpus_repo.params_values_hash(
        params.read_text(encoding="utf-8")
    )


def test_every_command_refuses_other_code_than_the_recorded(run_cli, corpus, monkeypatch):
    import rucola.code_fingerprint

    real = rucola.code_fingerprint.package_hash
    # another rucola installed: its code hashes otherwise than the code init recorded
    monkeypatch.setattr(rucola.code_fingerprint, "package_hash", lambda root: "1" + real(root))
    for command in (["extract"], ["track-index"], ["fingerprint"], ["release", "build"]):
        code, _, stderr = run_cli(*command, cwd=corpus)
        assert code == 1, (command, stderr)
        assert "run `rucola upgrade`" in stderr and ".rucola/tool.json" in stderr, stderr
        assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
    # help still works, and so does the command that records the new code
    assert run_cli("extract", "--help", cwd=corpus)[0] == 0
    code, stdout, stderr = run_cli("upgrade", cwd=corpus)
    assert code == 0 and "wrote .rucola/tool.json" in stdout, stderr
    tool = json.loads((corpus / ".rucola/tool.json").read_text(encoding="utf-8"))
    assert tool["code"].startswith("1")
    # and the next command runs (it fails on the missing inputs, not on the code)
    code, _, stderr = run_cli("track-index", cwd=corpus)
    assert "rucola upgrade" not in stderr, stderr


def test_presets_are_the_shipped_overlays():
    assert corpus_repo.presets() == ["cola", "itacola", "rucola-v1", "rucola-v1.1", "sample"]
    # an overlay that includes RuCoLA's identity is written out whole: no include beside it
    text = corpus_repo.preset_overlay("rucola-v1")
    data = yaml.safe_load(text)
    assert "include" not in data and data["corpus"]["name"] == "rucola"


@pytest.mark.parametrize("preset", corpus_repo.presets())
def test_every_preset_completes_to_this_repositorys_values(preset, tmp_path):
    """One design for both kinds of repository (issue 46, item 4): a corpus repository's
    params.yaml, from the preset's overlay as ``rucola init`` writes it, holds the values of
    this repository's completed preset (compared by value: DVC rewrites the file)."""
    (tmp_path / "corpus.yaml").write_text(corpus_repo.preset_overlay(preset), "utf-8")
    completed = yaml.safe_load(corpus_repo.completed_params(tmp_path))
    here = ROOT / ("params.yaml" if preset == "sample" else f"configs/{preset}.yaml")
    assert completed == values(here)


def test_an_upgrade_killed_before_its_record_is_taken_up_by_the_next(run_cli, corpus):
    """A killed upgrade that wrote params.yaml but not .rucola/generated.json: the file
    holds what rucola writes now, which is no hand edit, and the next upgrade finishes."""
    overlay = corpus / "corpus.yaml"
    overlay.write_text(
        overlay.read_text(encoding="utf-8") + "filter: {min_tokens: 6}\n", encoding="utf-8"
    )
    record = (corpus / ".rucola/generated.json").read_bytes()
    (corpus / "params.yaml").write_text(corpus_repo.completed_params(corpus), "utf-8")
    code, stdout, stderr = run_cli("upgrade", cwd=corpus)
    assert code == 0, stderr
    assert values(corpus / "params.yaml")["filter"]["min_tokens"] == 6
    assert (corpus / ".rucola/generated.json").read_bytes() != record
    assert run_cli("upgrade", cwd=corpus)[1].strip() == "upgrade: up to date, nothing written"
