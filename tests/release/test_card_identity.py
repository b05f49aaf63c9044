"""The card follows the corpus's identity in params (issue 35, item 3): another corpus's card
says nothing of RuCoLA, claims no rows it lacks, declares its language, licence and
citations; a corpus without categories has no category columns or plot; a corpus without
test rows (CoLA publishes none) releases train and validation only, says so, and loads; the
card is never corrected by hand: the manifest refuses that, and a rebuild with new params
writes it."""

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

from datasets import load_dataset  # noqa: E402
from identity import rucola_corpus  # noqa: E402
from release_params import typed  # noqa: E402

from rucola.errors import RucolaError  # noqa: E402
from rucola.io import file_sha256  # noqa: E402
from rucola.release.build import release  # noqa: E402
from rucola.release.evaluate import evaluate  # noqa: E402
from rucola.release.manifest import CARD_HINT, verified_files  # noqa: E402

COLA_CITATION = """@article{warstadt2019neural,
    title = {Neural Network Acceptability Judgments},
    author = {Warstadt, Alex and Singh, Amanpreet and Bowman, Samuel R.},
    journal = {Transactions of the Association for Computational Linguistics},
    volume = {7},
    year = {2019}
}"""
NO_CATEGORIES = {"in_domain": [], "out_of_domain": [], "learner": []}
COLA = {
    "name": "cola",
    "pretty_name": "CoLA: The Corpus of Linguistic Acceptability",
    "language": "en",
    "description": (
        "The Corpus of Linguistic Acceptability: English sentences from books and articles\n"
        "on linguistic theory, each labelled for grammaticality by its original authors."
    ),
    "domain_descriptions": {
        "in_domain": "sentences come from 17 sources used for training and evaluation.",
        "out_of_domain": "sentences come from 6 sources held out for evaluation only.",
        "learner": None,
    },
    "homepage": "https://nyu-mll.github.io/CoLA/",
    "license": "other",
    "license_note": "The sentences remain the copyright of their publishers (fair use).",
    "citations": [COLA_CITATION],
    "categories": NO_CATEGORIES,
}
RATIOS = {"in_domain": [0.8, 0.1, 0.1], "out_of_domain": [0.0, 0.5, 0.5]}
NO_TEST = {"in_domain": [0.9, 0.1, 0.0], "out_of_domain": [0.0, 1.0, 0.0]}


def english_rows(test: bool = True, categories: bool = False) -> pd.DataFrame:
    """40 in-domain and 10 out-of-domain English rows; with ``test``, a tenth of them in
    test (else train and validation only, as CoLA publishes); every unacceptable row
    without a category unless ``categories``."""
    rows = []
    for i in range(50):
        domain = "in_domain" if i < 40 else "out_of_domain"
        label = int(i % 3 != 0)
        if domain == "in_domain":
            split = "train" if i % 10 < 8 else "validation" if i % 10 == 8 or not test else "test"
        else:
            split = "validation" if i % 2 or not test else "test"
        rows.append(
            {
                "sentence": f"The {i}th student has read the book.",
                "label": label,
                "error_type": "Syntax" if categories and not label else None,
                "domain": domain,
                "detailed_source": ["ks08", "bc01", "c-05"][i % 3],
                "split": split,
                "mark": "" if label else "*",
                "group": f"g{i}",
                "origin": f"raw.tsv:{i + 1}",
                "n_tokens": 7,
                "high_freq_share": 1.0,
            }
        )
    frame = pd.DataFrame(rows)
    scope = frame["domain"].where(frame["split"] != "test", "")
    frame["id"] = frame.groupby(["split", scope]).cumcount().astype("int64")
    return frame


def build(folder: Path, frame: pd.DataFrame, corpus: dict, ratios: dict = RATIOS) -> Path:
    """The release of ``frame`` with ``corpus`` as the identity (its split data marked
    validated); returns the public folder."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "split.parquet"
    frame.to_parquet(data, index=False)
    body = {"success": True, "data_sha256": file_sha256(data)}
    (folder / "validation.json").write_text(json.dumps(body), encoding="utf-8")
    params = typed({"corpus": corpus, "split": {"ratios": ratios}}, folder)
    release(
        data,
        folder / "validation.json",
        params,
        folder / "out/cola",
        folder / "out/private",
        compat_dir=folder / "out/csv",
    )
    return folder / "out/cola"


def card_and_header(public: Path) -> tuple[str, dict]:
    text = (public / "README.md").read_text(encoding="utf-8")
    return text, yaml.safe_load(text.split("\n---\n", 1)[0].removeprefix("---\n"))


@pytest.fixture
def hf_cache(tmp_path, monkeypatch) -> Path:
    """A private, offline datasets cache."""
    import datasets.config

    cache = tmp_path / "hf"
    monkeypatch.setenv("HF_HOME", str(cache))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache / "datasets"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache / "datasets")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    return cache / "datasets"


def test_another_corpus_card_says_nothing_of_rucola(tmp_path):
    """Issue 35: the card said `language: [ru]`, described RuCoLA, cited it, and claimed
    machine-generated rows. With a RuCoLA-free identity, no public text file of the
    release names RuCoLA, Russian or the RuCoLA paper."""
    public = build(tmp_path, english_rows(), COLA)
    card, header = card_and_header(public)
    assert header["language"] == ["en"] and header["license"] == "other"
    assert header["pretty_name"] == COLA["pretty_name"]
    assert card.count(f"\n# {COLA['pretty_name']}\n") == 1
    assert COLA["description"] in card and "<https://nyu-mll.github.io/CoLA/>" in card
    assert "```bibtex\n" + COLA_CITATION + "\n```\n" in card
    assert "- **Out-of-domain** sentences come from 6 sources held out" in card
    for text in [card, *(p.read_text("utf-8") for p in public.rglob("*.json"))]:
        for word in ["RuCoLA", "Russian", "mikhailov", "Mikhailov", "machine translation"]:
            assert word not in text, word
    # its own categories (none): no category column, no picture, no Hallucination
    assert "Hallucination" not in card and "Morphology" not in card
    assert "| detailed_source | domain | sentences | acceptable |\n|---|---|---|---|\n" in card
    assert "`default` test (domain hidden)" in card
    assert not (public / "error_types.png").exists()
    assert "error_types.png" not in card
    assert 'load_dataset("<namespace>/cola", "in_domain"' in card
    # the local folder's name lines up the comments, as RuCoLA's did
    assert 'ds = load_dataset("cola")                       # the default config' in card
    assert 'ds = load_dataset("path/to/cola", "in_domain")  # configs' in card


def test_domain_lines_only_for_domains_with_rows(tmp_path):
    """A corpus of in-domain rows only is neither said to have out-of-domain rows nor told
    that RuCoLA's second domain is still to come."""
    frame = english_rows()
    public = build(tmp_path, frame[frame["domain"] == "in_domain"], COLA)
    card, _ = card_and_header(public)
    assert "- **In-domain** sentences come from 17 sources" in card
    assert "Out-of-domain" not in card and "no out-of-domain sentences yet" not in card
    assert "every configuration\nhere holds rows of one domain" in card


def test_a_null_identity_says_nothing(tmp_path):
    """Null description, lines, note and no citations: no paragraph, no bullet, no
    citation section; a licence the card has no name for is given as its id."""
    corpus = {
        **COLA,
        "description": None,
        "homepage": None,
        "license": "cc-by-nd-4.0",
        "license_note": None,
        "citations": [],
        "domain_descriptions": {"in_domain": None, "out_of_domain": None, "learner": None},
    }
    card, _ = card_and_header(build(tmp_path, english_rows(), corpus))
    body = card.split("\n---\n", 1)[1]
    assert f"# {COLA['pretty_name']}\n\nThis folder was built by the `rucola` pipeline" in body
    assert "## Citation" not in card and "- **" not in card
    assert card.endswith("released under `cc-by-nd-4.0`.\n")


def test_categories_of_some_domains_are_the_card_columns(tmp_path):
    """A corpus with categories keeps its columns and picture."""
    corpus = {**COLA, "categories": {**NO_CATEGORIES, "in_domain": ["Syntax"]}}
    public = build(tmp_path, english_rows(categories=True), corpus)
    card, _ = card_and_header(public)
    assert "| acceptable | Syntax |" in card and (public / "error_types.png").is_file()
    assert "![Violation categories by domain, train and validation](error_types.png)" in card


def test_a_corpus_without_test_rows_releases_train_and_validation(tmp_path, hf_cache):
    """CoLA publishes train and validation only: no test file anywhere, the card says so
    and shows no test column, the datasets load, and scoring points at validation."""
    frame = english_rows(test=False)
    assert not (frame["split"] == "test").any()
    public = build(tmp_path, frame, COLA, NO_TEST)
    assert not list(public.rglob("test.parquet"))
    assert not (tmp_path / "out/csv/test.csv").exists()
    assert not (tmp_path / "out/csv/sample_submission.csv").exists()
    card, header = card_and_header(public)
    assert "**This release has train and validation splits only" in card
    assert "## No test split" in card and "## Hidden test labels" not in card
    assert "| config | train | validation |\n|---|---|---|\n" in card
    assert "| domain | train | validation | total |\n" in card
    assert "-1 in the public test split" not in card
    assert all(f["split"] != "test" for c in header["configs"] for f in c["data_files"])
    for config, sizes in {
        "default": {"train": 32, "validation": 18},
        "in_domain": {"train": 32, "validation": 8},
        "out_of_domain": {"validation": 10},
    }.items():
        ds = load_dataset(str(public), config, cache_dir=str(hf_cache))
        assert {s: ds[s].num_rows for s in ds} == sizes, config
    # every file the card and the manifest name is there, nothing else
    assert [p for p, _ in verified_files(public, tmp_path / "out/csv")]
    gold = tmp_path / "out/private/test_gold.parquet"
    assert pq.read_metadata(gold).num_rows == 0
    predictions = tmp_path / "pred.csv"
    predictions.write_text("id,acceptable\n0,1\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="the gold has no rows") as caught:
        evaluate(predictions, gold, None)
    assert "in_domain/validation.parquet" in (caught.value.hint or "")
    rows = pq.read_table(public / "in_domain/validation.parquet").to_pandas()
    predictions.write_text(
        "id,acceptable\n" + "".join(f"{i},{y}\n" for i, y in rows[["id", "label"]].values),
        encoding="utf-8",
    )
    scores = evaluate(predictions, public / "in_domain/validation.parquet", None)
    assert scores["overall"] == {"n": 8, "accuracy": 1.0, "mcc": 1.0}


def test_a_hand_corrected_card_is_refused_and_params_rewrite_it(tmp_path):
    """The manifest holds the card to its bytes, and its refusal says where the card's
    words come from; a build with the corrected params writes a card that publishes."""
    public = build(tmp_path, english_rows(), COLA)
    card = public / "README.md"
    card.write_text(card.read_text("utf-8").replace("17 sources", "seventeen sources"), "utf-8")
    with pytest.raises(RucolaError, match="differs from the publish manifest") as caught:
        verified_files(public, tmp_path / "out/csv")
    assert caught.value.hint == CARD_HINT and "corpus.name" in CARD_HINT
    lines = {"in_domain": "sentences come from seventeen sources, for training and evaluation."}
    corrected = {**COLA, "domain_descriptions": {**COLA["domain_descriptions"], **lines}}
    card.unlink()  # a build never replaces a folder holding a file changed by hand
    build(tmp_path, english_rows(), corrected)
    assert "seventeen sources" in card.read_text("utf-8")
    assert any(p.name == "README.md" for p, _ in verified_files(public, tmp_path / "out/csv"))


def test_rucola_keeps_its_paper_and_published_files(tmp_path):
    """RuCoLA's identity (rucola/presets/rucola.yaml): the card compares with its paper
    and files."""
    public = build(tmp_path, english_rows(categories=True), rucola_corpus())
    card, header = card_and_header(public)
    assert header["language"] == ["ru"] and header["license"] == "apache-2.0"
    assert "@inproceedings{mikhailov-etal-2022-rucola" in card
    assert "(cf. Table 2 and Figure 1 of the RuCoLA paper)" in card
    assert "| RuCoLA test (domain hidden) |" in card
    assert "like the published RuCoLA\n`sample_submission.csv`" in card
