"""The Hugging Face release folder: configs that load offline, hidden test labels, refusal of
unvalidated data, byte-identical rebuilds and the card's YAML."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before datasets is imported (conftest too)
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from datasets import ClassLabel, Features, load_dataset  # noqa: E402
from release_params import merged, typed  # noqa: E402

from rucola.errors import RucolaError  # noqa: E402
from rucola.io import file_sha256  # noqa: E402
from rucola.release.build import build_release, release  # noqa: E402
from rucola.release.card import size_category  # noqa: E402
from rucola.settings import Params  # noqa: E402

PARAMS = {
    "corpus": {
        "pretty_name": "RuCoLA: Russian Corpus of Linguistic Acceptability",
        "license": "apache-2.0",
    },
    "split": {"ratios": {"in_domain": [0.8, 0.1, 0.1], "out_of_domain": [0.0, 0.5, 0.5]}},
}


COLUMNS = ["id", "sentence", "label", "error_type", "domain", "detailed_source", "share_acceptable"]
HIDDEN = ["error_type", "domain", "detailed_source", "share_acceptable"]
IN_SOURCES = ["Paducheva2004", "Testelets2001", "Seliverstova2004"]
CATEGORIES = ["Morphology", "Syntax", "Semantics"]
TEST_ONLY_SOURCE = "OnlyInTest2020"


def split_frame(with_ood: bool = True) -> pd.DataFrame:
    """40 in-domain rows (28 train, 4 validation, 8 test; one test-only source) and, with
    ``with_ood``, 12 out-of-domain rows (6 validation, 6 test), in scrambled order."""
    rows = []
    for i in range(40):
        split = "test" if i % 10 in (3, 7) else "validation" if i % 10 == 5 else "train"
        label = 0 if i % 3 == 0 else 1
        source = TEST_ONLY_SOURCE if i == 37 else IN_SOURCES[i % 3]
        rows.append(
            {
                "sentence": f"Это предложение номер {i} из книги.",
                "label": label,
                "error_type": None if label else CATEGORIES[(i // 3) % 3],
                "domain": "in_domain",
                "detailed_source": source,
                "split": split,
            }
        )
    if with_ood:
        for i in range(12):
            label = 1 if i % 4 == 0 else 0
            rows.append(
                {
                    "sentence": f"Кандидат {i} от переводчика.",
                    "label": label,
                    "error_type": None if label else ["Hallucination", "Syntax"][i % 2],
                    "domain": "out_of_domain",
                    "detailed_source": ["Tatoeba", "PAWS-X"][i % 2],
                    "split": "validation" if i % 2 else "test",
                }
            )
    frame = pd.DataFrame(rows)
    frame["mark"] = ""
    frame["group"] = [f"g{i}" for i in range(len(frame))]
    frame["origin"] = [f"sample:{i}" for i in range(len(frame))]
    frame["n_tokens"] = frame["sentence"].str.split().str.len().astype("int64")
    frame["high_freq_share"] = 1.0
    frame["id"] = frame.groupby("split").cumcount().astype("int64")
    # the release must order rows by id itself
    return frame.sample(frac=1.0, random_state=7).reset_index(drop=True)


def write_input(folder: Path, frame: pd.DataFrame, report: dict | None = None) -> Path:
    """The split parquet and a validation report that passes for exactly its bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "split.parquet"
    frame.to_parquet(path, index=False)
    body = {"success": True, "data_sha256": file_sha256(path)} if report is None else report
    (folder / "validation.json").write_text(json.dumps(body), encoding="utf-8")
    return path


def build(folder: Path, out: str = "release") -> dict:
    return build_release(
        folder / "split.parquet",
        folder / "validation.json",
        typed(PARAMS, folder),
        folder / out / "rucola",
        folder / out / "private",
    )


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def front_matter(card: Path) -> dict:
    text = card.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("\n---\n", 1)[0][len("---\n") :])


def expected_counts(frame: pd.DataFrame, domains: list[str]) -> dict[str, int]:
    part = frame[frame["domain"].isin(domains)]
    counts = part["split"].value_counts()
    return {s: int(counts[s]) for s in ["train", "validation", "test"] if s in counts}


@pytest.fixture
def hf_cache(tmp_path, monkeypatch) -> Path:
    """A private, offline datasets cache (datasets reads its env vars at import time)."""
    import datasets.config

    cache = tmp_path / "hf"
    monkeypatch.setenv("HF_HOME", str(cache))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache / "datasets"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache / "datasets")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    return cache / "datasets"


def test_every_config_loads_offline_with_classlabel(tmp_path, hf_cache, monkeypatch):
    data = tmp_path / "data"
    frame = split_frame()
    write_input(data, frame)
    counts = build(data)
    folder = data / "release/rucola"
    expected = {
        "default": expected_counts(frame, ["in_domain", "out_of_domain"]),
        "in_domain": expected_counts(frame, ["in_domain"]),
        "out_of_domain": expected_counts(frame, ["out_of_domain"]),
    }
    for config in ("in_domain", "out_of_domain"):  # test rows only where domains are mixed
        expected[config].pop("test")
    assert expected["out_of_domain"] == {"validation": 6}  # no train: ratio 0
    assert counts == expected
    card_info = {i["config_name"]: i for i in front_matter(folder / "README.md")["dataset_info"]}

    for config, sizes in expected.items():
        ds = load_dataset(str(folder), config, cache_dir=str(hf_cache))
        assert {s: ds[s].num_rows for s in ds} == sizes, config
        recorded = {s["name"]: s for s in card_info[config]["splits"]}
        for split in ds:
            assert ds[split].column_names == COLUMNS
            label = ds[split].features["label"]
            assert isinstance(label, ClassLabel)
            assert label.names == ["unacceptable", "acceptable"]
            ids = ds[split]["id"]
            assert len(set(zip(ids, ds[split]["domain"], strict=True))) == len(ids)
            # the card's split info is what datasets itself records
            assert ds[split].info.splits[split].num_bytes == recorded[split]["num_bytes"]
            if split != "test":
                domains = {"default": {"in_domain", "out_of_domain"}}.get(config, {config})
                assert set(ds[split]["domain"]) <= domains
                assert set(ds[split]["label"]) == {0, 1} or config == "out_of_domain"

    default = load_dataset(str(folder), cache_dir=str(hf_cache))
    assert {s: default[s].num_rows for s in default} == expected["default"]
    monkeypatch.chdir(folder.parent)
    by_name = load_dataset("rucola", cache_dir=str(hf_cache))
    assert {s: by_name[s].num_rows for s in by_name} == expected["default"]
    assert by_name["train"].features["label"].names == ["unacceptable", "acceptable"]


def test_only_in_domain_leaves_the_out_of_domain_config_out(tmp_path, hf_cache):
    data = tmp_path / "data"
    frame = split_frame(with_ood=False)
    write_input(data, frame)
    counts = build(data)
    folder = data / "release/rucola"
    assert set(counts) == {"default", "in_domain"}
    assert counts["default"] == {"train": 28, "validation": 4, "test": 8}
    assert counts["in_domain"] == {"train": 28, "validation": 4}
    assert not (folder / "out_of_domain").exists()
    header = front_matter(folder / "README.md")
    assert [c["config_name"] for c in header["configs"]] == ["default", "in_domain"]
    assert {i["config_name"] for i in header["dataset_info"]} == {"default", "in_domain"}
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "no out-of-domain sentences" in card and "`out_of_domain`" in card

    for config in ["default", "in_domain"]:
        ds = load_dataset(str(folder), config, cache_dir=str(hf_cache))
        assert {s: ds[s].num_rows for s in ds} == counts[config]
        assert ds["validation"].features["label"].names == ["unacceptable", "acceptable"]
    with pytest.raises(ValueError, match="out_of_domain"):
        load_dataset(str(folder), "out_of_domain", cache_dir=str(hf_cache))


def test_public_test_is_hidden_and_the_gold_is_private(tmp_path):
    data = tmp_path / "data"
    frame = split_frame()
    write_input(data, frame)
    build(data)
    folder = data / "release/rucola"
    test_files = sorted(folder.rglob("test*.parquet"))
    assert [p.parent.name for p in test_files] == ["default"]  # per-domain test would leak
    for path in test_files:
        public = pq.read_table(path).to_pandas()
        assert len(public) and set(public["label"]) == {-1}, path
        assert public[HIDDEN].isna().all().all(), path

    gold = pq.read_table(data / "release/private/test_gold.parquet").to_pandas()
    truth = frame[frame["split"] == "test"].sort_values("id")
    assert gold.columns.tolist() == [
        "id",
        "label",
        "error_type",
        "domain",
        "detailed_source",
        "share_acceptable",
        "sentence",
    ]
    assert gold["id"].tolist() == truth["id"].tolist()
    for column in ["label", "sentence", "domain", "detailed_source"]:
        assert gold[column].tolist() == truth[column].tolist(), column
    assert gold["error_type"].fillna("-").tolist() == truth["error_type"].fillna("-").tolist()
    assert not list(folder.rglob("*gold*"))
    assert (data / "release/private").stat().st_mode & 0o077 == 0  # readable by the owner only
    plain = tmp_path / "plain"  # the release gets the permissions a plain mkdir gives
    plain.mkdir()
    assert folder.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777


def test_no_hidden_label_reaches_the_public_folder(tmp_path):
    """The public folder is a function of everything but the test gold: flipping every test
    label and category changes nothing in it but the data hash; and test sentences appear
    only in parquet rows with the label hidden, never in the card or elsewhere."""
    frame = split_frame()
    flipped = frame.copy()
    test = flipped["split"] == "test"
    flipped.loc[test, "label"] = 1 - flipped.loc[test, "label"]
    flipped.loc[test, "error_type"] = [
        None if label else "Semantics" for label in flipped.loc[test, "label"]
    ]
    results = {}
    for name, rows in [("a", frame), ("b", flipped)]:
        path = write_input(tmp_path / name, rows)
        build(tmp_path / name)
        files = tree(tmp_path / name / "release/rucola")
        files["README.md"] = files["README.md"].replace(file_sha256(path).encode(), b"<sha>")
        results[name] = files
    assert results["a"] == results["b"]
    gold_a = pd.read_parquet(tmp_path / "a/release/private/test_gold.parquet")
    gold_b = pd.read_parquet(tmp_path / "b/release/private/test_gold.parquet")
    assert (gold_a["label"] != gold_b["label"]).all()

    folder = tmp_path / "a/release/rucola"
    sentences = set(frame.loc[frame["split"] == "test", "sentence"])
    seen = set()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.suffix == ".parquet":
            rows = pq.read_table(path).to_pandas()
            hidden = rows[rows["sentence"].isin(sentences)]
            assert set(hidden["label"]) <= {-1}, path
            assert hidden[HIDDEN].isna().all().all(), path
            seen |= set(hidden["sentence"])
        else:
            content = path.read_bytes()
            assert not [s for s in sentences if s.encode("utf-8") in content], path
    assert seen == sentences
    card = (folder / "README.md").read_text(encoding="utf-8")
    # a source seen only in test is not on the card: a test row's source is hidden
    assert TEST_ONLY_SOURCE not in card


@pytest.mark.parametrize("problem", ["failed", "other_hash", "missing", "not_json"])
def test_refuses_unvalidated_data_and_writes_nothing(tmp_path, problem):
    data = tmp_path / "data"
    path = write_input(data, split_frame())
    report = data / "validation.json"
    if problem == "failed":
        report.write_text(json.dumps({"success": False, "data_sha256": file_sha256(path)}))
    elif problem == "other_hash":
        report.write_text(json.dumps({"success": True, "data_sha256": "0" * 64}))
    elif problem == "missing":
        report.unlink()
    else:
        report.write_text("{not json")
    before = sorted(p.name for p in data.iterdir())
    with pytest.raises(RucolaError) as caught:
        build(data)
    assert caught.value.path == str(report)
    assert str(report) in caught.value.format()
    assert sorted(p.name for p in data.iterdir()) == before  # no folder, no temp folder left


def test_refusal_keeps_the_previous_release(tmp_path):
    data = tmp_path / "data"
    path = write_input(data, split_frame())
    build(data)
    previous = tree(data / "release")
    frame = split_frame()
    frame.loc[0, "sentence"] = "Изменённое после проверки предложение здесь."
    frame.to_parquet(path, index=False)  # changed after validation
    with pytest.raises(RucolaError, match="other data"):
        build(data)
    assert tree(data / "release") == previous


def test_two_builds_are_byte_identical(tmp_path):
    data = tmp_path / "data"
    write_input(data, split_frame())
    build(data, "first")
    first = tree(data / "first")
    build(data, "second")
    assert tree(data / "second") == first
    build(data, "first")  # rebuilt over itself
    assert tree(data / "first") == first
    assert {
        "rucola/README.md",
        "rucola/token_lengths.png",
        "private/test_gold.parquet",
        "rucola/default/train.parquet",
    } <= set(first)


def test_card_yaml_and_tables(tmp_path):
    data = tmp_path / "data"
    frame = split_frame()
    write_input(data, frame)
    build(data)
    folder = data / "release/rucola"
    header = front_matter(folder / "README.md")
    required = {
        "configs",
        "dataset_info",
        "license",
        "language",
        "task_categories",
        "task_ids",
        "size_categories",
        "pretty_name",
    }
    assert required <= set(header)
    assert list(header) == sorted(header)
    assert header["license"] == "apache-2.0" and header["language"] == ["ru"]
    assert header["task_categories"] == ["text-classification"]
    assert header["task_ids"] == ["acceptability-classification"]
    assert header["size_categories"] == ["n<1K"]
    assert header["pretty_name"] == PARAMS["corpus"]["pretty_name"]

    configs = {c["config_name"]: c for c in header["configs"]}
    assert [name for name, c in configs.items() if c.get("default")] == ["default"]
    assert [f["split"] for f in configs["out_of_domain"]["data_files"]] == ["validation"]
    infos = {i["config_name"]: i for i in header["dataset_info"]}
    assert set(infos) == set(configs) == {"default", "in_domain", "out_of_domain"}
    for name, config in configs.items():
        for entry in config["data_files"]:
            rows = pq.read_metadata(folder / entry["path"]).num_rows
            split = next(s for s in infos[name]["splits"] if s["name"] == entry["split"])
            assert split["num_examples"] == rows
            # the features also travel in the parquet schema metadata
            embedded = Features.from_arrow_schema(pq.read_schema(folder / entry["path"]))
            assert list(embedded) == COLUMNS
            assert embedded["label"] == ClassLabel(names=["unacceptable", "acceptable"])
        label = next(f for f in infos[name]["features"] if f["name"] == "label")
        assert label["dtype"]["class_label"]["names"] == {"0": "unacceptable", "1": "acceptable"}

    # the same YAML read by datasets' own parsers
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    card_data = DatasetCardData(**header)
    parsed = DatasetInfosDict.from_dataset_card_data(card_data)
    assert parsed["in_domain"].splits["train"].num_examples == 28
    assert parsed["default"].features["label"].names == ["unacceptable", "acceptable"]
    assert set(MetadataConfigs.from_dataset_card_data(card_data)) == set(configs)

    card = (folder / "README.md").read_text(encoding="utf-8")
    # Paducheva2004 (i % 3 == 0): labelled rows are all unacceptable, categories cycle
    labelled = frame[(frame["split"] != "test") & (frame["detailed_source"] == "Paducheva2004")]
    bad = labelled[labelled["label"] == 0]
    shares = " | ".join(
        f"{(bad['error_type'] == c).mean():.1%}"
        for c in ["Morphology", "Syntax", "Semantics", "Hallucination"]
    )
    row = f"| Paducheva2004 | in_domain | {len(labelled)} | 0.0% | {shares} |"
    assert row in card
    assert (
        "![Sentence length in tokens by domain (train and validation; test as one series)]"
        "(token_lengths.png)"
    ) in card
    assert (folder / "token_lengths.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert 'revision="vX.Y.Z"' in card and 'load_dataset("rucola")' in card
    assert "@inproceedings{mikhailov-etal-2022-rucola" in card
    # the data hash is a hash of the hidden labels too: the private folder keeps it
    assert file_sha256(data / "split.parquet") not in card


ROOT = Path(__file__).resolve().parents[2]
PAPER_BIBTEX = "@inproceedings{mikhailov-etal-2022-rucola"
PUBLICATIONS = "In-domain** sentences come from linguistic publications"


def card_of(tmp_path: Path, monkeypatch, params: dict) -> tuple[dict, str]:
    """The card built from the test rows with ``params`` (run from ``tmp_path``, the
    repository root params paths are relative to): its YAML header and its text."""
    monkeypatch.chdir(tmp_path)  # no annotation round: its report and votes are not here
    write_input(tmp_path / "in", split_frame())
    build_release(
        tmp_path / "in/split.parquet",
        tmp_path / "in/validation.json",
        Params.model_validate(params),
        "out",
        "private",
    )
    card = tmp_path / "out/README.md"
    return front_matter(card), card.read_text(encoding="utf-8")


def preset(name: str) -> dict:
    from rucola.params import load_settings

    return load_settings(ROOT / name).model_dump()


def test_the_sample_card_says_it_is_a_sample(tmp_path, monkeypatch):
    """Issue 24, item 6: the sample's card (params.yaml, every source under data/sample/)
    is titled a sample, says its sentences were written for the pipeline, and neither
    cites the RuCoLA paper as their source nor says they come from publications."""
    header, card = card_of(tmp_path, monkeypatch, preset("params.yaml"))
    title = card.split("\n---\n", 1)[1].lstrip().splitlines()[0]
    assert "sample" in header["pretty_name"].lower() and "not RuCoLA" in header["pretty_name"]
    assert title == f"# {header['pretty_name']}"
    assert "**This is a sample, not RuCoLA.**" in card and "data/sample/" in card
    assert PUBLICATIONS not in card and "original publishers" not in card
    assert PAPER_BIBTEX not in card and "never for these sentences" in card
    assert "RuCoLA test (domain hidden)" not in card


def test_a_sample_build_is_called_a_sample_whatever_its_pretty_name(tmp_path, monkeypatch):
    """The schema's default ``pretty_name`` names RuCoLA: a sample build does not take it."""
    params = preset("params.yaml")
    params["corpus"]["pretty_name"] = "RuCoLA: Russian Corpus of Linguistic Acceptability"
    header, card = card_of(tmp_path, monkeypatch, params)
    assert header["pretty_name"] == "rucola sample: examples written for the pipeline, not RuCoLA"
    assert PAPER_BIBTEX not in card


@pytest.mark.parametrize("config", ["configs/rucola-v1.yaml", "configs/rucola-v1.1.yaml"])
def test_the_rucola_card_stays_rucola(tmp_path, monkeypatch, config):
    """The rebuilds of the published corpus keep their card: RuCoLA's title and
    description, the paper cited; nothing calls them a sample."""
    header, card = card_of(tmp_path, monkeypatch, preset(config))
    assert header["pretty_name"] == "RuCoLA: Russian Corpus of Linguistic Acceptability"
    assert "\n# RuCoLA: Russian Corpus of Linguistic Acceptability\n" in card
    assert PUBLICATIONS in card and PAPER_BIBTEX in card
    assert "sample, not RuCoLA" not in card and "data/sample/" not in card
    assert "| RuCoLA test (domain hidden) |" in card


def test_a_real_source_beside_the_sample_makes_it_no_sample(tmp_path, monkeypatch):
    """Unless params name a real source: one sheet outside data/sample/ is enough."""
    params = preset("params.yaml")
    params["corpus"]["pretty_name"] = "My corpus"
    params["extract"]["sources"].append({"path": "data/raw/my_sheets", "type": "sheet"})
    header, card = card_of(tmp_path, monkeypatch, params)
    assert header["pretty_name"] == "My corpus"
    assert "sample, not RuCoLA" not in card and PAPER_BIBTEX in card


def test_the_card_says_how_to_key_rows(tmp_path, monkeypatch):
    """Issue 24, item 8: in ``default`` validation the two domains' ids collide, as in the
    published files; the card says to key on (domain, id) there and on id in test."""
    _, card = card_of(tmp_path, monkeypatch, preset("configs/rucola-v1.yaml"))
    text = " ".join(card.split())
    assert "key those rows on `(domain, id)`" in text
    assert "In a `test` split (one numbering, domains hidden)" in text


@pytest.mark.parametrize(
    ("n", "category"),
    [
        (0, "n<1K"),
        (999, "n<1K"),
        (1_000, "1K<n<10K"),
        (13_445, "10K<n<100K"),
        (100_000, "100K<n<1M"),
    ],
)
def test_size_category(n, category):
    assert size_category(n) == category


def learner_rows(pairs: int = 10) -> pd.DataFrame:
    """``pairs`` minimal pairs of the learner domain: a learner's sentence (unacceptable)
    and its correction, one group each; 8 in 10 pairs train, then validation, then test."""
    rows = []
    for i in range(pairs):
        split = ["train"] * 8 + ["validation", "test"]
        for label, word in [(0, "пошёл"), (1, "пошли")]:
            rows.append(
                {
                    "sentence": f"Вчера мы {word} в парк номер {i}.",
                    "label": label,
                    "error_type": None if label else "Morphology",
                    "domain": "learner",
                    "detailed_source": "SchoolEssays",
                    "split": split[i % 10],
                    "mark": "",
                    "group": f"pair{i}",
                    "origin": f"essays.m2:{3 * i + 1}",
                    "n_tokens": 6,
                    "high_freq_share": 1.0,
                }
            )
    return pd.DataFrame(rows)


def test_learner_rows_get_their_own_config_and_stay_out_of_the_csv_layout(tmp_path, hf_cache):
    data = tmp_path / "data"
    frame = split_frame().drop(columns="id")
    frame = pd.concat([frame, learner_rows()], ignore_index=True)
    # ids per split and (outside test) per domain, as the split stage gives them
    scope = frame["domain"].where(frame["split"] != "test", "")
    frame["id"] = frame.groupby(["split", scope]).cumcount().astype("int64")
    write_input(data, frame)
    report = release(
        data / "split.parquet",
        data / "validation.json",
        typed(merged(PARAMS, {"split": {"ratios": {"learner": [0.8, 0.1, 0.1]}}}), data),
        data / "release/rucola",
        data / "release/private",
        compat_dir=data / "release/rucola_csv",
    )
    counts = report["configs"]
    assert report["compat"]["test.csv"] == 8 + 6
    folder = data / "release/rucola"
    # learner rows are a config of their own, with their own hidden test split
    assert counts["learner"] == {"train": 16, "validation": 2, "test": 2}
    assert counts["default"]["test"] == 8 + 6  # the CSV layout's rows exactly
    ds = load_dataset(str(folder), "learner", cache_dir=str(hf_cache))
    assert {s: ds[s].num_rows for s in ds} == {"train": 16, "validation": 2, "test": 2}
    assert set(ds["test"]["label"]) == {-1}
    assert set(ds["train"]["domain"]) == {"learner"}
    assert sorted(ds["validation"]["label"]) == [0, 1]  # the pair stays whole
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "**Learner** sentences" in card
    # the default config holds RuCoLA's two domains, not the learner rows
    assert "| `default` (`in_domain` and `out_of_domain`, the default) |" in card
    assert "# the default config: in_domain and out_of_domain" in card
    text = " ".join(card.split())
    assert "one-domain configurations (`in_domain`, `out_of_domain`, `learner`)" in text
    assert "`learner`: the learner pairs, scored on their own" in text
    assert "| SchoolEssays | learner | 18 | 50.0% |" in card  # per source: train + validation
    assert "no learner sentences" not in card
    # the published CSV layout holds RuCoLA's two domains only, test included
    compat = data / "release/rucola_csv"
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(compat.glob("*.csv")))
    assert "Вчера мы" not in text
    test_csv = pd.read_csv(compat / "test.csv")
    assert len(test_csv) == 8 + 6


def v1_card(tmp_path: Path, monkeypatch, baseline: dict | None = None) -> str:
    """The card of a v1 build (``configs/rucola-v1.yaml``: no learner rows, no votes) of
    the test rows, with ``baseline`` as the baseline stage's report."""
    params = preset("configs/rucola-v1.yaml")
    if baseline is not None:
        report = tmp_path / params["baseline"]["report"]
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(json.dumps(baseline), encoding="utf-8")
    return card_of(tmp_path, monkeypatch, params)[1]


def test_the_card_names_the_default_configs_domains(tmp_path, monkeypatch):
    """Issue 33, point 8: ``load_dataset("rucola")`` gives the default config, which holds
    in- and out-of-domain rows (learner rows have a config of their own): the card says
    which, not "every domain"."""
    card = v1_card(tmp_path, monkeypatch)
    assert "every domain" not in card
    assert "# the default config: in_domain and out_of_domain" in card
    assert "| `default` (`in_domain` and `out_of_domain`, the default) |" in card


def test_a_card_describes_only_the_configs_and_columns_it_has(tmp_path, monkeypatch):
    """Issue 33, point 8: a release without learner rows and without votes (v1) names no
    ``learner`` config, and says ``share_acceptable`` is null in every row rather than
    describing soft labels it does not have."""
    card = v1_card(tmp_path, monkeypatch)
    header = front_matter(tmp_path / "out/README.md")
    configs = {c["config_name"] for c in header["configs"]}
    assert configs == {"default", "in_domain", "out_of_domain"}
    assert "learner" not in card.lower()
    text = " ".join(card.split())
    assert "| `domain` | string | `in_domain` or `out_of_domain` |" in text
    assert "| `share_acceptable` | float64 | null in every row of this release" in text
    assert "one-domain configurations (`in_domain`, `out_of_domain`)" in text
    assert "The public `test` split (`default`: in_domain and out_of_domain) has" in text


def test_soft_labels_are_described_where_rows_have_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = split_frame()
    ood = frame.index[frame["domain"] == "out_of_domain"]
    # crowd-labelled rows: their soft label travels in their provenance (release.votes)
    frame["provenance"] = None
    for n, index in enumerate(ood):
        frame.at[index, "origin"] = f"annotations:cand-{n:02d}"
        frame.at[index, "provenance"] = json.dumps(
            {"candidate_id": f"cand-{n:02d}", "share_acceptable": 0.5}
        )
    write_input(tmp_path / "in", frame)
    build_release(
        tmp_path / "in/split.parquet",
        tmp_path / "in/validation.json",
        Params.model_validate(preset("configs/rucola-v1.yaml")),
        "out",
        "private",
    )
    text = " ".join((tmp_path / "out/README.md").read_text(encoding="utf-8").split())
    assert (
        "soft label of an annotated sentence (out_of_domain): the share of its stage-1 votes "
        "that judged it acceptable; null for sentences without votes (in_domain)"
    ) in text


def test_the_split_ratios_are_those_new_rows_are_split_by(tmp_path, monkeypatch):
    """Issue 33, point 8: the ratios are not the corpus's shares (a published row keeps its
    published split): the card says they are the ratios new rows are split by."""
    text = " ".join(v1_card(tmp_path, monkeypatch).split())
    assert "The ratios below are those by which **new rows** (rows of no earlier release)" in (text)
    assert "a row of a published release keeps its published split" in text
    assert "`in_domain` 0.8 / 0.1 / 0.1; `out_of_domain` 0.0 / 0.5 / 0.5." in text


def test_the_baseline_is_reported_per_domain_in_domain_first(tmp_path, monkeypatch):
    """Issue 33, point 8: one score over both domains (MCC 0.0841 on v1) matches neither
    the in-domain one the paper reports (0.2377) nor the out-of-domain one."""
    scores = {
        "overall": {"accuracy": 0.6, "mcc": 0.0841},
        "in_domain": {"accuracy": 0.7, "mcc": 0.2377},
        "out_of_domain": {"accuracy": 0.5, "mcc": 0.01},
    }
    majority = {k: {"accuracy": 0.6, "mcc": 0.0} for k in scores}
    report = {
        "majority": {"class": 1, "validation": majority},
        "logistic_regression": {"features": 123, "C": 1.0, "validation": scores},
    }
    card = v1_card(tmp_path, monkeypatch, report)
    section = card.split("## Baselines (validation)", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert table[0] == (
        "| model | in_domain accuracy | in_domain MCC | out_of_domain accuracy | "
        "out_of_domain MCC |"
    )
    assert table[3].endswith("| 0.7 | 0.2377 | 0.5 | 0.01 |")
    assert "0.0841" not in card
