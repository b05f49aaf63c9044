"""Release diffs and the RuCoLA-compatible CSV export."""

from __future__ import annotations

import pandas as pd
import pytest

from rucola.errors import RucolaError
from rucola.release.compat import export_rucola_csv
from rucola.release.diff import release_diff, to_markdown


def split_frame(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(
        rows, columns=["sentence", "label", "error_type", "split", "detailed_source", "domain"]
    )
    frame["id"] = frame.groupby("split").cumcount()
    return frame


OLD = [
    ("Кот спит.", 1, None, "train", "A", "in_domain"),
    ("Кот спят.", 0, "Morphology", "train", "A", "in_domain"),
    ("Пёс лает громко.", 1, None, "validation", "B", "in_domain"),
    ("Пёс лают громко.", 0, "Morphology", "test", "B", "in_domain"),
    ("Дом стоит.", 1, None, "test", "B", "in_domain"),
]


def test_diff_counts_every_kind_of_change(tmp_path):
    new = [
        OLD[0],
        ("Кот спят.", 0, "Syntax", "train", "A", "in_domain"),  # re-categorised
        ("Пёс лает громко.", 0, "Semantics", "validation", "B", "in_domain"),  # relabelled
        ("Пёс лают громко.", 0, "Morphology", "validation", "B", "in_domain"),  # moved
        ("Новая фраза тут.", 1, None, "train", "C", "in_domain"),
    ]  # added; Дом removed
    split_frame(OLD).to_parquet(tmp_path / "old.parquet")
    split_frame(new).to_parquet(tmp_path / "new.parquet")
    result = release_diff(tmp_path / "old.parquet", tmp_path / "new.parquet")
    assert result["added"]["rows"] == 1 and result["added"]["by_source"] == {"C": 1}
    assert result["removed"]["rows"] == 1 and result["removed"]["by_split"] == {"test": 1}
    assert result["relabelled"]["rows"] == 1
    assert result["recategorised"]["rows"] == 2  # Syntax<-Morphology and None->Semantics
    assert result["moved"]["by_move"] == {"test -> validation": 1}
    assert result["moved"]["train_to_test"] == 0
    markdown = to_markdown(result, "v1.1.0")
    assert markdown.startswith("## v1.1.0") and "| moved | 1 | test -> validation 1 |" in markdown


def test_the_listing_names_each_rows_domain_and_lists_added_rows(tmp_path):
    """Issue 33, point 9: validation ids repeat across domains (both published validation
    files start at 0), so a listed row is named by split, domain and id; added rows are
    listed like corrected and removed ones; a public test row's domain stays hidden."""
    old = [
        ("Кот спит.", 1, None, "validation", "A", "in_domain"),
        ("Это кандидат.", 0, "Hallucination", "validation", "TED", "out_of_domain"),
        ("Дом стоит.", 1, None, "test", "B", "in_domain"),
    ]
    new = [
        ("Кот спит!", 1, None, "validation", "A", "in_domain"),  # corrected, in_domain 0
        old[1],  # out_of_domain 0: untouched, same id
        old[2],
        ("Новая фраза тут.", 1, None, "validation", "C", "out_of_domain"),  # added: ood 1
        ("Ещё одна фраза.", 0, "Syntax", "test", "C", "out_of_domain"),  # added: test 1
    ]
    frames = [split_frame(rows) for rows in (old, new)]
    for frame in frames:
        frame["id"] = frame.groupby(["split", "domain"]).cumcount()
        frame.loc[frame["split"] == "test", "id"] = range((frame["split"] == "test").sum())
    frames[0].to_parquet(tmp_path / "old.parquet")
    frames[1].to_parquet(tmp_path / "new.parquet")
    result = release_diff(tmp_path / "old.parquet", tmp_path / "new.parquet")
    markdown = to_markdown(result, "v1.1.0")
    lines = markdown.splitlines()
    assert "### Added" in lines and "### Corrected" in lines
    assert "| split | domain | id | sentence | change | cause |" in lines
    assert "| validation | in_domain | 0 | Кот спит! | was: Кот спит. | – |" in lines
    assert "| validation | out_of_domain | 1 | Новая фраза тут. | added | – |" in lines
    assert "| test | (hidden) | 1 | Ещё одна фраза. | added | – |" in lines
    assert "out_of_domain | 0" not in markdown  # the untouched row of the same id
    assert "Syntax" not in markdown  # a test row's category


def test_a_moved_row_names_the_domain_it_came_from(tmp_path):
    old = [
        ("Кот спит.", 1, None, "validation", "A", "in_domain"),
        ("Пёс лает.", 1, None, "validation", "A", "out_of_domain"),
    ]
    new = [old[0], ("Пёс лает.", 1, None, "test", "A", "out_of_domain")]
    for name, rows in (("old", old), ("new", new)):
        frame = split_frame(rows)
        frame["id"] = frame.groupby(["split", "domain"]).cumcount()
        frame.to_parquet(tmp_path / f"{name}.parquet")
    result = release_diff(tmp_path / "old.parquet", tmp_path / "new.parquet")
    assert [r["before"] for r in result["moved"]["list"]] == ["validation out_of_domain 0"]
    assert result["moved"]["by_move"] == {"validation -> test": 1}
    assert "| test | (hidden) | 0 | Пёс лает. | from validation out_of_domain 0 | – |" in (
        to_markdown(result, "v1.1.0")
    )


def test_diff_refuses_other_files(tmp_path):
    (tmp_path / "x.csv").write_text("a\n")
    with pytest.raises(RucolaError):
        release_diff(tmp_path / "x.csv", tmp_path / "x.csv")


def test_rucola_csv_export(tmp_path):
    rows = [
        *OLD,
        ("Это кандидат.", 0, "Hallucination", "validation", "TED", "out_of_domain"),
        ("Ещё кандидат.", 1, None, "test", "TED", "out_of_domain"),
    ]
    split_frame(rows).to_parquet(tmp_path / "split.parquet")
    counts = export_rucola_csv(tmp_path / "split.parquet", tmp_path / "csv")
    assert counts == {
        "in_domain_train.csv": 2,
        "in_domain_dev.csv": 1,
        "out_of_domain_dev.csv": 1,
        "test.csv": 3,
    }
    train = pd.read_csv(tmp_path / "csv/in_domain_train.csv", dtype=str)
    assert list(train.columns) == ["id", "sentence", "acceptable", "error_type", "detailed_source"]
    assert train["error_type"].tolist() == ["0", "Morphology"]
    test = pd.read_csv(tmp_path / "csv/test.csv")
    assert list(test.columns) == ["id", "sentence"]
    sample = pd.read_csv(tmp_path / "csv/sample_submission.csv")
    assert (
        list(sample.columns) == ["id", "acceptable"]
        and sample["id"].tolist() == test["id"].tolist()
    )
    assert set(sample["acceptable"]) <= {0, 1}


def test_diff_between_two_built_release_folders(tmp_path):
    """Hidden test labels are read back from the private gold beside each release."""
    import json

    from test_build import typed

    from rucola.io import file_sha256
    from rucola.release.build import build_release

    def release(name: str, rows: list[tuple]) -> None:
        frame = split_frame(rows).assign(
            mark="", group="g", origin="x:1", n_tokens=4, high_freq_share=1.0
        )
        frame["group"] = [f"g{i}" for i in range(len(frame))]
        folder = tmp_path / name
        folder.mkdir()
        frame.to_parquet(folder / "split.parquet")
        (folder / "v.json").write_text(
            json.dumps({"success": True, "data_sha256": file_sha256(folder / "split.parquet")})
        )
        build_release(
            folder / "split.parquet",
            folder / "v.json",
            typed({}, folder),
            folder / "rucola",
            folder / "private",
        )

    release("v1", OLD)
    release(
        "v2",
        [
            *OLD[:3],
            ("Пёс лают громко.", 0, "Syntax", "test", "B", "in_domain"),
            ("Новый дом стоит.", 1, None, "train", "C", "in_domain"),
        ],
    )
    result = release_diff(tmp_path / "v1/rucola", tmp_path / "v2/rucola", private=True)
    assert result["added"]["rows"] == 1 and result["removed"]["rows"] == 1
    assert result["recategorised"]["rows"] == 1  # a hidden test row: Morphology -> Syntax
    assert result["moved"]["rows"] == 0
    # the public diff (the changelog's) does not see it
    public = release_diff(tmp_path / "v1/rucola", tmp_path / "v2/rucola")
    assert public["recategorised"]["rows"] == public["relabelled"]["rows"] == 0


def test_diff_names_the_cause_of_every_correction_and_hides_test_labels(tmp_path):
    """The new build's ledger (private/corrections.parquet) gives each corrected or removed
    published row its cause; a test row's hidden label change is not shown."""
    import json

    from test_build import typed

    from rucola.corpus.schema import SET_ASIDE_SCHEMA
    from rucola.io import file_sha256, write_parquet
    from rucola.release.build import build_release

    def release(name: str, rows: list[tuple], corrections=None, rejected=None) -> None:
        frame = split_frame(rows).assign(
            mark="", origin="x:1", n_tokens=4, high_freq_share=1.0, corrections=corrections
        )
        frame["group"] = [f"g{i}" for i in range(len(frame))]
        frame["published_id"] = frame["id"]
        folder = tmp_path / name
        folder.mkdir()
        frame.to_parquet(folder / "split.parquet")
        (folder / "v.json").write_text(
            json.dumps({"success": True, "data_sha256": file_sha256(folder / "split.parquet")})
        )
        params = typed({"extract": {"rejected": str(folder / "rejected.parquet")}}, folder)
        write_parquet(
            pd.DataFrame(rejected or [], columns=SET_ASIDE_SCHEMA.names),
            folder / "rejected.parquet",
            SET_ASIDE_SCHEMA,
        )
        build_release(
            folder / "split.parquet",
            folder / "v.json",
            params,
            folder / "rucola",
            folder / "private",
        )

    release("v1", [("Вcё хорошо.", 1, None, "train", "A", "in_domain"), *OLD])
    removed = {
        "origin": "in_domain_train.csv:3",
        "raw": "",
        "reason": "artefact:judgment_mark",
        "sentence": "Кот спят.",
        "detailed_source": "A",
        "detail": None,
        "published_id": 2,
        "published_split": "train",
        "domain": "in_domain",
    }
    v2 = [("Всё хорошо.", 1, None, "train", "A", "in_domain"), OLD[0], *OLD[2:]]
    frame = split_frame(v2)
    frame.loc[frame["split"] == "test", "label"] = [1, 1]  # a hidden test row relabelled
    v2 = list(
        frame[["sentence", "label", "error_type", "split", "detailed_source", "domain"]].itertuples(
            index=False, name=None
        )
    )
    release(
        "v2", v2, corrections=["homoglyphs: Вcё->Всё", None, None, None, None], rejected=[removed]
    )
    result = release_diff(tmp_path / "v1/rucola", tmp_path / "v2/rucola")
    assert [r["cause"] for r in result["corrected"]["list"]] == ["homoglyphs: Вcё->Всё"]
    assert [(r["id"], r["cause"]) for r in result["removed"]["list"]] == [
        (2, "artefact:judgment_mark")
    ]
    assert result["added"]["rows"] == result["moved"]["rows"] == 0
    assert result["relabelled"]["rows"] == 0  # a test row's relabelling is private
    private = release_diff(tmp_path / "v1/rucola", tmp_path / "v2/rucola", private=True)
    relabelled = private["relabelled"]["list"]
    assert [(r["split"], r["before"], r["after"]) for r in relabelled] == [("test", 0, 1)]
    markdown = to_markdown(result, "v1.1.0")
    assert "homoglyphs: Вcё->Всё" in markdown and "artefact:judgment_mark" in markdown
    assert "Morphology -> " not in markdown
    # train rows name their domain; no listed test row does
    listing = [line for line in markdown.splitlines() if line.startswith("| test |")]
    assert all(line.startswith("| test | (hidden) |") for line in listing), listing


def test_a_corrected_learner_row_is_exactly_that_row_in_the_diff(tmp_path):
    """Learner rows have ids of their own domain in train and validation: the in-domain row
    with the same id is untouched, and the learner row's correction is the one change."""
    learner = [
        ("Мы пошли в парк.", 1, None, "train", "Essays", "learner"),
        ("Мы пошёл в парк.", 0, "Morphology", "train", "Essays", "learner"),
    ]
    old = split_frame([*OLD, *learner])
    old["id"] = old.groupby(["split", "domain"]).cumcount()
    new = old.copy()
    new.loc[new["sentence"] == "Мы пошёл в парк.", "error_type"] = "Syntax"
    old.to_parquet(tmp_path / "old.parquet")
    new.to_parquet(tmp_path / "new.parquet")
    result = release_diff(tmp_path / "old.parquet", tmp_path / "new.parquet")
    assert result["recategorised"]["rows"] == 1
    (row,) = result["recategorised"]["list"]
    assert (row["domain"], row["sentence"], row["before"]) == (
        "learner",
        "Мы пошёл в парк.",
        "Morphology",
    )
    for kind in ("added", "removed", "relabelled", "moved"):
        assert result[kind]["rows"] == 0, kind


def test_diff_through_a_pipe_keeps_each_table_row_on_one_line(tmp_path):
    """Issue 24, item 4: ``release diff | tee CHANGES.md`` wrapped its Markdown table at 80
    columns (Rich's width when stdout is no terminal). Run as a user runs it, through a
    pipe, a row far longer than 80 characters stays one line."""
    import os
    import subprocess
    import sys

    from identity import write_identity

    sentence = "Кот спит очень долго и спокойно на мягком диване в большой комнате старого дома."
    old = split_frame([(sentence, 1, None, "train", "A long source name", "in_domain")])
    new = old.assign(sentence=sentence + " Ещё.")
    old.to_parquet(tmp_path / "old.parquet")
    new.to_parquet(tmp_path / "new.parquet")
    # the language that keys a moved row's text: params.yaml's (no default names one)
    write_identity(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    result = subprocess.run(
        [sys.executable, "-m", "rucola", "release", "diff", "old.parquet", "new.parquet"],
        cwd=tmp_path,
        env=env,
        capture_output=True,  # stdout is a pipe, as in `rucola release diff ... | tee`
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    row = next(line for line in lines if line.startswith("| train | in_domain | 0 |"))
    assert len(row) > 160
    assert row == f"| train | in_domain | 0 | {sentence} Ещё. | was: {sentence} | – |"
    assert result.stdout.endswith("|\n")  # no blank line after the last table row


def test_diff_help_names_every_kind_of_release_it_takes(run_cli):
    code, stdout, _ = run_cli("release", "diff", "--help")
    text = " ".join(stdout.split())
    assert code == 0
    assert "a release folder" in text and "a split parquet" in text
    assert "a folder in the published RuCoLA CSV layout" in text


# --- errata: the ledger and the diff -----------------------------------------------------


def _errata_release(folder, errata: list[str], corrected: bool) -> None:
    """The errata project (``errata_rows``) split with ``errata`` and built into
    ``folder/rucola``; ``corrected``: train row 1's text repaired at extraction (a Latin
    ``o`` before), so it carries a ``corrections`` entry as homoglyph repairs do."""
    import contextlib
    import json
    from pathlib import Path

    from errata_rows import split_input, write_errata, write_project
    from test_build import typed

    from rucola.corpus.errata import ErrataOptions
    from rucola.corpus.split import run_split
    from rucola.io import file_sha256
    from rucola.params import load_settings
    from rucola.release.build import build_release

    folder.mkdir(parents=True)
    with contextlib.chdir(folder):
        files = [str(write_errata(Path("errata.csv"), *errata))] if errata else []
        params = load_settings(write_project(Path(), files))
        frame = split_input()
        if corrected:
            frame.loc[1, "corrections"] = "homoglyphs: Кoт->Кот"
        else:
            frame.loc[1, "sentence"] = "Кoт спят на диване."
        frame.to_parquet("in.parquet")
        run_split(params.split, "in.parquet", ErrataOptions.from_params(params))
        data = Path("out/split.parquet")
        Path("v.json").write_text(json.dumps({"success": True, "data_sha256": file_sha256(data)}))
        build = typed({"split": {"rejected": str(folder / "out/rejected.parquet")}}, folder)
        build_release(data, "v.json", build, "rucola", "private")


ERRATA = [
    "train,in_domain,1,label,1,reported by a user",
    "train,in_domain,3,error_type,Morphology,agreement is morphology",
    "validation,in_domain,0,remove,,not a sentence of Russian",
    "train,in_domain,2,sentence,Собака громко лает ночью.,the source lost a word",
    "test,,1,label,1,expert review",
    "test,,0,sentence,Дети играют в большом саду.,OCR",
]


@pytest.mark.slow
def test_errata_are_in_the_ledger_and_each_change_shows_its_own_cause(tmp_path):
    import pyarrow.parquet as pq

    _errata_release(tmp_path / "v1", [], corrected=False)
    _errata_release(tmp_path / "v2", ERRATA, corrected=True)
    ledger = pq.read_table(tmp_path / "v2/private/corrections.parquet").to_pylist()
    assert [(e["split"], e["id"], e["action"], e["reason"]) for e in ledger] == [
        ("train", 1, "corrected", "homoglyphs: Кoт->Кот"),
        ("train", 1, "relabelled", "erratum: reported by a user"),
        ("train", 1, "recategorised", "erratum: reported by a user"),
        ("train", 2, "corrected", "erratum: the source lost a word"),
        ("train", 3, "recategorised", "erratum: agreement is morphology"),
        ("validation", 0, "removed", "erratum: not a sentence of Russian"),
        ("test", 0, "corrected", "erratum: OCR"),
        ("test", 1, "relabelled", "erratum: expert review"),
        ("test", 1, "recategorised", "erratum: expert review"),
    ]

    result = release_diff(tmp_path / "v1/rucola", tmp_path / "v2/rucola")

    def listed(kind: str, diff: dict = result) -> list[tuple]:
        rows = [(r["split"], r["id"], r["cause"]) for r in diff[kind]["list"]]
        return sorted(rows, key=lambda r: (["train", "validation", "test"].index(r[0]), r[1]))

    # the row both repaired and relabelled: each change with its own cause
    assert listed("corrected") == [
        ("train", 1, "homoglyphs: Кoт->Кот"),
        ("train", 2, "erratum: the source lost a word"),
        ("test", 0, None),  # a test row's text change is public, its cause is not
    ]
    assert listed("relabelled") == [("train", 1, "erratum: reported by a user")]
    assert listed("recategorised") == [
        ("train", 1, "erratum: reported by a user"),
        ("train", 3, "erratum: agreement is morphology"),
    ]
    assert listed("removed") == [("validation", 0, "erratum: not a sentence of Russian")]
    assert result["added"]["rows"] == result["moved"]["rows"] == 0
    assert result["relabelled"]["by_cause"] == {"erratum: reported by a user": 1}
    assert result["recategorised"]["by_cause"] == {
        "erratum: agreement is morphology": 1,
        "erratum: reported by a user": 1,
    }
    markdown = to_markdown(result, "v1.1.0")
    assert "erratum: reported by a user" in markdown and "0 -> 1" in markdown
    assert "expert review" not in markdown and "OCR" not in markdown

    private = release_diff(tmp_path / "v1/rucola", tmp_path / "v2/rucola", private=True)
    assert listed("relabelled", private) == [
        ("train", 1, "erratum: reported by a user"),
        ("test", 1, "erratum: expert review"),
    ]
    assert [(r["before"], r["after"]) for r in private["relabelled"]["list"]] == [(0, 1)] * 2
    test = [r for r in private["recategorised"]["list"] if r["split"] == "test"]
    assert [(r["before"], r["after"], r["cause"]) for r in test] == [
        ("Morphology", None, "erratum: expert review")
    ]
    assert ("test", 0, "erratum: OCR") in [
        (r["split"], r["id"], r["cause"]) for r in private["corrected"]["list"]
    ]


@pytest.mark.slow
def test_the_public_diff_never_tells_a_test_rows_erratum(tmp_path):
    """Issue 23 holds for errata: with only test rows corrected by errata, the public diff
    lists the text change alone, without its cause, and nothing relabelled."""
    errata = ["test,,1,label,1,the gold was wrong", "test,,1,sentence,Дети играли в саду.,typo"]
    _errata_release(tmp_path / "v1", [], corrected=True)
    _errata_release(tmp_path / "v2", errata, corrected=True)
    result = release_diff(tmp_path / "v1/rucola", tmp_path / "v2/rucola")
    assert [(r["split"], r["id"], r["cause"]) for r in result["corrected"]["list"]] == [
        ("test", 1, None)
    ]
    for kind in ("relabelled", "recategorised", "removed", "added", "moved"):
        assert result[kind]["rows"] == 0, kind
    text = to_markdown(result, "v1.1.0")
    assert "the gold was wrong" not in text and "typo" not in text and "Morphology" not in text


@pytest.mark.parametrize("name", ["in_domain_dev.csv", "test.csv"])
def test_a_cell_beyond_the_csv_field_limit_is_one_line_naming_file_and_line(
    run_cli, tmp_path, name
):
    """A published-layout file with a cell of more than 131072 characters (the csv module's
    field size limit) was a ``_csv.Error`` traceback."""
    rows = [*OLD, ("Это кандидат.", 0, "Hallucination", "validation", "TED", "out_of_domain")]
    split_frame(rows).to_parquet(tmp_path / "split.parquet")
    export_rucola_csv(tmp_path / "split.parquet", tmp_path / "old")
    export_rucola_csv(tmp_path / "split.parquet", tmp_path / "new")
    broken = tmp_path / "new" / name
    lines = broken.read_text(encoding="utf-8").splitlines()
    cells = ["7", '"' + "ы" * 131073 + '"'] + ([] if name == "test.csv" else ["1", "0", "A"])
    lines.insert(2, ",".join(cells))
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RucolaError) as error:
        release_diff(tmp_path / "old", tmp_path / "new")
    assert (error.value.path, error.value.line) == (str(broken), 3)
    code, stdout, stderr = run_cli("release", "diff", str(tmp_path / "old"), str(tmp_path / "new"))
    errors = [line for line in stderr.splitlines() if line.strip()]
    assert code == 1 and stdout == "" and "Traceback" not in stderr and len(errors) == 1, stderr
    assert errors[0].startswith(f"error: {broken}:3: a cell longer than 131072 characters")
