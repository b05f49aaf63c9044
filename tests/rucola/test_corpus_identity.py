"""The corpus's identity in params (``corpus``: name, title, language, description, a line
per domain, homepage, licence, citations) and categories that may be empty: every bad value
is one line naming the params file, its line and the key; the defaults name no corpus (issue
45): name, language and licence are required, each missing one its own line, and a corpus
that leaves the card's words out gets none of RuCoLA's; the keys that moved out of
``release`` say where they went."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from identity import rucola_corpus

from rucola.errors import RucolaError
from rucola.params import load_settings
from rucola.settings import Params, cross_problems

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


def refused(tmp_path: Path, corpus: dict, lines: int = 1, **sections: dict) -> str:
    """The refusal of ``corpus`` (and other sections): ``lines`` problems, one line each,
    every one naming the params file."""
    with pytest.raises(RucolaError) as caught:
        loaded(tmp_path, corpus, **sections)
    text = str(caught.value)
    assert len(text.splitlines()) == lines, text
    assert all("custom.yaml:" in line for line in text.splitlines()), text
    return text


def test_the_defaults_name_no_corpus():
    """Issue 45: the schema describes no corpus (RuCoLA's words are its overlay's): no name,
    language or licence, which are required, no words for the card, no categories."""
    params = Params()
    corpus = params.corpus
    assert (corpus.name, corpus.language, corpus.license) == (None, None, None)
    assert (corpus.pretty_name, corpus.description, corpus.license_note) == (None, None, None)
    assert corpus.citations == [] and corpus.homepage is None
    assert corpus.domain_descriptions.model_dump() == dict.fromkeys(
        ["in_domain", "out_of_domain", "learner"]
    )
    assert corpus.categories.all() == [] and corpus.categories.declared() == []
    assert (params.release.out, params.release.compat) == (
        "data/release/dataset",
        "data/release/dataset_csv",
    )
    assert [p.loc for p in cross_problems(params)] == [
        ("corpus", "name"),
        ("corpus", "language"),
        ("corpus", "license"),
    ]


def test_rucolas_identity_is_its_overlay_word_for_word(tmp_path):
    """The published RuCoLA keeps its card: rucola/presets/rucola.yaml's identity loads
    as it is written."""
    corpus = loaded(tmp_path, rucola_corpus()).corpus
    assert corpus.model_dump(exclude={"homepage"}) == rucola_corpus()
    assert corpus.name == "rucola" and corpus.language == "ru" and corpus.license == "apache-2.0"
    assert corpus.homepage is None


def test_another_corpus_with_its_own_words_loads(tmp_path):
    corpus = loaded(tmp_path, COLA).corpus
    assert corpus.name == "cola" and corpus.language == "en"
    assert corpus.categories.all() == [] and corpus.categories.declared() == []
    assert corpus.citations == [COLA_CITATION]
    # a domain the params leave alone has no line: the defaults describe no corpus
    assert corpus.domain_descriptions.in_domain is None


def test_a_corpus_that_leaves_the_card_words_out_gets_none_of_rucolas(tmp_path):
    """Issue 35: the card described and cited RuCoLA for another corpus, and claimed its
    machine-made rows; with neutral defaults (issue 45) a corpus that says nothing of its
    title, description, lines or citations gets nothing, RuCoLA's words least of all."""
    own = {key: COLA[key] for key in ("name", "language", "license")}
    corpus = loaded(tmp_path, own).corpus
    assert corpus.pretty_name is None and corpus.description is None
    assert corpus.license_note is None and corpus.citations == []
    assert corpus.domain_descriptions.model_dump() == dict.fromkeys(
        ["in_domain", "out_of_domain", "learner"]
    )
    assert "RuCoLA" not in yaml.safe_dump(corpus.model_dump())


def test_a_corpus_lacking_its_identity_names_every_key(tmp_path):
    """Only the name given: the language and the licence are each their own line (all the
    problems at once, in file order; no "(and N more problems)")."""
    text = refused(tmp_path, {"name": "mycorpus"}, lines=2)
    first, second = text.splitlines()
    assert "corpus.language: is not set" in first and "corpus.license: is not set" in second
    assert "more problem" not in text


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
    text = refused(tmp_path, COLA, release={"pretty_name": "My corpus"})
    assert "release.pretty_name: removed; the card's title is corpus.pretty_name" in text
    text = refused(tmp_path, COLA, release={"license": "mit"})
    assert "release.license: removed; the licence is corpus.license" in text


def test_empty_categories_leave_the_m2_mapping_alone(tmp_path):
    """The default M2 mapping names RuCoLA's categories; with none declared for learner
    rows it is unused, not an error (CoLA has no learner rows and no categories)."""
    corpus = loaded(tmp_path, COLA).corpus
    assert corpus.categories.of("learner") == []


def test_categories_declared_in_some_domains_only(tmp_path):
    corpus = {**COLA, "categories": {"in_domain": [], "out_of_domain": ["Syntax"]}}
    categories = loaded(tmp_path, corpus).corpus.categories
    # learner, left out, has the default: no categories (the defaults declare none)
    assert categories.declared() == ["out_of_domain"]
    assert categories.all() == ["Syntax"]


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
