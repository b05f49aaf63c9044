"""Per-annotator votes in the release: the ``votes`` configuration, keyed annotator ids, the
soft label ``share_acceptable``, and nothing of the test rows or the raw worker ids in the
public folder; ``release publish`` refuses votes hashed with the sample's key, without a
key, or with another key than the one in the environment."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from test_build import (  # noqa: F401
    PARAMS,
    front_matter,
    hf_cache,
    merged,
    split_frame,
    tree,
    write_input,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from datasets import Value, load_dataset  # noqa: E402

from rucola.corpus import schema  # noqa: E402
from rucola.errors import RucolaError  # noqa: E402
from rucola.io import file_sha256, write_parquet  # noqa: E402
from rucola.release.build import run_release  # noqa: E402
from rucola.release.votes import (  # noqa: E402
    ENV_VARIABLE,
    SAMPLE_FINGERPRINT,
    SAMPLE_KEY,
    annotator_id,
    key_fingerprint,
)
from rucola.settings import Params  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from fake_hub_recorder import HubStandIn  # noqa: E402
from identity import identity_yaml  # noqa: E402
from test_publish import git, tree_state  # noqa: E402
from test_release_contract import release_params  # noqa: E402

KEY = "maintainer-secret-key-0123456789abcdef"
OTHER_KEY = "another-secret-key-fedcba9876543210"
VOTE_COLUMNS = ["id", "split", "domain", "stage", "annotator", "answer"]
UNKNOWN_TASK = "cand-gone"  # a task whose row did not make it into the release


def worker(i: int) -> str:
    return f"RAWWORKER{i:02d}x7f3a9c"


def votes_corpus() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The split rows of ``test_build`` with crowd-labelled out-of-domain rows (origin
    ``annotations:<task>``, provenance with ``candidate_id`` and ``share_acceptable``), and
    their votes. Workers 0-4 vote on every row; worker 9 only on test rows; worker 8 only
    on the task that is no released row."""
    frame = split_frame()
    ood = frame.index[frame["domain"] == schema.OUT_OF_DOMAIN]
    votes = []
    provenance: list[str | None] = [None] * len(frame)
    origins = frame["origin"].tolist()
    for n, index in enumerate(sorted(ood, key=lambda i: frame.at[i, "sentence"])):
        task = f"cand-{n:02d}"
        origins[index] = f"annotations:{task}"
        label = int(frame.at[index, "label"])
        voters = [0, 1, 2, 3, 4] + ([9] if frame.at[index, "split"] == "test" else [])
        answers = ["acceptable" if (label == 1) == (v != 1) else "unacceptable" for v in voters]
        share = answers.count("acceptable") / len(answers)
        provenance[index] = json.dumps(
            {"candidate_id": task, "share_acceptable": share, "seed": "s"}, sort_keys=True
        )
        for v, answer in zip(voters, answers, strict=True):
            votes.append({"task": task, "stage": 1, "worker": worker(v), "answer": answer})
        if label == 0:
            category = str(frame.at[index, "error_type"]).lower()
            for v in voters[:3]:
                answer = category if v != 2 else f"morphology|{category}"
                votes.append({"task": task, "stage": 2, "worker": worker(v), "answer": answer})
    for v in (0, 8):
        votes.append(
            {"task": UNKNOWN_TASK, "stage": 1, "worker": worker(v), "answer": "acceptable"}
        )
    frame["origin"] = origins
    frame["provenance"] = provenance
    table = pd.DataFrame(votes).sort_values(["stage", "task", "worker"], kind="stable")
    return frame, table.reset_index(drop=True)


def params_for(folder: Path, key: str = "sample") -> Params:
    params = release_params(folder, annotator_key=key).model_dump()
    votes = {"annotate": {"votes_out": str(folder / "votes.parquet")}}
    return Params.model_validate(merged(params, votes))


def build(folder: Path, frame: pd.DataFrame, votes: pd.DataFrame, key: str = "sample") -> dict:
    write_input(folder, frame)
    write_parquet(votes, folder / "votes.parquet", schema.VOTES_SCHEMA)
    return run_release(params_for(folder, key))


def public_files(folder: Path) -> list[Path]:
    return sorted(p for p in (folder / "release/rucola").rglob("*") if p.is_file())


def public_text(path: Path) -> str:
    """Everything a parquet file holds, as text (its pages are compressed: the bytes alone
    would not show a string), or the file's own text."""
    if path.suffix == ".parquet":
        table = pq.read_table(path)
        metadata = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
        return json.dumps([table.to_pylist(), metadata], default=str)
    return path.read_bytes().decode("utf-8", errors="replace")


@pytest.fixture
def key_env(monkeypatch):
    monkeypatch.setenv(ENV_VARIABLE, KEY)


def test_public_release_has_nothing_of_test_rows_and_no_worker_id(tmp_path):
    frame, votes = votes_corpus()
    report = build(tmp_path, frame, votes)
    public = tmp_path / "release/rucola"
    ood = frame[frame["domain"] == schema.OUT_OF_DOMAIN]
    validation_ids = set(ood.loc[ood["split"] == "validation", "id"])
    test_ids = set(ood.loc[ood["split"] == "test", "id"])

    assert sorted(p.relative_to(public).as_posix() for p in public.glob("votes/*")) == [
        "votes/validation.parquet"  # out of domain: no train rows, and no public test votes
    ]
    released = pq.read_table(public / "votes/validation.parquet").to_pandas()
    assert released.columns.tolist() == VOTE_COLUMNS
    assert set(released["id"]) == validation_ids and set(released["split"]) == {"validation"}
    key = released.sort_values(VOTE_COLUMNS[:1] + VOTE_COLUMNS[2:]).reset_index(drop=True)
    assert released.equals(key)  # sorted by id, stage, annotator, answer
    private = pq.read_table(tmp_path / "release/private/votes_test.parquet").to_pandas()
    assert private.columns.tolist() == VOTE_COLUMNS
    assert set(private["id"]) == test_ids and set(private["split"]) == {"test"}

    task_votes = votes[votes["task"] != UNKNOWN_TASK]
    assert len(released) + len(private) == len(task_votes)
    assert report["votes"] == {
        "read": len(votes),
        "public": len(released),
        "public_by_split": {"validation": len(released)},
        "private": len(private),
        "not_released": 2,
        "annotator_key": "sample",
        "key_fingerprint": SAMPLE_FINGERPRINT,
    }
    assert report["private"]["votes_test.parquet"] == len(private)

    # the soft label: public for validation rows, hidden in test, kept with the gold
    shares = {
        (row.split, row.id): json.loads(row.provenance)["share_acceptable"]
        for row in ood.itertuples()
    }
    validation = pd.read_parquet(public / "default/validation.parquet")
    crowd = validation["domain"] == schema.OUT_OF_DOMAIN
    assert validation.loc[~crowd, "share_acceptable"].isna().all()
    assert {
        ("validation", i): s for i, s in validation.loc[crowd, ["id", "share_acceptable"]].values
    } == {k: v for k, v in shares.items() if k[0] == "validation"}
    assert pd.read_parquet(public / "default/test.parquet")["share_acceptable"].isna().all()
    gold = pd.read_parquet(tmp_path / "release/private/test_gold.parquet")
    held = gold[gold["domain"] == schema.OUT_OF_DOMAIN]
    assert {("test", i): s for i, s in held[["id", "share_acceptable"]].values} == {
        k: v for k, v in shares.items() if k[0] == "test"
    }

    # no raw worker id anywhere public; the test-only and unknown-task workers not even hashed
    hidden_ids = {annotator_id(worker(v), SAMPLE_KEY) for v in (8, 9)}
    assert annotator_id(worker(9), SAMPLE_KEY) in set(private["annotator"])  # test rows only
    assert annotator_id(worker(8), SAMPLE_KEY) not in set(private["annotator"])  # no row
    for path in public_files(tmp_path):
        content = path.read_bytes()
        text = public_text(path)
        for v in range(10):
            assert worker(v).encode() not in content and worker(v) not in text, path
        assert "RAWWORKER" not in text, path
        assert not [h for h in hidden_ids if h in text], path


def test_test_row_votes_and_soft_labels_change_no_public_byte(tmp_path):
    """The public folder is a function of everything but the test rows' votes: other
    answers, other voters and other soft labels on test rows leave it as it was."""
    frame, votes = votes_corpus()
    other_frame, other_votes = frame.copy(), votes.copy()
    test_tasks = {
        o.split(":", 1)[1]
        for o, s in zip(frame["origin"], frame["split"], strict=True)
        if o.startswith("annotations:") and s == "test"
    }
    on_test = other_votes["task"].isin(test_tasks)
    flip = {"acceptable": "unacceptable", "unacceptable": "acceptable"}
    other_votes.loc[on_test, "answer"] = other_votes.loc[on_test, "answer"].map(
        lambda a: flip.get(a, "no_violation")
    )
    other_votes.loc[on_test, "worker"] = "someone-else-entirely"
    test = other_frame["split"] == "test"
    other_frame.loc[test, "provenance"] = other_frame.loc[test, "provenance"].map(
        lambda p: (
            p
            if not isinstance(p, str)
            else json.dumps({**json.loads(p), "share_acceptable": 0.123}, sort_keys=True)
        )
    )
    results = {}
    for name, (rows, table) in {"a": (frame, votes), "b": (other_frame, other_votes)}.items():
        build(tmp_path / name, rows, table)
        files = tree(tmp_path / name / "release/rucola")
        sha = file_sha256(tmp_path / name / "split.parquet").encode()
        files["README.md"] = files["README.md"].replace(sha, b"<sha>")
        results[name] = files
    assert results["a"] == results["b"]
    private = [pd.read_parquet(tmp_path / n / "release/private/votes_test.parquet") for n in "ab"]
    assert not private[0].equals(private[1])


@pytest.mark.slow
def test_annotator_ids_are_stable_with_one_key_and_differ_with_another(tmp_path, monkeypatch):
    frame, votes = votes_corpus()
    released = {}
    for name, key in [("first", KEY), ("again", KEY), ("other", OTHER_KEY)]:
        monkeypatch.setenv(ENV_VARIABLE, key)
        report = build(tmp_path / name, frame, votes, key="env")
        assert report["votes"]["annotator_key"] == "env"
        assert report["votes"]["key_fingerprint"] == key_fingerprint(key)
        released[name] = pd.read_parquet(
            tmp_path / name / "release/rucola/votes/validation.parquet"
        )
    assert tree(tmp_path / "first/release") == tree(tmp_path / "again/release")
    expected = {annotator_id(worker(v), KEY) for v in range(5)}
    assert set(released["first"]["annotator"]) == expected
    assert not set(released["other"]["annotator"]) & expected
    assert len(set(released["other"]["annotator"])) == 5

    # a later version with fewer votes: every annotator keeps the id it had
    monkeypatch.setenv(ENV_VARIABLE, KEY)
    later = votes[votes["worker"] != worker(0)]
    build(tmp_path / "later", frame, later, key="env")
    again = pd.read_parquet(tmp_path / "later/release/rucola/votes/validation.parquet")
    assert set(again["annotator"]) == expected - {annotator_id(worker(0), KEY)}
    # the id is the keyed hash: not the worker id, not a plain hash of it
    assert annotator_id(worker(1), KEY) == annotator_id(worker(1), KEY)
    assert annotator_id(worker(1), KEY) != annotator_id(worker(1), OTHER_KEY)
    assert len(annotator_id(worker(1), KEY)) == 16 and worker(1) not in expected


@pytest.mark.parametrize("value", [None, "", "short", "aaaaaaaaaaaaaaaa"])
def test_env_key_missing_with_votes_is_an_error_and_nothing_is_written(
    tmp_path, monkeypatch, value
):
    if value is None:
        monkeypatch.delenv(ENV_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(ENV_VARIABLE, value)
    frame, votes = votes_corpus()
    with pytest.raises(RucolaError) as caught:
        build(tmp_path, frame, votes, key="env")
    message = caught.value.format()
    assert "release.annotator_key" in message and ENV_VARIABLE in message
    assert "\n" not in message
    assert not (tmp_path / "release").exists() and not (tmp_path / "reports").exists()

    # without votes to release, no key is needed
    build(tmp_path, frame, votes.iloc[0:0], key="env")
    assert not (tmp_path / "release/rucola/votes").exists()
    assert not (tmp_path / "release/private/votes_test.parquet").exists()
    report = json.loads((tmp_path / "reports/private/release.json").read_text(encoding="utf-8"))
    assert report["votes"]["public"] == report["votes"]["private"] == 0


def test_env_key_missing_is_one_line_from_the_command(run_cli, tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VARIABLE, raising=False)
    frame, votes = votes_corpus()
    write_input(tmp_path / "data", frame)
    write_parquet(votes, tmp_path / "data/votes.parquet", schema.VOTES_SCHEMA)
    (tmp_path / "params.yaml").write_text(
        identity_yaml(PROJECT_PARAMS.format(key="env")), encoding="utf-8"
    )
    code, _, stderr = run_cli("release", "build", cwd=tmp_path)
    assert code == 1
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert "release.annotator_key" in stderr and ENV_VARIABLE in stderr
    assert not (tmp_path / "data/release").exists()


@pytest.mark.slow
def test_sample_key_works_and_the_card_says_so(tmp_path, key_env):
    frame, votes = votes_corpus()
    build(tmp_path / "sample", frame, votes, key="sample")
    card = (tmp_path / "sample/release/rucola/README.md").read_text(encoding="utf-8")
    assert "hashed with the sample's published key" in card
    assert "## Annotator votes (`votes` configuration)" in card
    assert SAMPLE_FINGERPRINT in card and "withheld" in card and "`share_acceptable`" in card
    assert KEY not in card

    build(tmp_path / "env", frame, votes, key="env")
    card = (tmp_path / "env/release/rucola/README.md").read_text(encoding="utf-8")
    assert "sample's published key" not in card
    assert key_fingerprint(KEY) in card and KEY not in card

    build(tmp_path / "none", frame, votes.iloc[0:0], key="sample")
    card = (tmp_path / "none/release/rucola/README.md").read_text(encoding="utf-8")
    assert "Annotator votes" not in card and "votes" not in front_matter_configs(tmp_path / "none")


def front_matter_configs(folder: Path) -> list[str]:
    header = front_matter(folder / "release/rucola/README.md")
    return [c["config_name"] for c in header["configs"]]


def test_votes_config_loads_and_default_has_the_soft_label(tmp_path, hf_cache):  # noqa: F811
    frame, votes = votes_corpus()
    build(tmp_path, frame, votes)
    folder = tmp_path / "release/rucola"
    header = front_matter(folder / "README.md")
    assert front_matter_configs(tmp_path) == ["default", "in_domain", "out_of_domain", "votes"]
    infos = {i["config_name"]: i for i in header["dataset_info"]}
    assert [f["name"] for f in infos["votes"]["features"]] == VOTE_COLUMNS
    assert "share_acceptable" in [f["name"] for f in infos["default"]["features"]]

    ds = load_dataset(str(folder), "votes", cache_dir=str(hf_cache))
    assert list(ds) == ["validation"]
    expected = pd.read_parquet(folder / "votes/validation.parquet")
    assert ds["validation"].num_rows == len(expected)
    assert ds["validation"].column_names == VOTE_COLUMNS
    assert ds["validation"].features["annotator"] == Value("string")
    assert (
        ds["validation"].info.splits["validation"].num_bytes
        == (next(s for s in infos["votes"]["splits"] if s["name"] == "validation")["num_bytes"])
    )

    default = load_dataset(str(folder), cache_dir=str(hf_cache))
    assert set(default) == {"train", "validation", "test"}
    assert default["validation"].features["share_acceptable"] == Value("float64")
    assert all(s is None for s in default["test"]["share_acceptable"])
    ood = load_dataset(str(folder), "out_of_domain", cache_dir=str(hf_cache))["validation"]
    assert all(s is not None for s in ood["share_acceptable"])
    # the votes join to the out-of-domain rows by id
    assert set(ds["validation"]["id"]) == set(ood["id"])


# -- publish --------------------------------------------------------------------------

PROJECT_PARAMS = """\
split:
  out: data/split.parquet
validate:
  private_report: data/validation.json
annotate:
  votes_out: data/votes.parquet
release:
  annotator_key: {key}
  out: data/release/rucola
  private: data/release/private
  compat: data/release/rucola_csv
  report: data/release.json
  changelog: CHANGELOG.md
"""
PUBLISH = ("release", "publish", "--repo-id", "org/rucola", "--version", "1.0.0")
PRIVATE = ("--private-repo-id", "org/rucola-private")


def built_project(run_cli, root: Path, key: str) -> Path:
    """A git project whose release (with votes) was built with ``release.annotator_key``."""
    frame, votes = votes_corpus()
    write_input(root / "data", frame)
    write_parquet(votes, root / "data/votes.parquet", schema.VOTES_SCHEMA)
    (root / "params.yaml").write_text(
        identity_yaml(PROJECT_PARAMS.format(key=key)), encoding="utf-8"
    )
    (root / ".gitignore").write_text("data/\n")
    code, _, stderr = run_cli("release", "build", cwd=root)
    assert code == 0, stderr
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


@pytest.fixture
def online(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")


@pytest.mark.slow
@pytest.mark.parametrize("case", ["no_key", "empty_key", "sample", "sample_with_key", "other"])
def test_publish_refuses_votes_without_the_right_key(run_cli, tmp_path, monkeypatch, online, case):
    monkeypatch.setenv(ENV_VARIABLE, KEY)
    root = built_project(run_cli, tmp_path, "sample" if case.startswith("sample") else "env")
    if case == "no_key" or case == "sample":
        monkeypatch.delenv(ENV_VARIABLE)
    elif case == "empty_key":
        monkeypatch.setenv(ENV_VARIABLE, "")
    elif case == "other":
        monkeypatch.setenv(ENV_VARIABLE, OTHER_KEY)
    before = tree_state(root)
    for dry_run in (("--dry-run",), ()):
        with HubStandIn() as hub:
            monkeypatch.setenv("HF_ENDPOINT", hub.url)
            code, stdout, stderr = run_cli(*PUBLISH, *PRIVATE, *dry_run, cwd=root)
        assert code == 1, (case, stdout)
        assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
        assert hub.requests == []  # refused before any request, let alone an upload
        assert tree_state(root) == before
    expected = {
        "no_key": f"${ENV_VARIABLE} is not set",
        "empty_key": f"${ENV_VARIABLE} is not set",
        "sample": "sample's published key",
        "sample_with_key": "sample's published key",
        "other": "is not the key this release was built with",
    }[case]
    assert expected in stderr


def test_publish_with_the_key_the_release_was_built_with(run_cli, tmp_path, monkeypatch, online):
    monkeypatch.setenv(ENV_VARIABLE, KEY)
    root = built_project(run_cli, tmp_path, "env")
    with HubStandIn() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        code, _, stderr = run_cli(*PUBLISH, *PRIVATE, cwd=root)
    assert code == 0, stderr
    public = next(c for c in hub.commits if c["repo"] == "org/rucola")["files"]
    private = next(c for c in hub.commits if c["repo"] == "org/rucola-private")["files"]
    assert "votes/validation.parquet" in public
    assert not [p for p in public if "votes_test" in p or p.startswith("votes/test")]
    assert "votes_test.parquet" in private
    for content in public.values():
        assert b"RAWWORKER" not in content
    import io

    votes = pd.read_parquet(io.BytesIO(public["votes/validation.parquet"]))
    assert set(votes["annotator"]) == {annotator_id(worker(v), KEY) for v in range(5)}


@pytest.mark.parametrize("leak", ["test_votes", "worker_column"])
def test_publish_refuses_public_votes_that_leak(run_cli, tmp_path, monkeypatch, leak):
    monkeypatch.setenv(ENV_VARIABLE, KEY)
    root = built_project(run_cli, tmp_path, "env")
    folder = root / "data/release/rucola/votes"
    table = pq.read_table(folder / "validation.parquet")
    if leak == "test_votes":
        pq.write_table(table, folder / "test.parquet")
    else:
        table = table.append_column("worker", table.column("annotator"))
        pq.write_table(table, folder / "validation.parquet")
    code, _, stderr = run_cli(*PUBLISH, "--dry-run", cwd=root)
    # refused before any check of the votes themselves: the build did not write these bytes
    assert code == 1 and "publish manifest" in stderr
    assert f"data/release/rucola/votes/{'test' if leak == 'test_votes' else 'validation'}" in stderr


def test_a_human_evaluation_s_votes_on_rows_of_any_domain_join_the_votes_config(tmp_path):
    """Votes on existing rows (``annotate.human_eval.votes_out``, tasks
    ``row:<split>:<domain>:<id>``) join the votes configuration beside the candidates'
    votes, in-domain and learner rows included; test-row votes stay private; the card says
    how many there are."""
    from rucola.release.votes import row_tasks

    frame, votes = votes_corpus()
    # RuCoLA's numbering: each domain's validation ids start at 0
    ood = (frame["domain"] == schema.OUT_OF_DOMAIN) & (frame["split"] == "validation")
    frame.loc[ood, "id"] -= frame.loc[ood, "id"].min()
    chosen = frame[(frame["domain"] != schema.OUT_OF_DOMAIN) & (frame["id"] == 0)]
    chosen = pd.concat([chosen, frame[ood & (frame["id"] == 0)]])
    assert (chosen["split"] == "validation").sum() == 2 and len(chosen) == 4
    tasks = row_tasks(chosen)
    on_rows = pd.DataFrame(
        [
            {"task": task, "stage": 1, "worker": worker(w), "answer": "acceptable"}
            for task in tasks
            for w in (0, 5)
        ]
    )
    params = params_for(tmp_path).model_dump()
    params["annotate"]["human_eval"]["votes_out"] = str(tmp_path / "human_votes.parquet")
    write_input(tmp_path, frame)
    write_parquet(votes, tmp_path / "votes.parquet", schema.VOTES_SCHEMA)
    write_parquet(on_rows, tmp_path / "human_votes.parquet", schema.VOTES_SCHEMA)
    report = run_release(Params.model_validate(params))
    public = tmp_path / "release/rucola"
    released = pd.concat([pd.read_parquet(p) for p in sorted((public / "votes").glob("*.parquet"))])
    public_on_rows = chosen[chosen["split"] != "test"]
    for row in public_on_rows.itertuples():
        mine = released[
            (released["split"] == row.split)
            & (released["id"] == row.id)
            & (released["domain"] == row.domain)
        ]
        assert len(mine) >= 2  # worker 5 votes only as the human evaluation
        assert (mine["annotator"] == annotator_id(worker(5), SAMPLE_KEY)).sum() == 1
    # the domain tells apart the votes on validation id 0 of each domain
    zero = released[(released["split"] == "validation") & (released["id"] == 0)]
    by_worker5 = zero[zero["annotator"] == annotator_id(worker(5), SAMPLE_KEY)]
    assert sorted(by_worker5["domain"]) == ["in_domain", "out_of_domain"]
    private = pd.read_parquet(tmp_path / "release/private/votes_test.parquet")
    test_ids = set(chosen.loc[chosen["split"] == "test", "id"])
    assert test_ids <= set(private["id"]) and "test" not in set(released["split"])
    assert report["votes"]["not_released"] == 2  # the candidates' unknown task only
    card = (public / "README.md").read_text(encoding="utf-8")
    assert f"{2 * len(public_on_rows)} of them are a human evaluation's votes" in card
    assert "| `domain` | string | the sentence's domain" in card
