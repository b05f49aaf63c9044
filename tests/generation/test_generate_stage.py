"""The generate stage end to end: candidates file, report, resume, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from identity import with_identity

from rucola.generation.schema import CANDIDATE_SCHEMA
from rucola.generation.stage import generate
from rucola.io import stable_hash
from rucola.settings import Generate

PERTURB = {"method": "perturbation", "sources": ["Wiki"], "per_sentence": 2}


def typed(g: dict) -> Generate:
    """The ``generate`` section a test wrote, as the stage receives it."""
    return Generate.model_validate(g)


def test_perturbation_candidates_follow_the_schema(tmp_path: Path, sources, generate_params):
    g = generate_params(tmp_path, sources, {"rules": PERTURB})
    report = generate("rules", typed(g))
    table = pq.read_table(tmp_path / "candidates/rules.parquet")
    assert table.schema.names == CANDIDATE_SCHEMA.names
    rows = table.to_pylist()
    assert len(rows) == report["candidates"] == 6
    for row in rows:
        assert row["method"] == "perturbation" and row["detailed_source"] == "Wiki"
        assert row["candidate_id"] == stable_hash(
            row["sentence"], row["generator"], row["source_sentence"]
        )
        assert row["sentence"] != row["source_sentence"] and row["seed"] == 42
    assert report["sources"]["Wiki"] == {"read": 4, "used": 3, "empty": 1}
    assert not (tmp_path / "work/rules").exists()


def test_reruns_are_byte_identical(tmp_path: Path, sources, generate_params):
    g = generate_params(tmp_path, sources, {"rules": PERTURB})
    generate("rules", typed(g))
    first = (tmp_path / "candidates/rules.parquet").read_bytes()
    generate("rules", typed(g))
    assert (tmp_path / "candidates/rules.parquet").read_bytes() == first


def test_a_killed_run_resumes_and_matches_an_uninterrupted_one(
    tmp_path: Path, sources, generate_params
):
    whole = generate_params(tmp_path / "a", sources, {"rules": PERTURB}, shard_size=1)
    generate("rules", typed(whole))
    expected = (tmp_path / "a/candidates/rules.parquet").read_bytes()

    g = generate_params(tmp_path / "b", sources, {"rules": PERTURB}, shard_size=1)
    partial = generate("rules", typed(g), stop_after=2)
    assert partial == {"generator": "rules", "complete": False, "shards_done": 2}
    assert not (tmp_path / "b/candidates/rules.parquet").exists()
    # A torn shard (written, not recorded) is redone rather than trusted.
    (tmp_path / "b/work/rules/shard-00002.parquet").write_bytes(b"torn")
    report = generate("rules", typed(g))
    assert report["shards_resumed"] == 2
    assert (tmp_path / "b/candidates/rules.parquet").read_bytes() == expected


def test_changed_settings_start_afresh(tmp_path: Path, sources, generate_params):
    g = generate_params(tmp_path, sources, {"rules": PERTURB}, shard_size=1)
    generate("rules", typed(g), stop_after=1)
    g["generators"]["rules"] = {**PERTURB, "per_sentence": 1}
    report = generate("rules", typed(g))
    assert report["shards_resumed"] == 0 and report["candidates"] == 3


def test_disabled_generator_writes_an_empty_file(tmp_path: Path, sources, generate_params):
    g = generate_params(tmp_path, sources, {"off": {**PERTURB, "enabled": False}})
    assert generate("off", typed(g))["enabled"] is False
    assert pq.read_table(tmp_path / "candidates/off.parquet").num_rows == 0


def _write_params(build, tmp_path: Path, sources: dict, generators: dict) -> Path:
    g = build(tmp_path, sources, generators)
    path = tmp_path / "params.yaml"
    path.write_text(
        yaml.safe_dump(with_identity({"generate": g}), allow_unicode=True), encoding="utf-8"
    )
    return path


def test_cli_generate_and_merge(tmp_path: Path, sources, generate_params, run_cli):
    params = _write_params(
        generate_params,
        tmp_path,
        sources,
        {
            "a": PERTURB,
            "b": {**PERTURB, "per_sentence": 1, "seed": 7},
            "c": {**PERTURB, "enabled": False},
        },
    )
    for name in ("a", "b", "c"):
        code, out, err = run_cli("generate", name, "--params", str(params))
        assert code == 0, err
    code, out, err = run_cli("merge-candidates", "--params", str(params))
    assert code == 0, err
    merged = pq.read_table(tmp_path / "candidates.parquet").to_pylist()
    # b repeats one of a's candidates (same rule, same output): one id, kept once
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert report["read"] == 9 and report["set_aside"] == {"duplicate": 1}
    assert len(merged) == report["kept"] == 8
    assert len({r["candidate_id"] for r in merged}) == 8
    assert {r["seed"] for r in merged} == {42, 7}


@pytest.mark.parametrize(
    ("generator", "message"),
    [
        (
            {"method": "translation", "model": "./models/nowhere", "sources": ["Par"]},
            "model folder not found",
        ),
        (
            {"method": "translation", "model": "opus-mt-xx", "sources": ["Par"]},
            "unknown model alias",
        ),
        (
            {"method": "translation", "model": "org/not-cached", "sources": ["Par"]},
            "org/not-cached: generator 'broken': model folder not found",
        ),
        (
            {"method": "translation", "model": "opus-mt", "sources": ["Par"]},
            "alias 'opus-mt' is model 'Helsinki-NLP/opus-mt-en-ru', which is not in the local",
        ),
        ({"method": "perturbation", "sources": ["Nope"]}, "unknown source 'Nope'"),
        ({"method": "perturbation", "sources": ["Wiki"], "top_p": 0.9}, "unknown parameter"),
        ({"method": "perturbation", "sources": ["Bad"]}, "missing column"),
        ({"method": "perturbation", "sources": ["Empty"]}, "has no sentences"),
        ({"method": "perturbation", "sources": ["Mis"]}, "misaligned pair"),
        ({"method": "paraphrase", "sources": ["Wiki"]}, "needs a model"),
    ],
)
def test_bad_input_exits_1_naming_generator_and_leaves_no_file(
    tmp_path: Path, sources, generate_params, run_cli, generator, message, monkeypatch
):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    (tmp_path / "bad.tsv").write_text("id\ten\n1\tHello there.\n", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("\n", encoding="utf-8")
    sources = {
        **sources,
        "Bad": {"path": str(tmp_path / "bad.tsv")},
        "Empty": {"path": str(tmp_path / "empty.txt")},
        "Mis": {"path": str(tmp_path / "mis.ru")},
    }
    (tmp_path / "mis.ru").write_text("Один.\nДва.\n", encoding="utf-8")
    (tmp_path / "mis.en").write_text("One.\n", encoding="utf-8")
    params = _write_params(generate_params, tmp_path, sources, {"broken": generator})
    code, out, err = run_cli("generate", "broken", "--params", str(params))
    assert code == 1
    assert message in err
    assert "generator 'broken'" in err or "generators.broken." in err
    assert not (tmp_path / "candidates/broken.parquet").exists()
    # no partial output: not even the shard folder's manifest (issue 33, 10)
    assert not (tmp_path / "work").exists(), sorted((tmp_path / "work").rglob("*"))
    if generator.get("model") != "opus-mt":  # only an alias is a Hugging Face name for sure
        assert "hf download" not in err


def test_a_missing_relative_model_folder_is_named_as_a_local_path(
    tmp_path: Path, sources, generate_params, run_cli, monkeypatch
):
    """``models/opus-mt-en-ru`` also reads as an ``org/name`` id; with no ``models/`` folder
    it is still a local path that is missing, not something to download."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.chdir(tmp_path)
    generator = {"method": "translation", "model": "models/opus-mt-en-ru", "sources": ["Par"]}
    params = _write_params(generate_params, tmp_path, sources, {"broken": generator})
    code, out, err = run_cli("generate", "broken", "--params", str(params))
    assert code == 1
    assert err.startswith("error: models/opus-mt-en-ru: generator 'broken': model folder not")
    assert "local paths" in err and "hf download" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "work").exists()


def test_model_output_with_control_characters_is_dropped_and_counted():
    from rucola.generation.config import GeneratorConfig
    from rucola.generation.stage import Item, _rows
    from rucola.settings import ModelGenerator

    cfg = GeneratorConfig("g", ModelGenerator(method="translation", sources=["S"]), 42)
    items = [Item("S", "Кошка спит.", "Кошка спит.")]
    outputs = [[("m", "Кошка\x00 спит дома."), ("m", "Кошка\u202e спит."), ("m", "Кот спит.")]]
    table, dropped = _rows(cfg, items, outputs)
    assert table.column("sentence").to_pylist() == ["Кот спит."]
    assert dropped == {"control_character": 1, "non_printing_character": 1}


def test_merge_out_takes_its_companions_beside_it(
    tmp_path: Path, sources, generate_params, run_cli
):
    """A trial merge (``--out`` alone) writes its report and set-aside rows beside the
    trial file, so the pipeline's own report is never overwritten."""
    params = _write_params(generate_params, tmp_path, sources, {"a": PERTURB})
    assert run_cli("generate", "a", "--params", str(params))[0] == 0
    trial = tmp_path / "trial" / "merged.parquet"
    code, _, err = run_cli("merge-candidates", "--out", str(trial), "--params", str(params))
    assert code == 0, err
    assert trial.is_file()
    assert (trial.parent / "c.json").is_file()
    assert (trial.parent / "rejected_candidates.parquet").is_file()
    assert not (tmp_path / "candidates.parquet").exists() and not (tmp_path / "c.json").exists()


def test_an_unknown_engine_is_one_line_naming_the_option(
    tmp_path: Path, sources, generate_params, run_cli
):
    params = _write_params(generate_params, tmp_path, sources, {"a": PERTURB})
    code, _, err = run_cli("generate", "a", "--engine", "spark", "--params", str(params))
    assert code == 1 and "Traceback" not in err
    assert err.strip().startswith("error: --engine:") and "'local' or 'ray'" in err
    assert not (tmp_path / "candidates").exists()


@pytest.mark.parametrize(
    ("decoding", "message"),
    [
        ({"strategy": "beam", "num_beams": 2, "num_return_sequences": 3}, "cannot exceed"),
        ({"strategy": "greedy", "num_return_sequences": 2}, "greedy decoding returns one"),
        ({"max_new_tokens": 4, "min_new_tokens": 5}, "min_new_tokens > max_new_tokens"),
    ],
)
def test_decoding_keys_that_contradict_each_other_are_refused(decoding, message):
    from rucola.errors import RucolaError
    from rucola.generation.backends.base import checked_decoding, width
    from rucola.settings import Decoding

    with pytest.raises(RucolaError, match=message) as info:
        checked_decoding(Decoding.model_validate(decoding), "g")
    assert "generator 'g'" in info.value.message
    sampled = checked_decoding(Decoding(strategy="sampling", num_return_sequences=3), "g")
    assert sampled.num_beams == 1 and width(sampled) == 3  # beams only for beam search
