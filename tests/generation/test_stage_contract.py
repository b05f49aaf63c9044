"""Generate and merge-candidates on the stage contract: every source sentence and every
candidate kept or set aside with a reason, a bad input is one line naming the file, and a
run that fails half-way leaves the previous outputs as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from identity import with_identity

import rucola.generation.methods
import rucola.stage
from rucola.generation.merge import merge_candidates
from rucola.generation.stage import generate
from rucola.settings import Generate

PERTURB = {"method": "perturbation", "sources": ["Wiki"], "per_sentence": 2}


def typed(g: dict) -> Generate:
    """The ``generate`` section a test wrote, as the stage receives it."""
    return Generate.model_validate(g)


def adds_up(report: dict) -> None:
    assert {"read", "kept", "set_aside"} <= set(report)
    assert report["read"] == report["kept"] + sum(report["set_aside"].values())


def outputs_of(tmp_path: Path) -> dict[str, bytes]:
    return {
        p.relative_to(tmp_path).as_posix(): p.read_bytes()
        for p in sorted(tmp_path.rglob("*"))
        if p.is_file() and p.suffix in {".parquet", ".json"} and "work" not in p.parts
    }


def write_params(tmp_path: Path, g: dict) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(
        yaml.safe_dump(with_identity({"generate": g}), allow_unicode=True), encoding="utf-8"
    )
    return path


class FakeWorker:
    """Outputs chosen per input: one usable, none, or only the source itself."""

    def __call__(self, texts: list[str], seed: int) -> list[list[tuple[str, str]]]:
        outputs = []
        for text in texts:
            if text.startswith("Он"):
                outputs.append([])  # no output at all
            elif text.startswith("Молодой"):
                outputs.append([("m", text), ("m", " ")])  # the source again, and nothing
            else:
                outputs.append([("m", text.replace("книгу", "книга"))])
        return outputs


def test_every_source_sentence_is_kept_or_set_aside_with_a_reason(
    tmp_path: Path, sources, generate_params, monkeypatch
):
    monkeypatch.setattr(rucola.generation.methods, "make_worker", lambda cfg, cache: FakeWorker())
    (tmp_path / "copy.txt").write_bytes((tmp_path / "wiki.txt").read_bytes())
    sources = {**sources, "Copy": {"path": str(tmp_path / "copy.txt"), "format": "text"}}
    g = generate_params(
        tmp_path, sources, {"fake": {**PERTURB, "sources": ["Wiki", "Copy"]}}, shard_size=2
    )
    g["rejected_dir"] = str(tmp_path / "rejected")
    report = generate("fake", typed(g))
    adds_up(report)
    # 4 lines per file, one blank: 3 sentences each; Copy repeats Wiki, so its one usable
    # candidate is a duplicate of Wiki's
    assert report["read"] == 8 and report["kept"] == 1
    assert report["set_aside"] == {"empty": 2, "no_output": 2, "no_usable_output": 3}
    assert report["candidates"] == 1
    assert report["outputs"] == {
        "total": 6,
        "dropped": {"duplicate": 1, "empty_output": 2, "same_as_source": 2},
    }
    aside = pq.read_table(tmp_path / "rejected/fake.parquet").to_pandas()
    assert aside.columns[:4].tolist() == ["stage", "reason", "detail", "origin"]
    assert len(aside) == 7 and set(aside["stage"]) == {"generate"}
    usable = aside[aside["reason"] == "no_usable_output"]
    same = "empty_output: 1, same_as_source: 1"
    assert sorted(zip(usable["detailed_source"], usable["detail"], strict=True)) == [
        ("Copy", "duplicate"),
        ("Copy", same),
        ("Wiki", same),
    ]
    assert set(aside["origin"].str.rsplit(":", n=1).str[0]) == {
        str(tmp_path / "wiki.txt"),
        str(tmp_path / "copy.txt"),
    }
    written = json.loads((tmp_path / "reports/fake.json").read_text(encoding="utf-8"))
    assert written == {k: v for k, v in report.items() if k != "seconds"}


def test_sampled_and_skipped_sentences_are_counted(tmp_path: Path, sources, generate_params):
    sources["Wiki"]["n"] = 2
    g = generate_params(tmp_path, sources, {"rules": PERTURB})
    report = generate("rules", typed(g))
    adds_up(report)
    assert report["read"] == 4
    assert report["set_aside"]["empty"] == 1 and report["set_aside"]["not_sampled"] == 1
    assert report["sources"]["Wiki"] == {"read": 4, "used": 2, "empty": 1, "not_sampled": 1}


def test_a_disabled_generator_reports_nothing_read(tmp_path: Path, sources, generate_params):
    g = generate_params(tmp_path, sources, {"off": {**PERTURB, "enabled": False}})
    report = generate("off", typed(g))
    adds_up(report)
    assert report["read"] == 0 and report["enabled"] is False


def test_generate_failing_at_the_end_keeps_outputs_and_shards(
    tmp_path: Path, sources, generate_params, monkeypatch
):
    g = generate_params(tmp_path, sources, {"rules": PERTURB}, shard_size=1)
    generate("rules", typed(g))
    before = outputs_of(tmp_path)
    sources["Wiki"]["n"] = 2  # a different run: other candidates
    g = generate_params(tmp_path, sources, {"rules": PERTURB}, shard_size=1)

    def boom(report, path):
        raise RuntimeError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(rucola.stage, "write_json", boom)
        with pytest.raises(RuntimeError, match="disk full"):
            generate("rules", typed(g))
    assert outputs_of(tmp_path) == before
    assert not [p for p in tmp_path.rglob(".*") if "rucola-staged" in p.name]
    assert (tmp_path / "work/rules/manifest.json").is_file()  # resumes from its shards
    report = generate("rules", typed(g))
    assert report["shards_resumed"] == 2 and report["kept"] <= 2
    assert not (tmp_path / "work/rules").exists()


def test_merge_reports_read_kept_and_duplicates(tmp_path: Path, sources, generate_params):
    g = generate_params(
        tmp_path, sources, {"a": PERTURB, "b": PERTURB, "c": {**PERTURB, "enabled": False}}
    )
    g["merge"]["rejected"] = str(tmp_path / "merge_rejected.parquet")
    for name in ("a", "b", "c"):
        generate(name, typed(g))
    report = merge_candidates(typed(g))
    adds_up(report)
    # b is a with another name: every candidate id repeats one of a's
    assert report["read"] == 12 and report["kept"] == 6
    assert report["set_aside"] == {"duplicate": 6}
    assert report["by_generator_config"] == {"a": 6, "b": 6}
    aside = pq.read_table(tmp_path / "merge_rejected.parquet").to_pandas()
    assert set(aside["detail"]) == {"of generator a"} and set(aside["stage"]) == {
        "merge_candidates"
    }
    merged = pq.read_table(tmp_path / "candidates.parquet")
    assert merged.num_rows == 6 and len(set(merged.column("candidate_id").to_pylist())) == 6


@pytest.mark.parametrize("damage", ["truncated", "not_parquet", "empty_file"])
def test_merge_names_a_damaged_candidates_file(
    tmp_path: Path, sources, generate_params, run_cli, damage
):
    g = generate_params(tmp_path, sources, {"a": PERTURB})
    params = write_params(tmp_path, g)
    assert run_cli("generate", "a", "--params", str(params))[0] == 0
    assert run_cli("merge-candidates", "--params", str(params))[0] == 0
    before = outputs_of(tmp_path)
    path = tmp_path / "candidates/a.parquet"
    data = path.read_bytes()
    path.write_bytes(
        {
            "truncated": data[: len(data) // 2],
            "not_parquet": b"id,sentence\n1,x\n",
            "empty_file": b"",
        }[damage]
    )
    code, _, err = run_cli("merge-candidates", "--params", str(params))
    assert code == 1
    assert str(path) in err and "not a readable parquet file" in err
    assert "Traceback" not in err
    before.pop("candidates/a.parquet")
    after = outputs_of(tmp_path)
    after.pop("candidates/a.parquet")
    assert after == before


def test_merge_failing_half_way_leaves_the_previous_outputs(
    tmp_path: Path, sources, generate_params, monkeypatch
):
    g = generate_params(tmp_path, sources, {"a": PERTURB, "b": {**PERTURB, "per_sentence": 1}})
    generate("a", typed(g))
    generate("b", typed(g))
    merge_candidates(typed(g))
    merged = {p: (tmp_path / p).read_bytes() for p in ("candidates.parquet", "c.json")}
    g["generators"]["b"]["per_sentence"] = 2  # new candidates that a merge would take
    generate("b", typed(g))

    def boom(report, path):
        raise RuntimeError("disk full")

    monkeypatch.setattr(rucola.stage, "write_json", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        merge_candidates(typed(g))
    assert {p: (tmp_path / p).read_bytes() for p in merged} == merged
    assert not [p for p in tmp_path.rglob(".*") if "rucola-staged" in p.name]
