"""The corpus row stages on the stage contract, through the real command line: a truncated
or foreign input is one line naming it (exit 1), and a run that fails half-way leaves the
previous outputs as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.corpus import schema
from rucola.io import write_parquet

SENTENCES = [
    "Мальчик читает интересную книгу каждый день.",
    "Мальчик читает.",
    "Девочка пишет длинное письмо бабушке.",
    "Девочка пишет длинное письмо бабушке!",
]


def rows(n: int = len(SENTENCES)) -> pa.Table:
    """Corpus rows as extract writes them."""
    frame = {name: [None] * n for name in schema.BASE_COLUMNS}
    frame |= {
        "sentence": SENTENCES[:n],
        "label": [1, 1, 0, 0][:n],
        "error_type": [None, None, "Syntax", "Syntax"][:n],
        "domain": [schema.IN_DOMAIN, schema.IN_DOMAIN, schema.OUT_OF_DOMAIN, schema.OUT_OF_DOMAIN][
            :n
        ],
        "detailed_source": ["A"] * n,
        "mark": [""] * n,
        "group": [f"g{i}" for i in range(n)],
        "origin": [f"a.tsv:{i + 2}" for i in range(n)],
    }
    return pa.Table.from_pydict(frame, schema=schema.BASE_SCHEMA)


def measured() -> pa.Table:
    table = rows()
    tokens = [7, 3, 6, 6]
    ipm = [[100.0] * (t - 1) for t in tokens]
    return table.append_column("n_tokens", pa.array(tokens, pa.int64())).append_column(
        "word_ipm", pa.array(ipm, pa.list_(pa.float32()))
    )


def project(tmp_path: Path) -> Path:
    """A working folder with an empty params file: every path is the default one."""
    (tmp_path / "params.yaml").write_text(identity_yaml(""), encoding="utf-8")
    return tmp_path


def corrupt(path: Path, how: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "truncated":
        write_parquet(measured(), path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:  # a CSV that was given a parquet name
        path.write_text("sentence,label\nМальчик читает.,1\n", encoding="utf-8")
    return path


STAGES = {
    # command, the input it reads (default params), its outputs
    "measure": (["measure"], "data/interim/combined.parquet", ["data/interim/measured.parquet"]),
    "filter": (
        ["filter"],
        "data/interim/measured.parquet",
        ["data/interim/filtered.parquet", "reports/filter.json"],
    ),
    "screen": (
        ["screen"],
        "data/interim/candidates_measured.parquet",
        ["data/interim/screened.parquet", "reports/screen.json"],
    ),
    "split": (["split"], "data/interim/filtered.parquet", ["data/interim/split.parquet"]),
    "annotate corpus (in-domain)": (
        ["annotate", "corpus"],
        "data/interim/in_domain.parquet",
        ["data/interim/combined.parquet"],
    ),
    "annotate corpus (annotated)": (
        ["annotate", "corpus"],
        "data/interim/annotated.parquet",
        ["data/interim/combined.parquet"],
    ),
    "annotate corpus (candidates)": (
        ["annotate", "corpus"],
        "data/interim/candidates.parquet",
        ["data/interim/combined.parquet"],
    ),
}


def good_inputs(folder: Path) -> None:
    """Readable versions of every input the stages above read."""
    write_parquet(rows(), folder / "data/interim/in_domain.parquet")
    write_parquet(rows(), folder / "data/interim/combined.parquet")
    write_parquet(measured(), folder / "data/interim/measured.parquet")
    write_parquet(measured(), folder / "data/interim/candidates_measured.parquet")
    write_parquet(rows(), folder / "data/interim/filtered.parquet")
    write_parquet(
        pa.table(
            {
                "candidate_id": ["c1"],
                "sentence": ["Кошка спит."],
                "detailed_source": ["T"],
                "generator": ["g"],
                "method": ["translation"],
            }
        ),
        folder / "data/interim/candidates.parquet",
    )
    write_parquet(
        pa.table({"id": ["c1"], "label": [1], "error_type": [None], "status": ["labelled"]}),
        folder / "data/interim/annotated.parquet",
    )


@pytest.mark.parametrize("how", ["truncated", "foreign"])
@pytest.mark.parametrize("stage", list(STAGES))
def test_a_bad_input_exits_1_naming_the_file(run_cli, tmp_path, stage, how):
    folder = project(tmp_path)
    command, bad, outputs = STAGES[stage]
    good_inputs(folder)
    corrupt(folder / bad, how)
    before = snapshot(folder)
    code, stdout, stderr = run_cli(*command, cwd=folder)
    assert code == 1, stdout + stderr
    assert f"{bad}: " in stderr and "is not a readable parquet file" in stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stdout + stderr
    assert snapshot(folder) == before  # nothing written, nothing replaced
    assert not any((folder / out).exists() for out in outputs if out not in before)


def test_a_missing_input_names_the_file_and_the_stage_to_run(run_cli, tmp_path):
    folder = project(tmp_path)
    code, _, stderr = run_cli("split", cwd=folder)
    assert code == 1
    assert "data/interim/filtered.parquet: input not found" in stderr
    assert "rucola filter" in stderr


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_filter_failing_at_its_report_leaves_the_previous_outputs_untouched(
    run_cli, tmp_path, monkeypatch
):
    folder = project(tmp_path)
    write_parquet(measured(), folder / "data/interim/measured.parquet")
    code, stdout, stderr = run_cli("filter", cwd=folder)
    assert code == 0, stderr
    report = json.loads((folder / "reports/filter.json").read_text(encoding="utf-8"))
    assert report["read"] == 4 and report["kept"] == 2
    assert report["set_aside"] == {"near_duplicate": 1, "too_few_tokens": 1}
    assert "filter: 4 read, 2 kept, 2 set aside" in stdout
    rejected = pq.read_table(folder / "data/interim/rejected/filter.parquet")
    assert rejected.schema.names[:5] == ["stage", "reason", "detail", "origin", "raw"]
    assert {"n_tokens", "high_freq_share"} <= set(rejected.schema.names)
    assert rejected.column("detail").to_pylist() == [None, "a.tsv:4"]  # the row repeated
    before = snapshot(folder)

    def broken_report(*args, **kwargs):  # the last thing a run writes (the plot is split's)
        raise RuntimeError("matplotlib fell over")

    monkeypatch.setattr("rucola.stage.write_json", broken_report)
    write_parquet(measured().slice(0, 1), folder / "data/interim/measured.parquet")
    before["data/interim/measured.parquet"] = (
        folder / "data/interim/measured.parquet"
    ).read_bytes()
    with pytest.raises(RuntimeError, match="matplotlib"):
        run_cli("filter", cwd=folder)
    assert snapshot(folder) == before  # outputs, set-aside rows, plots, report: as they were


def test_screen_names_itself_in_the_set_aside_rows_and_keeps_candidate_columns(run_cli, tmp_path):
    folder = project(tmp_path)
    write_parquet(rows(1), folder / "data/interim/in_domain.parquet")
    candidates = pa.table(
        {
            "sentence": [SENTENCES[0], "Кот спит.", "Кошка долго спит на тёплом окне."],
            "candidate_id": ["c1", "c2", "c3"],
            "generator": ["g", "g", "g"],
            "n_tokens": [7, 3, 7],
            "word_ipm": pa.array([[100.0] * 6, [100.0] * 2, [100.0] * 6], pa.list_(pa.float32())),
        }
    )
    write_parquet(candidates, folder / "data/interim/candidates_measured.parquet")
    code, stdout, stderr = run_cli("screen", cwd=folder)
    assert code == 0, stderr
    assert "screen: 3 read, 1 kept, 2 set aside (duplicate 1, too_few_tokens 1)" in stdout
    rejected = pq.read_table(folder / "data/interim/rejected/screen.parquet").to_pylist()
    assert [(r["stage"], r["reason"], r["origin"], r["candidate_id"]) for r in rejected] == [
        ("screen", "too_few_tokens", "c2", "c2"),
        ("screen", "duplicate", "c1", "c1"),
    ]
    assert rejected[1]["detail"] == "a.tsv:2"
    kept = pq.read_table(folder / "data/interim/screened.parquet")
    assert kept.column("candidate_id").to_pylist() == ["c3"] and "origin" not in kept.column_names


@pytest.mark.slow
def test_measure_and_split_report_every_row_kept(run_cli, tmp_path):
    folder = project(tmp_path)
    write_parquet(rows(), folder / "data/interim/combined.parquet")
    code, stdout, stderr = run_cli("measure", "--out", "data/interim/measured.parquet", cwd=folder)
    assert code == 0, stderr
    assert "measure: 4 sentences" in stdout
    write_parquet(rows(), folder / "data/interim/filtered.parquet")
    code, _, stderr = run_cli("split", cwd=folder)
    assert code == 0, stderr
    report = json.loads((folder / "reports/split.json").read_text(encoding="utf-8"))
    assert (report["read"], report["kept"], report["set_aside"]) == (4, 4, {})
