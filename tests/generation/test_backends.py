"""Every method through both backends on tiny random-weight models, offline."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import torch

from rucola.generation.stage import generate
from rucola.settings import Decoding, Generate, ModelGenerator

BACKENDS = ["transformers", "ctranslate2"]
SHORT = {"max_new_tokens": 8}


def typed(g: dict) -> Generate:
    """The ``generate`` section a test wrote, as the stage receives it."""
    return Generate.model_validate(g)


def _run(tmp_path, sources, generate_params, generator: dict, name: str = "g") -> list[dict]:
    g = generate_params(tmp_path, sources, {name: generator})
    report = generate(name, typed(g))
    rows = pq.read_table(tmp_path / f"candidates/{name}.parquet").to_pylist()
    assert report["candidates"] == len(rows)
    dropped = sum(report["outputs"]["dropped"].values())
    width = generator.get("decoding", {}).get("num_return_sequences", 1)
    assert report["outputs"]["total"] == report["inputs"] * width
    assert len(rows) + dropped == report["outputs"]["total"]  # nothing lost uncounted
    assert report["read"] == report["kept"] + sum(report["set_aside"].values())
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("family", ["marian", "m2m", "mbart"])
def test_translation(tmp_path: Path, sources, generate_params, tiny_models, backend, family):
    model = str(tiny_models[family])
    generator = {
        "method": "translation",
        "model": model,
        "backend": backend,
        "sources": ["Par"],
        "decoding": {"strategy": "beam", "num_beams": 2, **SHORT},
    }
    rows = _run(tmp_path, sources, generate_params, generator)
    assert rows, "a random model still writes tokens"
    assert {r["generator"] for r in rows} == {model}
    assert {r["method"] for r in rows} == {"translation"}
    assert {r["source_sentence"] for r in rows} <= {
        "The cat sat on the mat.",
        "She reads a book every day.",
        "We went home in the evening.",
        "The old bridge was built long ago.",
    }
    assert not any(r["sentence"].startswith(("__ru__", "ru_RU")) for r in rows)


@pytest.mark.parametrize("backend", BACKENDS)
def test_back_translation(tmp_path: Path, sources, generate_params, tiny_models, backend):
    generator = {
        "method": "back_translation",
        "model": str(tiny_models["marian"]),
        "pivot_model": str(tiny_models["marian_back"]),
        "backend": backend,
        "sources": ["Wiki"],
        "decoding": {"strategy": "greedy", **SHORT},
    }
    rows = _run(tmp_path, sources, generate_params, generator)
    assert rows
    assert {r["generator"] for r in rows} == {
        f"{tiny_models['marian_back']}>{tiny_models['marian']}"
    }
    assert {r["source_sentence"] for r in rows} <= {
        "Красивая девочка читает интересную книгу в парке.",
        "Он купил новый дом у старого друга.",
        "Молодой учёный получил премию за работу по физике.",
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("family", ["mt5", "gpt2"])
def test_paraphrase_with_sampling_is_seeded(
    tmp_path: Path, sources, generate_params, tiny_models, backend, family
):
    generator = {
        "method": "paraphrase",
        "model": str(tiny_models[family]),
        "backend": backend,
        "sources": ["Wiki"],
        "prefix": "paraphrase: " if family == "mt5" else "",
        "decoding": {"strategy": "sampling", "top_p": 0.95, "num_return_sequences": 2, **SHORT},
    }
    first = _run(tmp_path / "a", sources, generate_params, generator)
    again = _run(tmp_path / "b", sources, generate_params, generator)
    other = _run(tmp_path / "c", sources, generate_params, {**generator, "seed": 7})
    assert first and first == again
    assert [r["sentence"] for r in first] != [r["sentence"] for r in other]
    if family == "gpt2":  # continuation: the prompt is the first half of the source
        for row in first:
            prompt = " ".join(row["source_sentence"].split()[:4])
            assert row["sentence"].startswith(prompt.split()[0])


def test_out_of_memory_splits_the_batch_and_keeps_every_output(tiny_models, monkeypatch):
    from rucola.generation.backends.transformers_backend import TransformersBackend
    from rucola.generation.models import resolve_model

    settings = ModelGenerator(
        method="translation",
        device="cpu",
        decoding=Decoding(strategy="greedy", **SHORT),
        max_batch_tokens=10_000,
    )
    model = resolve_model(str(tiny_models["marian"]), "g", "en", "ru")
    texts = [f"The cat number {i} sat on the mat." for i in range(12)]
    expected = TransformersBackend(model, "en", "ru", settings).generate(texts, 1)

    backend = TransformersBackend(model, "en", "ru", settings)
    real = backend._run_batch

    def small_memory(ids, seed):
        if len(ids) > 3:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(ids, seed)

    monkeypatch.setattr(backend, "_run_batch", small_memory)
    assert backend.generate(texts, 1) == expected
    assert backend.stats["oom_retries"] > 0
    assert backend.max_batch_tokens < 10_000


def test_ctranslate2_out_of_memory_halves_the_budget(tmp_path: Path, tiny_models, monkeypatch):
    from rucola.generation.backends.ctranslate2_backend import CTranslate2Backend
    from rucola.generation.models import resolve_model

    settings = ModelGenerator(
        method="translation", decoding=Decoding(strategy="greedy", **SHORT), max_batch_tokens=4096
    )
    model = resolve_model(str(tiny_models["marian"]), "g", "en", "ru")
    backend = CTranslate2Backend(model, "en", "ru", settings, tmp_path / "cache")
    texts = ["The cat sat on the mat.", "We went home."]
    expected = backend.generate(texts, 1)
    real = backend._run

    def small_memory(tokens):
        if backend.max_batch_tokens > 1024:
            raise RuntimeError("CUDA failed with error out of memory")
        return real(tokens)

    monkeypatch.setattr(backend, "_run", small_memory)
    assert backend.generate(texts, 1) == expected
    assert backend.stats["oom_retries"] == 2 and backend.max_batch_tokens == 1024


def test_the_generator_column_holds_the_model_as_params_name_it(
    tmp_path: Path, sources, generate_params, tiny_models, monkeypatch
):
    """A relative model path stays relative in the data (issue 33, 10): the folder it
    resolves to is this machine's layout, not the generator's name."""
    import shutil

    shutil.copytree(tiny_models["marian"], tmp_path / "models/opus-mt-tiny")
    monkeypatch.chdir(tmp_path)
    generator = {
        "method": "translation",
        "model": "models/opus-mt-tiny",
        "backend": "transformers",
        "sources": ["Par"],
        "decoding": {"strategy": "greedy", **SHORT},
    }
    rows = _run(tmp_path, sources, generate_params, generator)
    assert rows
    assert {r["generator"] for r in rows} == {"models/opus-mt-tiny"}
    report = json.loads((tmp_path / "reports/g.json").read_text(encoding="utf-8"))
    assert list(report["by_generator"]) == ["models/opus-mt-tiny"]


def test_an_alias_is_recorded_as_the_alias_not_the_cached_folder_or_id(
    tmp_path: Path, sources, generate_params, tiny_models, monkeypatch
):
    """``opus-mt`` found in the Hugging Face cache (laid out as ``hf download`` leaves it)
    is recorded as ``opus-mt``, the value params give: not the snapshot folder (a machine
    path) nor the id it expands to."""
    import shutil

    import huggingface_hub.constants

    cache = tmp_path / "hf"
    repo = cache / "models--Helsinki-NLP--opus-mt-en-ru"
    commit = "0" * 40
    shutil.copytree(tiny_models["marian"], repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs/main").write_text(commit, encoding="utf-8")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    generator = {
        "method": "translation",
        "model": "opus-mt",
        "backend": "transformers",
        "sources": ["Par"],
        "decoding": {"strategy": "greedy", **SHORT},
    }
    rows = _run(tmp_path, sources, generate_params, generator)
    assert rows and {r["generator"] for r in rows} == {"opus-mt"}
