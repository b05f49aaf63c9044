"""Every registered generation method keeps the stage's promises, run on the tiny
random-weight models with its own ``example`` generator (``GenerationMethod.example``), so
a new method meets them without a test of its own: each source sentence kept or set aside
and counted, every candidate recorded with its method, the same seed giving the same
candidates, its settings model refusing a key that is not its own with one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from pydantic import ValidationError

from rucola.generation.stage import generate
from rucola.registry import GENERATION_METHODS
from rucola.settings import Generate
from rucola.settings.problems import problems_of

METHODS = GENERATION_METHODS.names()


def example(name: str, tiny_models: dict[str, Path]) -> dict[str, Any]:
    """The method's example generator, its model placeholders (``{marian}``) filled with
    the tiny models, short outputs where it decodes."""
    method = GENERATION_METHODS[name]
    generator = {
        key: value.format(**{k: str(v) for k, v in tiny_models.items()})
        if isinstance(value, str)
        else value
        for key, value in method.example.items()
    }
    if "decoding" in method.Settings.model_fields:
        generator["decoding"] = {"strategy": "greedy", "max_new_tokens": 8}
    return generator


def run(tmp_path: Path, sources, generate_params, generator: dict) -> tuple[dict, list[dict]]:
    g = generate_params(tmp_path, sources, {"g": generator})
    report = generate("g", Generate.model_validate(g))
    rows = pq.read_table(tmp_path / "candidates/g.parquet").to_pylist()
    return report, rows


def test_the_registry_holds_the_four_methods():
    assert {"translation", "back_translation", "paraphrase", "perturbation"} <= set(METHODS)


@pytest.mark.slow
@pytest.mark.parametrize("name", METHODS)
def test_its_example_runs_counts_every_sentence_and_repeats_itself(
    tmp_path: Path, sources, generate_params, tiny_models, name: str
):
    generator = example(name, tiny_models)
    report, rows = run(tmp_path / "a", sources, generate_params, generator)
    again, rows_again = run(tmp_path / "b", sources, generate_params, generator)
    assert report["read"] == report["kept"] + sum(report["set_aside"].values()), report
    assert report["candidates"] == len(rows)
    assert {r["method"] for r in rows} <= {name}
    assert rows == rows_again and report["candidates"] == again["candidates"]


@pytest.mark.parametrize("name", METHODS)
def test_its_model_is_chosen_by_method_and_refuses_a_key_of_no_method(name: str, tiny_models):
    generator = {**example(name, tiny_models), "sources": ["Wiki"]}
    checked = Generate.model_validate({"sources": {}, "generators": {"g": generator}})
    assert type(checked.generators["g"]) is GENERATION_METHODS[name].Settings
    with pytest.raises(ValidationError) as caught:
        Generate.model_validate({"generators": {"g": {**generator, "no_such_key": 1}}})
    problem = problems_of(caught.value, Generate)[0]
    assert problem.text.startswith("generators.g.no_such_key: unknown parameter"), problem.text


def test_an_unknown_method_names_the_known_ones():
    with pytest.raises(ValidationError) as caught:
        Generate.model_validate({"generators": {"g": {"method": "nonsense", "sources": []}}})
    text = problems_of(caught.value, Generate)[0].text
    assert "nonsense" in text and all(name in text for name in METHODS), text
