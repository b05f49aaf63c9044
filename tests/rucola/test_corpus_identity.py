"""The corpus's identity in params (``corpus``: name, title, language, description, a line
per domain, homepage, licence, citations) and categories that may be empty: every bad value
is one line naming the params file, its line and the key; a corpus of another name may not
keep RuCoLA's words; the keys that moved out of ``release`` say where they went."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rucola.errors import RucolaError
from rucola.params import load_settings
from rucola.settings import Params, cross_problems
from rucola.settings.corpus import (
    RUCOLA_CITATION,
    RUCOLA_DESCRIPTION,
    RUCOLA_DOMAINS,
    RUCOLA_PRETTY_NAME,
)

COLA_CITATION = """@article{warstadt2018neural,
    title = {Neural Network Acceptability Judgments},
    author = {Warstadt, Alex and Singh, Amanpreet and Bowman, Samuel R.},
    journal = {arXiv preprint arXiv:1805.12471},
    year = {2018}
}"""

# An identity of another corpus that keeps none of RuCoLA's words.
COLA = {
    "name": "cola",
    "pretty_name": "CoLA: The Corpus of Linguistic Acceptability",
    "language": "en",
    "description": "English sentences from linguistics publications, judged by their authors.",
    "domain_descriptions": {
        "out_of_domain": "sentences come from publications held out of the training set.",
    },
    "homepage": "https://nyu-mll.github.io/CoLA/",
    "license": "other",
    "citations": [COLA_CITATION],
    "categories": {"in_domain": [], "out_of_domain": [], "learner": []},
}


def loaded(tmp_path: Path, corpus: dict, **sections: dict) -> Params:
    """``corpus`` (and other sections) written to a params file and loaded as a command
    loads it."""
    path = tmp_path / "custom.yaml"
    path.write_text(
        yaml.safe_dump({"corpus": corpus, **sections}, allow_unicode=True, sort_keys=False),
        encoding="utf-8",
    )
    return load_settings(path)


def refused(tmp_path: Path, corpus: dict, **sections: dict) -> str:
    with pytest.raises(RucolaError) as caught:
        loaded(tmp_path, corpus, **sections)
    text = str(caught.value)
    assert "\n" not in text and "custom.yaml:" in text, text
    return text


def test_the_defaults_are_rucola_word_for_word():
    """The published RuCoLA keeps its card: the defaults are its identity."""
    corpus = Params().corpus
    assert corpus.name == "rucola" and corpus.language == "ru"
    assert corpus.pretty_name == RUCOLA_PRETTY_NAME
    assert corpus.description == RUCOLA_DESCRIPTION
    assert corpus.citations == [RUCOLA_CITATION]
    assert corpus.license == "apache-2.0" and corpus.homepage is None
    assert cross_problems(Params()) == []


def test_another_corpus_with_its_own_words_loads(tmp_path):
    corpus = loaded(tmp_path, COLA).corpus
    assert corpus.name == "cola" and corpus.language == "en"
    assert corpus.categories.all() == [] and corpus.categories.declared() == []
    assert corpus.citations == [COLA_CITATION]
    # a domain the overlay left alone keeps its default line (in_domain's says nothing of
    # RuCoLA: publications and their authors' judgments)
    assert corpus.domain_descriptions.in_domain == RUCOLA_DOMAINS["in_domain"]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("pretty_name", RUCOLA_PRETTY_NAME),
        ("description", RUCOLA_DESCRIPTION),
        ("citations", [COLA_CITATION, RUCOLA_CITATION]),
    ],
)
def test_another_corpus_may_not_keep_rucolas_words(tmp_path, key, value):
    """Issue 35: the card described and cited RuCoLA for another corpus."""
    text = refused(tmp_path, {**COLA, key: value})
    assert f"corpus.{key}: is RuCoLA's (the default), but corpus.name is 'cola'" in text


def test_another_corpus_may_not_claim_rucolas_machine_made_rows(tmp_path):
    corpus = {**COLA, "domain_descriptions": {}}  # out_of_domain left at RuCoLA's
    text = refused(tmp_path, corpus)
    assert "corpus.domain_descriptions.out_of_domain: is RuCoLA's" in text


def test_the_defaults_under_another_name_name_every_key(tmp_path):
    """Only the name changed: four keys describe RuCoLA, each counted."""
    text = refused(tmp_path, {"name": "mycorpus"})
    assert "corpus.pretty_name: is RuCoLA's" in text and "(and 3 more problems)" in text


def test_null_means_none(tmp_path):
    corpus = {
        **COLA,
        "description": None,
        "license_note": None,
        "citations": [],
        "domain_descriptions": {"in_domain": None, "out_of_domain": None, "learner": None},
    }
    loaded_corpus = loaded(tmp_path, corpus).corpus
    assert loaded_corpus.description is None and loaded_corpus.citations == []


@pytest.mark.parametrize(
    "name", ["../cola", "cola/../../etc", "co la", "", ".hidden", "-x", "cola\n", "a" * 97, 7]
)
def test_an_unsafe_name_is_refused(tmp_path, name):
    """The name becomes a file name and a Hub repository: no path, no space."""
    text = refused(tmp_path, {**COLA, "name": name})
    assert "corpus.name: must be a name of letters, digits, '_' and '-'" in text


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("license", "Apache-2.0", "must be a Hub licence id"),
        ("license", "cc by", "must be a Hub licence id"),
        ("homepage", "nyu-mll.github.io/CoLA", "must be an http(s) address"),
        ("homepage", "https://a b", "must be an http(s) address"),
        ("citations", ["Warstadt et al. 2019"], "must be a BibTeX entry"),
        ("citations", ["@article{x, title = {unclosed}"], "balanced braces"),
        ("citations", ["@article{x}}"], "balanced braces"),
        ("citations", "@article{x, year = {2019}}", "must be a list"),
        ("description", "   ", "must be text"),
        ("description", "Intro\n---\nmore", "must not hold a line of '---'"),
        ("pretty_name", "", "must be text"),
        ("pretty_name", "CoLA\n# injected heading", "must be one line"),
        ("categories", {"in_domain": None}, "must be a list"),
    ],
)
def test_bad_identity_values_are_one_line(tmp_path, key, value, words):
    text = refused(tmp_path, {**COLA, key: value})
    assert f"corpus.{key}" in text and words in text, text


def test_the_keys_that_moved_out_of_release_say_where_they_went(tmp_path):
    """An older params file gave the card's title and licence under release."""
    text = refused(tmp_path, {}, release={"pretty_name": "My corpus"})
    assert "release.pretty_name: removed; the card's title is corpus.pretty_name" in text
    text = refused(tmp_path, {}, release={"license": "mit"})
    assert "release.license: removed; the licence is corpus.license" in text


def test_empty_categories_leave_the_m2_mapping_alone(tmp_path):
    """The default M2 mapping names RuCoLA's categories; with none declared for learner
    rows it is unused, not an error (CoLA has no learner rows and no categories)."""
    corpus = loaded(tmp_path, COLA).corpus
    assert corpus.categories.of("learner") == []


def test_categories_declared_in_some_domains_only(tmp_path):
    corpus = {**COLA, "categories": {"in_domain": [], "out_of_domain": ["Syntax"]}}
    categories = loaded(tmp_path, corpus).corpus.categories
    assert categories.declared() == ["out_of_domain", "learner"]
    assert categories.all() == ["Syntax", "Morphology", "Semantics"]


def test_an_m2_source_without_learner_categories_is_one_line(tmp_path, run_cli):
    """Learner pairs take their category from the edits' types: with none declared the
    M2 reader has nothing to map them to, and says so."""
    (tmp_path / "essays.m2").write_text(
        "S Вчера мы пошёл в парк .\nA 2 3|||G:VERB:NUM|||пошли|||REQUIRED|||-NONE-|||0\n\n",
        encoding="utf-8",
    )
    (tmp_path / "custom.yaml").write_text(
        yaml.safe_dump(
            {
                "corpus": COLA,
                "extract": {
                    "sources": [{"path": "essays.m2", "type": "m2"}],
                    "out": "out/in_domain.parquet",
                    "rejected": "out/rejected.parquet",
                    "report": "out/extract.json",
                    "private_report": "out/private_extract.json",
                },
            }
        ),
        encoding="utf-8",
    )
    code, stdout, stderr = run_cli("extract", "--params", "custom.yaml", cwd=tmp_path)
    output = stdout + stderr
    assert code == 1 and "Traceback" not in output, output
    assert "corpus.categories.learner is empty" in output
    assert not (tmp_path / "out").exists()
