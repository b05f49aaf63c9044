"""Errata: published rows corrected, relabelled, recategorised or removed by the split stage.

The refusals (each one line naming the errata file and line) are tried in
``tests/guarantees/test_guard_errata.py``; here, what a good errata file does.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from errata_rows import split_input, write_errata, write_project
from identity import rucola_categories

from rucola.corpus.errata import ErrataOptions, read_errata, summary_line
from rucola.corpus.split import run_split
from rucola.corpus.tokens import tokenize
from rucola.errors import RucolaError
from rucola.params import load_settings


def run(folder: Path, *lines: str, frame: pd.DataFrame | None = None) -> dict:
    """The split stage of ``write_project(folder)`` (its rows, or ``frame``) with one
    errata file of ``lines``, run in ``folder`` as ``rucola split`` is in a project."""
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.chdir(folder):
        errata = write_errata(Path("errata.csv"), *lines) if lines else None
        params = load_settings(write_project(Path(), [str(errata)] if errata else []))
        if frame is not None:
            frame.to_parquet("in.parquet")
        return run_split(params.split, "in.parquet", ErrataOptions.from_params(params))


def rows(folder: Path) -> pd.DataFrame:
    frame = pq.read_table(folder / "out/split.parquet").to_pandas().astype(object)
    frame = frame.where(frame.notna(), None)
    return frame.set_index(["split", "domain", "id"], drop=False)


GOOD = [
    "train,in_domain,1,label,1,reported by a user: the verb agrees",
    "train,in_domain,0,label,0,a typo made it wrong",
    "train,in_domain,0,error_type,Syntax,a typo made it wrong",
    "train,in_domain,3,error_type,Morphology,agreement is morphology",
    'train,in_domain,2,sentence,"Собака  громко лает\u00a0во дворе ночью.",the source lost a word',
    "validation,in_domain,0,remove,,not a sentence of Russian",
    "test,,1,label,1,expert review",
    "test,,0,sentence,Дети играют в большом саду.,OCR",
]


def test_errata_change_the_rows_they_name_and_nothing_else(tmp_path):
    report = run(tmp_path, *GOOD)
    out = rows(tmp_path)
    before = split_input().set_index("sentence")
    # relabelled to 1: the category cleared; to 0: the category of its own erratum
    row = out.loc[("train", "in_domain", 1)]
    assert (row["label"], row["error_type"]) == (1, None)
    row = out.loc[("train", "in_domain", 0)]
    assert (row["label"], row["error_type"]) == (0, "Syntax")
    assert out.loc[("train", "in_domain", 3), "error_type"] == "Morphology"
    # the corrected text is normalised and its tokens counted as measure counts them
    row = out.loc[("train", "in_domain", 2)]
    assert row["sentence"] == "Собака громко лает во дворе ночью."
    assert row["n_tokens"] == len(tokenize(row["sentence"])) == 7
    # the removed row is set aside with the erratum's reason
    assert ("validation", "in_domain", 0) not in out.index
    rejected = pq.read_table(tmp_path / "out/rejected.parquet").to_pandas()
    assert rejected[["stage", "reason", "detail", "sentence"]].values.tolist() == [
        ["split", "erratum", "not a sentence of Russian", "Мама мыла раму утром."]
    ]
    assert (rejected.at[0, "published_split"], rejected.at[0, "published_id"]) == (
        "validation",
        0,
    )
    test = out[out["split"] == "test"].set_index("id")
    assert (test.at[1, "label"], test.at[1, "error_type"]) == (1, None)
    assert test.at[0, "sentence"] == "Дети играют в большом саду." and test.at[0, "label"] == -1
    # every other row as it was
    untouched = out[out["review"].isna()].set_index("sentence")
    assert set(untouched.index) == {"Он пошёл в магазин вчера.", "Совсем новое предложение здесь."}
    for sentence, row in untouched.iterrows():
        assert row["label"] == before.at[sentence, "label"]
        assert (
            pd.isna(row["error_type"])
            and pd.isna(before.at[sentence, "error_type"])
            or (row["error_type"] == before.at[sentence, "error_type"])
        )
    assert report["read"] == 9 and report["kept"] == 8 and report["set_aside"] == {"erratum": 1}


def test_each_change_is_recorded_on_its_row(tmp_path):
    run(tmp_path, *GOOD)
    out = rows(tmp_path)
    review = json.loads(out.loc[("train", "in_domain", 1), "review"])
    source = "errata.csv:2"
    assert review == [
        {
            "field": "label",
            "old": 0,
            "new": 1,
            "reason": "reported by a user: the verb agrees",
            "source": source,
        },
        # an acceptable row has no category: cleared, with the same reason and line
        {
            "field": "error_type",
            "old": "Morphology",
            "new": None,
            "reason": "reported by a user: the verb agrees",
            "source": source,
        },
    ]
    review = json.loads(out.loc[("train", "in_domain", 0), "review"])
    assert [(r["field"], r["old"], r["new"]) for r in review] == [
        ("label", 1, 0),
        ("error_type", None, "Syntax"),
    ]
    assert pq.read_schema(tmp_path / "out/split.parquet").field("review").type == "string"


def test_a_relabelled_crowd_row_keeps_what_the_crowd_said(tmp_path):
    """Votes and soft label live in the provenance; an erratum never touches it."""
    frame = split_input()
    frame["provenance"] = None
    frame.loc[1, "provenance"] = json.dumps({"task": "t1", "share_acceptable": 0.25})
    run(tmp_path, "train,in_domain,1,label,1,expert", frame=frame)
    row = rows(tmp_path).loc[("train", "in_domain", 1)]
    assert row["label"] == 1 and json.loads(row["provenance"])["share_acceptable"] == 0.25
    assert json.loads(row["review"])[0]["field"] == "label"


def test_ids_splits_and_bytes_do_not_depend_on_anything_but_the_inputs(tmp_path):
    run(tmp_path / "a", *GOOD)
    run(tmp_path / "b", *GOOD)
    without = tmp_path / "c"
    run(without)
    a, c = rows(tmp_path / "a"), rows(without)
    kept = c.drop(index=[("validation", "in_domain", 0)])
    assert list(a.index) == list(kept.index)  # no row moved or renumbered
    for name in ("split.parquet", "rejected.parquet"):
        first = (tmp_path / "a/out" / name).read_bytes()
        assert first == (tmp_path / "b/out" / name).read_bytes(), name
    # the sources are the errata files' paths: a byte-identical build names the same files
    report = json.loads((tmp_path / "a/reports/private/split.json").read_text())
    assert report["errata"]["errata"] == len(GOOD)
    public = json.loads((tmp_path / "a/out/split.json").read_text())  # git: no test errata
    assert public["errata"]["errata"] == len([e for e in GOOD if not e.startswith("test,")])
    assert "test" not in public["errata"]


def test_the_report_counts_errata_by_field_but_test_rows_only_by_number(tmp_path):
    report = run(tmp_path, *GOOD)["errata"]
    assert report["train"] == {"label": 2, "error_type": 2, "sentence": 1, "remove": 0}
    assert report["validation"] == {"label": 0, "error_type": 0, "sentence": 0, "remove": 1}
    assert report["test"] == {"rows": 2}  # not which fields: a relabel would tell a label
    line = summary_line(report)
    assert line == (
        "split: errata: 8 applied from 1 file (train: label 2, error_type 2, sentence 1; "
        "validation: remove 1; test: 2 rows)"
    )
    assert summary_line(run(tmp_path / "none")["errata"]) is None


def test_old_is_checked_and_an_equal_old_is_accepted(tmp_path):
    header = "split,domain,id,field,new,reason,old"
    write_errata(
        tmp_path / "errata.csv",
        "train,in_domain,1,label,1,user report,0",
        "train,in_domain,3,error_type,Morphology,reviewed,Syntax",
        'train,in_domain,2,sentence,Собака лает.,shorter,"Собака  громко лает во дворе."',
        "validation,out_of_domain,0,remove,,off topic,Он пошёл в магазин вчера.",
        "train,in_domain,0,label,1,already,",  # an empty old is not checked
        header=header,
    )
    options = ErrataOptions(rucola_categories(), paths=(str(tmp_path / "errata.csv"),))
    errata = read_errata(options)
    assert [e.old for e in errata] == [
        "0",
        "Syntax",
        "Собака  громко лает во дворе.",
        "Он пошёл в магазин вчера.",
        None,
    ]
    assert [e.line for e in errata] == [2, 3, 4, 5, 6]


def test_columns_may_come_in_any_order(tmp_path):
    write_errata(
        tmp_path / "errata.csv",
        'a reason,"Кот, спит на диване.",sentence,0,in_domain,train',
        "",  # an empty line is skipped, and the next erratum keeps its own line
        "second,1,label,1,in_domain,train",
        header="reason,new,field,id,domain,split",
    )
    errata = read_errata(ErrataOptions(rucola_categories(), paths=(str(tmp_path / "errata.csv"),)))
    assert [(e.line, e.field, e.new) for e in errata] == [
        (2, "sentence", "Кот, спит на диване."),
        (4, "label", 1),
    ]


@pytest.mark.parametrize("normalize", [True, False])
def test_a_corrected_sentence_is_stored_as_extraction_stores_text(tmp_path, normalize):
    write_errata(tmp_path / "e.csv", "test,,0,sentence,  Дети  играют. ,spacing")
    (erratum,) = read_errata(
        ErrataOptions(rucola_categories(), paths=(str(tmp_path / "e.csv"),), normalize=normalize)
    )
    assert erratum.new == ("Дети играют." if normalize else "  Дети  играют. ")


def test_a_quoted_cell_spanning_lines_is_refused(tmp_path):
    """A cell is one line: a line break inside quotes is how an unterminated quote takes the
    lines after it into its cell (errata from ``rucola audit import`` never hold one)."""
    write_errata(
        tmp_path / "errata.csv",
        'train,in_domain,0,sentence,"Кот\nспит на диване.",a reason',
        "train,in_domain,1,label,1,second",
    )
    with pytest.raises(RucolaError) as error:
        read_errata(ErrataOptions(rucola_categories(), paths=(str(tmp_path / "errata.csv"),)))
    assert (error.value.line, error.value.path) == (2, str(tmp_path / "errata.csv"))
    assert "runs from line 2 to line 3" in error.value.message


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\u2028", "\t"])
def test_a_sentence_kept_as_written_holds_no_control_character(tmp_path, char):
    """With ``extract.normalize: false`` the corrected text is stored as written: a
    vertical tab or a line separator went into the release as it was."""
    write_errata(tmp_path / "e.csv", f"test,,0,sentence,Дети{char}играют.,spacing")
    with pytest.raises(RucolaError, match="'new' cell holds U\\+") as error:
        read_errata(
            ErrataOptions(rucola_categories(), paths=(str(tmp_path / "e.csv"),), normalize=False)
        )
    assert error.value.line == 2
