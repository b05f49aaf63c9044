"""Guarantee: nothing git tracks tells what a hidden test row hides (issue 32, 3).

Two builds of one corpus whose private data differ only in hidden attributes of test rows
(labels flipped, categories and sources swapped, rows moved between RuCoLA's two domains),
with test membership fixed (both pin the split of a kept release), must leave the same
bytes in every file git tracks, after `git add -A` (so a private output that git does not
ignore is compared too). The one allowed difference is a hash of private data: in
``dvc.lock``, the hashes of private outputs and of salted input folders, and in
``reports/inputs/``, the keyed fingerprint of a salted folder. A second test: no md5,
SHA-256 or size of a private input file appears in any git-tracked file.

The builds run a human evaluation too (issue 41): people's votes on rows of every split,
kept in a private, salted folder, some naming their row by sentence, some by split and id;
the second build's votes on test rows differ (answers flipped, votes added, a vote naming a
test id alone), and still no tracked file and no byte of the public release differs.

One documented exception, and only where the params choose it
(``annotate.human_eval.test_public: true``): the human evaluation report publishes the
test split's human scores (and the card its human row for test), so that report, and its
hash in ``dvc.lock``, may differ in its test scores, and in nothing else.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml
from dvc_project import copy_of_built, git, sh
from tracked import lock_differences, tracked_files

from rucola.salt import SALT_FILE

pytestmark = pytest.mark.slow

CORPUS = "data/raw/corpus"  # the private in-domain sheets: a salted folder
MOVED = "data/raw/moved"  # out-of-domain rows of the private data: a salted folder too
VOTES = "data/raw/votes"  # a human evaluation's votes (raw worker ids): a salted folder
SHEETS = ("agreement.tsv", "aspect_semantics.tsv", "government.tsv")
# the salted folders' fingerprints: one HMAC under each folder's salt, and the folder of
# fingerprints the extract stage depends on
KEYED = [f"reports/inputs/extract.sources/{p}.json" for p in (CORPUS, MOVED)]
KEYED.append(f"reports/inputs/annotate.votes/{VOTES}.json")


def params_for(root: Path) -> None:
    """The sample's params with the in-domain sheets moved to private, salted folders."""
    path = root / "params.yaml"
    params = yaml.safe_load(path.read_text(encoding="utf-8"))
    params["extract"]["sources"] = [
        {"path": CORPUS},
        {"path": MOVED, "domain": "out_of_domain", "source": "MovedRows"},
        {"path": "data/sample/learner"},
    ]
    params["annotate"]["votes"] = [VOTES]  # a human evaluation of the corpus's rows
    params["annotate"]["votes_target"] = "corpus"
    path.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), encoding="utf-8")


def read_sheet(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def write_sheet(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(
            handle,
            ["sentence", "mark", "error_type", "source"],
            delimiter="\t",
            lineterminator="\n",
        )
        writer.writeheader()
        writer.writerows(rows)


VOTE_HEADER = ["task", "worker", "label", "sentence", "split"]


def write_votes(root: Path, rows: list[list[str]]) -> None:
    with (root / VOTES / "votes.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(VOTE_HEADER)
        writer.writerows(rows)


def first_votes(root: Path) -> list[list[str]]:
    """Three people's votes on every sheet sentence, named by the sentence: two agree
    with the mark, the third says acceptable."""
    from rucola.corpus.dedup import sentence_key

    votes, seen = [], set()
    sheets = [root / CORPUS / n for n in SHEETS] + [root / MOVED / "moved.tsv"]
    for n, row in enumerate(r for path in sheets for r in read_sheet(path)):
        if sentence_key(row["sentence"]) in seen:  # one name a sentence
            continue
        seen.add(sentence_key(row["sentence"]))
        label = "0" if row["mark"] else "1"
        for worker, answer in (("w1", label), ("w2", label), ("w3", "1")):
            votes.append([f"s{n}", worker, answer, row["sentence"], ""])
    return votes


def votes_differently(root: Path, base: Path) -> int:
    """The votes on test rows changed: answers flipped, one more vote on each by split and
    id, and a vote naming a test id alone (no row: several have it). Returns the test
    rows voted on."""
    from rucola.corpus.dedup import sentence_key

    test = hidden_rows(base)
    keys = {sentence_key(s) for s in test["sentence"]}
    votes = first_votes(base)  # the sheets as they were: the same names in both builds
    changed = 0
    for vote in votes:
        if sentence_key(vote[3]) in keys:
            vote[2] = "1" if vote[2] == "0" else "0"
            changed += 1
    votes += [[str(i), "w4", "0", "", "test"] for i in test["id"]]
    votes.append([str(test["id"].iloc[0]), "w5", "1", "", ""])
    write_votes(root, votes)
    return changed


@pytest.fixture(scope="module")
def base(built_sample: Path, tmp_path_factory) -> Path:
    """The sample with private sheets, built once, kept as v1.0.0 and pinned by params
    (from the session's build of the sample: what the private sheets do not change, the
    generated candidates and their annotation, is not built again)."""
    root = copy_of_built(built_sample, tmp_path_factory.mktemp("hidden") / "base")
    (root / CORPUS).mkdir(parents=True)
    for name in SHEETS:
        shutil.copy2(root / "data/sample/in_domain" / name, root / CORPUS / name)
    (root / MOVED).mkdir(parents=True)
    # one sheet of out-of-domain rows (taken from a sheet, so the sentences are real)
    rows = read_sheet(root / CORPUS / "agreement.tsv")
    write_sheet(root / MOVED / "moved.tsv", [{**r, "source": ""} for r in rows[-6:]])
    write_sheet(root / CORPUS / "agreement.tsv", rows[:-6])
    (root / VOTES).mkdir(parents=True)
    write_votes(root, first_votes(root))
    sh("rucola", "salt", CORPUS, cwd=root)
    sh("rucola", "salt", MOVED, cwd=root)
    sh("rucola", "salt", VOTES, cwd=root)
    params_for(root)
    sh("dvc", "repro", cwd=root)
    # a version is its commit (release/committed.py): the inputs tracked and committed first
    for folder in (CORPUS, MOVED, VOTES):
        sh("dvc", "add", "-q", folder, cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "the private inputs and their build", cwd=root)
    sh("rucola", "release", "keep", "--version", "1.0.0", cwd=root)
    path = root / "params.yaml"
    params = yaml.safe_load(path.read_text(encoding="utf-8"))
    params["split"]["pin"] = ["data/releases/v1.0.0/rucola"]
    path.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return root


def hidden_rows(root: Path) -> pd.DataFrame:
    split = pd.read_parquet(root / "data/interim/split.parquet")
    return split[split["split"] == "test"]


def _loose(text: str) -> str:
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


def _test_groups(test: pd.DataFrame, split: pd.DataFrame, folder: str) -> list[list[tuple]]:
    """Whole groups of test rows read from one sheet under ``folder``: their (file, row
    index) pairs. A group moved whole keeps its near-duplicates with it."""
    sizes = split["group"].value_counts()
    found = []
    for _, rows in test.groupby("group", sort=True):
        places = []
        for origin in rows["origin"]:
            name, _, line = str(origin).rpartition(":")
            if line.isdigit() and name.startswith(folder):
                places.append((name, int(line) - 2))  # the header is line 1
        files = {name for name, _ in places}
        if len(places) == len(rows) == sizes[rows["group"].iloc[0]] and len(files) == 1:
            found.append(sorted(places))
    return found


def hide_differently(root: Path, base: Path) -> dict[str, int]:
    """Change what test rows hide in the private sheets, within the corpus's rules: swap
    labels between pairs of acceptable and unacceptable rows (a category follows the
    label), swap categories and sources between unacceptable rows, and move one whole
    test group each way between RuCoLA's two domains. Rows whose sentence is repeated
    anywhere are left alone (a flipped label would make a conflict), and the counts per
    label, category and domain stay, so the corpus still validates."""
    split = pd.read_parquet(base / "data/interim/split.parquet")
    test = split[split["split"] == "test"]
    sheets = {name: read_sheet(root / CORPUS / name) for name in SHEETS}
    seen = Counter(_loose(r["sentence"]) for rows in sheets.values() for r in rows)
    seen.update(_loose(r["sentence"]) for r in read_sheet(root / MOVED / "moved.tsv"))
    places = set()
    for origin in test["origin"]:  # FILE:LINE of a sheet row (a candidate's is no line)
        name, _, line = str(origin).rpartition(":")
        if line.isdigit() and name.startswith(CORPUS):
            places.add((name, int(line) - 2))  # the header is line 1
    done = {"labels": 0, "categories": 0, "sources": 0, "moved": 0}
    leftover: list[tuple[str, int | None]] = []
    for name, rows in sheets.items():
        lines = sorted(
            i
            for path, i in places
            if path.endswith("/" + name) and seen[_loose(rows[i]["sentence"])] == 1
        )
        good = [i for i in lines if not rows[i]["mark"]]
        bad = [i for i in lines if rows[i]["mark"] == "*" and rows[i]["error_type"]]
        for a, b in zip(good[:2], bad[:2], strict=False):  # labels and categories swap
            rows[a]["mark"], rows[b]["mark"] = rows[b]["mark"], rows[a]["mark"]
            rows[a]["error_type"], rows[b]["error_type"] = rows[b]["error_type"], ""
            done["labels"] += 2
        rest = bad[2:]
        for a, b in zip(rest[::2], rest[1::2], strict=False):
            if rows[a]["error_type"] != rows[b]["error_type"]:
                rows[a]["error_type"], rows[b]["error_type"] = (
                    rows[b]["error_type"],
                    rows[a]["error_type"],
                )
                done["categories"] += 2
        leftover.append((name, good[2] if len(good) > 2 else None))  # untouched so far
    # sources: one row of two sheets each takes the other's (a sheet names one source)
    spare = [(name, i) for name, i in leftover if i is not None]
    for (one, a), (two, b) in zip(spare[::2], spare[1::2], strict=False):
        first, second = sheets[one][a], sheets[two][b]
        if first["source"] != second["source"]:
            first["source"], second["source"] = second["source"], first["source"]
            done["sources"] += 2
    # one whole test group each way, of the same size, between the two salted folders
    moved = read_sheet(root / MOVED / "moved.tsv")
    outward = _test_groups(test, split, CORPUS)
    inward = _test_groups(test, split, MOVED)
    pairs = [(o, i) for o in outward for i in inward if len(o) == len(i)]
    if pairs:
        out_group, in_group = pairs[0]
        sheet = out_group[0][0].split("/")[-1]
        leaving = [sheets[sheet][i] for _, i in out_group]
        coming = [moved[i] for _, i in in_group]
        gone = {i for _, i in out_group}
        sheets[sheet] = [r for i, r in enumerate(sheets[sheet]) if i not in gone]
        back = {i for _, i in in_group}
        moved = [r for i, r in enumerate(moved) if i not in back]
        sheets[sheet] += [{**r, "source": "SampleAgreement"} for r in coming]
        moved += [{**r, "source": ""} for r in leaving]
        done["moved"] = len(leaving) + len(coming)
    for name, rows in sheets.items():
        write_sheet(root / CORPUS / name, rows)
    write_sheet(root / MOVED / "moved.tsv", moved)
    return done


def built(base: Path, folder: Path, change: bool) -> Path:
    """A copy of ``base`` (its git history, DVC cache, salts and kept release), its
    private sheets changed if ``change``, built by ``dvc repro`` and staged with `git add
    -A`."""
    root = folder
    shutil.copytree(base, root, symlinks=True)
    if change:
        done = hide_differently(root, base)
        assert done["labels"] >= 4 and done["categories"] + done["sources"] >= 2, done
        assert done["moved"] >= 2, done
        done["votes"] = votes_differently(root, base)
        assert done["votes"] >= 6, done
        print(f"\ntest rows changed in the private sheets and votes: {done}")
    sh("dvc", "repro", cwd=root)
    git("add", "-A", cwd=root)
    return root


@pytest.fixture(scope="module")
def builds(base: Path, tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("builds")
    return built(base, folder / "a", False), built(base, folder / "b", True)


def test_every_tracked_file_is_the_same_whatever_the_test_rows_hide(builds):
    a, b = builds
    assert not hidden_rows(a)["label"].equals(hidden_rows(b)["label"])  # the change is real...
    files = tracked_files(a)
    assert files == tracked_files(b)
    assert "reports/split.json" in files and "reports/plots/token_lengths.csv" in files
    differing = [f for f in files if (a / f).read_bytes() != (b / f).read_bytes()]
    keyed = KEYED
    for name in keyed:  # a salted folder's fingerprint: one HMAC under its salt
        record = json.loads((b / name).read_text(encoding="utf-8"))
        assert set(record) == {"family", "name", "path", "kind", "keyed"}, record
    exceptions = allowed_exceptions(a, b, differing)  # none unless the params choose it
    # the salted folders' .dvc files: a salted hash, as their entries in dvc.lock (below)
    dvc_files = {f"{folder}.dvc" for folder in (CORPUS, MOVED, VOTES)}
    allowed = {"dvc.lock", *keyed, *exceptions, *dvc_files}
    unexplained = [f for f in differing if f not in allowed]
    assert unexplained == [], unexplained  # ...and nothing git tracks shows it
    salted = {CORPUS, MOVED, VOTES, *KEYED}
    salted |= {"reports/inputs/extract.sources", "reports/inputs/annotate.votes"}
    # with the exception on, the release folder's hash too (its card shows the test row)
    release = {yaml.safe_load((b / "params.yaml").read_text(encoding="utf-8"))["release"]["out"]}
    release = release if exceptions else set()
    assert lock_differences(a, b, salted | exceptions | release) == []
    print(f"compared {len(files)} tracked files; differing only in salted hashes: {differing}")


def test_the_public_release_is_the_same_whatever_the_test_rows_votes(builds):
    """The human evaluation's votes on test rows differ (the private outputs show it), and
    no byte of the public release does: its votes config holds the other splits' votes."""
    a, b = builds
    private = [json.loads((r / "reports/private/human_evaluation.json").read_text("utf-8"))
               for r in (a, b)]  # fmt: skip
    assert private[0]["scores"]["by_split"]["test"] != private[1]["scores"]["by_split"]["test"]
    assert private[0]["votes"]["read"] < private[1]["votes"]["read"]
    public = [json.loads((r / "reports/human_evaluation.json").read_text("utf-8")) for r in (a, b)]
    assert public[0] == public[1] and public[0]["kept"] > 0
    assert set(public[0]["scores"]["by_split"]) == {"train", "validation"}
    out = yaml.safe_load((a / "params.yaml").read_text(encoding="utf-8"))["release"]["out"]
    files = sorted(p.relative_to(a / out) for p in (a / out).rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b / out) for p in (b / out).rglob("*") if p.is_file())
    assert any(f.parts[0] == "votes" for f in files)  # the human evaluation's public votes
    differing = [f for f in files if (a / out / f).read_bytes() != (b / out / f).read_bytes()]
    assert differing == []
    votes = pd.concat([pd.read_parquet(a / out / f) for f in files if f.parts[0] == "votes"])
    assert "test" not in set(votes["split"]) and votes["domain"].notna().all()
    tests = [pd.read_parquet(r / "data/release/private/votes_test.parquet") for r in (a, b)]
    assert len(tests[0]) < len(tests[1])  # the test votes went to the private folder


def published_test_scores(root: Path) -> str | None:
    """The human evaluation report where the params publish its test scores (the one
    documented exception), else None."""
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    human = (params.get("annotate") or {}).get("human_eval") or {}
    if not human.get("test_public"):
        return None
    return str(human.get("report", "reports/human_evaluation.json"))


def without_test_scores(path: Path) -> dict:
    """The human evaluation report less what the exception allows to differ: the test
    split's scores (and the counts of rows set aside, which test rows are among)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data.get("scores", {}).get("by_split", {}).pop("test", None)
    for key in ("read", "kept", "set_aside"):
        data.pop(key, None)
    return data


def allowed_exceptions(a: Path, b: Path, differing: list[str]) -> set[str]:
    """The documented exception's files among ``differing``, once checked to differ in
    the test scores only; empty unless ``annotate.human_eval.test_public`` is on."""
    report = published_test_scores(b)
    if report is None or report not in differing:
        return set()
    assert without_test_scores(a / report) == without_test_scores(b / report)
    return {report}


def test_the_exception_is_known_only_when_the_params_choose_it(tmp_path):
    """Off by default: the sample's params publish no test score."""
    (tmp_path / "params.yaml").write_text("annotate: {}\n", encoding="utf-8")
    assert published_test_scores(tmp_path) is None
    assert allowed_exceptions(tmp_path, tmp_path, ["reports/human_evaluation.json"]) == set()
    (tmp_path / "params.yaml").write_text(
        "annotate: {human_eval: {test_public: true}}\n", encoding="utf-8"
    )
    assert published_test_scores(tmp_path) == "reports/human_evaluation.json"


def private_files(root: Path) -> list[Path]:
    files = (p for folder in (CORPUS, MOVED) for p in (root / folder).rglob("*"))
    return sorted(p for p in files if p.is_file())


def test_no_hash_or_size_of_a_private_file_is_in_a_tracked_file(builds):
    _, b = builds
    text = "\n".join(
        (b / f).read_text(encoding="utf-8", errors="replace") for f in tracked_files(b)
    )
    for file in private_files(b):
        data = file.read_bytes()
        for digest in (hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest()):  # noqa: S324
            assert digest not in text, (file, digest)
        if file.name == SALT_FILE:
            # A salt's size is drawn at random (32 to 1056 bytes) and tells nothing about
            # the data; among the ~1,300 sizes of small public files in dvc.lock it turns
            # up by chance now and then (CI once met a 48-byte salt), so only its hashes
            # are looked for.
            continue
        for form in (f"size: {len(data)}\n", f'"size": {len(data)}'):
            assert form not in text, (file, len(data))
