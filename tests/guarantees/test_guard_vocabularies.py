"""Each vocabulary once, tried adversarially: the domains are one list
(``rucola.settings.types.DOMAINS``, the ``Domain`` type's) and the categories of unacceptable
rows one params key, a list per domain (``corpus.categories``), which extraction, the
split's errata, annotation, validation, the audit and the card read. Each attempt here gives
a stage a list of its own, or a category outside its domain's list where it was refused
before, or an old params file naming one of the keys the categories replaced.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import get_args

import pandas as pd
import pytest
import yaml
from guards import one_error_line, snapshot
from identity import identity_yaml, rucola_categories, rucola_corpus, rucola_params

from rucola.annotation.categories import aggregate_stage2
from rucola.annotation.label_studio import label_config
from rucola.annotation.votes import Stage2Form
from rucola.corpus import schema
from rucola.settings import (
    DOMAINS,
    IN_DOMAIN,
    LEARNER,
    OUT_OF_DOMAIN,
    Categories,
    Domain,
    Params,
    SplitRatios,
    per_domain,
)

ROOT = Path(__file__).resolve().parents[2]
CODE = ["rucola", "corpus", "annotation", "generation", "validation", "release", "curation"]
# Where the vocabularies are written: the domains (the ``Domain`` type) and the default
# categories (``corpus.categories``' defaults, and the M2 edit types' default mapping).
DEFINED_IN = {"rucola/settings/types.py", "rucola/settings/corpus.py"}
# The short metric key of the learner rows (``release/headline.py``: in_dom, out_dom,
# learner), which happens to be the domain's name.
NOT_A_COPY = {("release/headline.py", "learner")}


def params_with(categories: dict[str, list[str]]) -> Params:
    """RuCoLA's categories with ``categories`` in place of some domains' lists."""
    return rucola_params(corpus={"categories": {**rucola_corpus()["categories"], **categories}})


def test_the_domains_are_one_list():
    assert get_args(Domain) == DOMAINS == (IN_DOMAIN, OUT_OF_DOMAIN, LEARNER)
    assert list(DOMAINS) == schema.DOMAINS
    for section in (SplitRatios, Categories):  # a key per domain, in their order
        assert tuple(section.model_fields) == DOMAINS
    plots = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["plots"]
    (split_plot,) = [p["${split.plot}"] for p in plots if "${split.plot}" in p]
    assert split_plot["y"] == [*DOMAINS, "test"]


def test_a_per_domain_section_must_name_every_domain():
    with pytest.raises(ValueError, match="must name in_domain, out_of_domain, learner"):
        per_domain(int, "a number", {IN_DOMAIN: 1, OUT_OF_DOMAIN: 2})


def test_no_stage_keeps_a_copy_of_a_vocabulary():
    """No string in the code packages is a domain or a category (in any case), outside the
    two files that define them: a stage that wrote ``"Hallucination"`` or ``"learner"``
    again would keep its own list beside the params'."""
    words = {*DOMAINS, *rucola_categories().all(), *(c.lower() for c in rucola_categories().all())}
    found = []
    for folder in CODE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in DEFINED_IN:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                copy = isinstance(node, ast.Constant) and node.value in words
                if copy and (name, node.value) not in NOT_A_COPY:
                    found.append(f"{name}:{node.lineno}: {node.value!r}")
    assert not found, "copies of a vocabulary:\n" + "\n".join(found)


@pytest.mark.parametrize("key", ["extract.error_types", "validate.error_types"])
def test_an_old_params_file_is_told_the_key_that_replaced_its_categories(run_cli, tmp_path, key):
    section, name = key.split(".")
    text = f"{section}:\n  {name}: [Morphology, Syntax, Semantics]\n"
    (tmp_path / "params.yaml").write_text(identity_yaml(text), encoding="utf-8")
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("validate", cwd=tmp_path)
    assert code == 1
    one_error_line(stderr, "params.yaml:2", f"{key}: removed;", "corpus.categories")
    assert snapshot(tmp_path) == before


# --- extraction ---------------------------------------------------------------------------

SHEET = "sentence\tmark\terror_type\nМальчик читают книгу.\t*\t{}\n"


def extract(run_cli, folder: Path, category: str, params: str = "") -> tuple[int, str]:
    (folder / "in").mkdir(parents=True, exist_ok=True)
    (folder / "in/sheet.tsv").write_text(SHEET.format(category), encoding="utf-8")
    (folder / "params.yaml").write_text(
        identity_yaml(f"extract:\n  sources: [{{path: in/sheet.tsv}}]\n{params}"), encoding="utf-8"
    )
    code, _, stderr = run_cli("extract", cwd=folder)
    return code, stderr


def test_extraction_refuses_a_category_outside_the_rows_domain(run_cli, tmp_path):
    """An in-domain row with Hallucination (RuCoLA's: out of domain only)."""
    code, stderr = extract(run_cli, tmp_path, "Hallucination")
    assert code == 1
    line = one_error_line(stderr, "sheet.tsv:2", "invalid error_type 'Hallucination'")
    assert "Morphology, Semantics, Syntax" in line  # the in-domain list, as the hint gives it


def test_extraction_reads_the_categories_from_params(run_cli, tmp_path):
    own = "corpus:\n  categories:\n    in_domain: [Grammar, Hallucination]\n"
    code, stderr = extract(run_cli, tmp_path / "a", "grammar", own)
    assert code == 0, stderr
    rows = pd.read_parquet(tmp_path / "a/data/interim/in_domain.parquet")
    assert rows["error_type"].tolist() == ["Grammar"]  # the params' spelling
    code, stderr = extract(run_cli, tmp_path / "b", "Syntax", own)
    assert code == 1
    one_error_line(stderr, "sheet.tsv:2", "invalid error_type 'Syntax'", "Grammar, Hallucination")


def test_the_m2_mapping_is_checked_against_the_learner_list(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("corpus:\n  categories:\n    learner: [Syntax, Semantics]\n"),
        encoding="utf-8",
    )
    code, _, stderr = run_cli("validate", cwd=tmp_path)
    assert code == 1 and "Traceback" not in stderr
    # every edit type mapped to Morphology is named, one line each (issue 45: all at once)
    lines = stderr.strip().splitlines()
    named = [re.search(r"m2\.categories\['([^']+)'\]", line) for line in lines]
    assert [m.group(1) if m else line for m, line in zip(named, lines, strict=True)] == [
        "G:*",
        "L:MORPH",
        "L:MULTIMORPH",
    ], stderr
    for line in lines:
        assert line.startswith("error: params.yaml:") and "maps to 'Morphology'" in line, line
        assert "not in corpus.categories.learner" in line, line


# --- annotation ---------------------------------------------------------------------------


def test_the_stage2_form_is_the_out_of_domain_list():
    form = Stage2Form.of(params_with({OUT_OF_DOMAIN: ["Syntax", "Grammar"]}).corpus.categories)
    assert form.fields == ["syntax", "grammar", "other", "no_violation", "not_sure"]
    config = label_config(2, form=form)
    assert '"grammar"' in config and "hallucination" not in config
    votes = pd.DataFrame({"task": ["t1"] * 3 + ["t2"] * 3, "label": ["grammar"] * 3 + ["x"] * 3})
    decided = aggregate_stage2(votes, 3, form).set_index("task")
    assert decided.loc["t1", "error_type"] == "Grammar"
    assert decided.loc["t2", "reason"] == "no_category_majority"  # no checkbox of the form


def test_label_config_for_stage2_needs_the_params_form():
    with pytest.raises(ValueError, match="stage 2 needs its form"):
        label_config(2)


# --- validation ---------------------------------------------------------------------------


def test_validation_takes_the_domain_rules_from_the_params():
    """One check per category that only some domains allow, named after them."""
    from rucola.validation.suite import row_checks

    def names(params: Params) -> set[str]:
        return {c.name for c in row_checks(params)}

    assert {
        "error_type: one of Morphology, Syntax, Semantics, Hallucination",
        "error_type: Hallucination only out of domain",
    } <= names(rucola_params())
    own = names(params_with({IN_DOMAIN: ["Syntax", "Hallucination"], LEARNER: ["Hallucination"]}))
    assert {
        "error_type: one of Syntax, Hallucination, Morphology, Semantics",
        "error_type: Syntax only in domain or out of domain",
        "error_type: Morphology only out of domain",
        "error_type: Semantics only out of domain",
    } <= own
    assert not [n for n in own if n.startswith("error_type: Hallucination only")]


def test_the_audit_rules_follow_the_params():
    from rucola.curation.categories import rule_findings

    rows = pd.DataFrame(
        [("a", 0, "Hallucination", IN_DOMAIN), ("b", 0, "Hallucination", LEARNER)],
        columns=["sentence", "label", "error_type", "domain"],
    )
    assert rule_findings(rows, rucola_categories()) == {
        0: ["Hallucination outside out_of_domain"],
        1: ["Hallucination outside out_of_domain"],
    }
    own = params_with({IN_DOMAIN: ["Hallucination"]}).corpus.categories
    assert rule_findings(rows, own) == {1: ["Hallucination outside in_domain, out_of_domain"]}


def test_the_card_counts_the_params_categories():
    from rucola.release.card import source_rows

    frame = pd.DataFrame(
        {
            "split": ["train"] * 3,
            "detailed_source": ["Book"] * 3,
            "domain": [IN_DOMAIN] * 3,
            "label": [1, 0, 0],
            "error_type": [None, "Grammar", "Syntax"],
        }
    )
    categories = params_with({IN_DOMAIN: ["Grammar", "Syntax"]}).corpus.categories.all()
    (row,) = source_rows(frame, categories)
    assert row["shares"][:2] == ["50.0%", "50.0%"]
    assert json.dumps(row)  # plain data, as the template takes it
