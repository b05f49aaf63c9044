"""Textbook sheets in six languages and six scripts' worth of traps, built as a linguist
builds a corpus of their own (issue 42).

Each sheet in ``tests/fixtures/textbook/`` is numbered, marked examples with the label
beside the mark, the way a German, Spanish, French, Icelandic, Arabic, Persian or Japanese
textbook prints them, written for these tests. Among ordinary examples they hold what a
tool that reasons like a Russian one gets wrong: Icelandic ``þurrkaði``, ``tók`` and
``Reykjavík`` and French ``obéi`` (a Latin ``i``/``k`` after an accented letter is no
co-indexation), Persian words whose zero-width non-joiner is spelling (``می‌خواهم``; the
same words without it are another row), Arabic words with a left-to-right mark typed
inside, a mark repeated at the start of the text (``?*Lesið hafa ...`` beside ``?*``), and
the marks ``*/??`` and ``?/*`` of speakers who disagree. Each sheet also plants the
artefacts a copy from a book leaves (an editorial bracket; an index letter glued to an
Arabic word), which must be the only rows flagged.

Extract, measure, filter, split and validate run in-process on each sheet; one of them
(Icelandic) is built once as a whole DVC pipeline up to its release.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "textbook"
LRM, ZWNJ = "\u200e", "\u200c"
# the sheet rows (numbered from 1, as printed) holding an artefact planted on purpose
PLANTED = {
    "de": {31: ["editorial_bracket"]},
    "es": {32: ["editorial_bracket"]},
    "fr": {34: ["editorial_bracket"]},
    "is": {35: ["editorial_bracket"]},
    "ar": {22: ["coindex"]},
    "fa": {},
    "ja": {21: ["editorial_bracket"]},
}
MARKS = {
    "": "acceptable",
    "*": "unacceptable",
    "*?": "unacceptable",
    "?*": "unacceptable",
    "??": "unacceptable",
    "**": "unacceptable",
    "*/??": "unacceptable",
    "?/*": "unacceptable",
    "?": "exclude",
    "#": "exclude",
}


def overlay(language: str) -> str:
    """The params a linguist writes for a sheet of theirs (the ItaCoLA preset's choices:
    labels beside marks, artefacts flagged not dropped, no threshold drops a row)."""
    marks = ", ".join(f"{json.dumps(mark)}: {verdict}" for mark, verdict in MARKS.items())
    return f"""\
corpus:
  name: textbook-{language}
  pretty_name: Textbook examples ({language})
  language: {language}
  description: null
  homepage: null
  license: other
  license_note: null
  citations: []
  domain_descriptions: {{in_domain: textbook examples, out_of_domain: null, learner: null}}
  categories: {{in_domain: [], out_of_domain: [], learner: []}}
extract:
  sources:
  - path: data/raw/textbook/{language}.tsv
    columns: {{sentence: sentence, mark: mark, label: label}}
  marks: {{{marks}}}
  artefacts: keep
generate:
  sources: {{}}
  generators: {{}}
filter:
  min_tokens: null
  max_tokens: null
  min_high_freq_share: null
"""


def sheet(language: str) -> list[dict[str, str]]:
    with open(FIXTURES / f"{language}.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def project(root: Path, language: str) -> Path:
    (root / "data/raw/textbook").mkdir(parents=True)
    shutil.copy2(FIXTURES / f"{language}.tsv", root / "data/raw/textbook")
    (root / "params.yaml").write_text(overlay(language), encoding="utf-8")
    return root


def built(run_cli, root: Path) -> dict[str, object]:
    """Extract to validate in-process in ``root``; the reports and the split rows."""
    steps = [
        ("extract",),
        ("measure", "--input", "data/interim/in_domain.parquet", "--workers", "1"),
        ("filter",),
        ("split",),
        ("validate",),
    ]
    for step in steps:
        code, out, err = run_cli(*step, cwd=root)
        assert code == 0, f"rucola {' '.join(step)}: {out}{err}"
    reports = root / "reports"
    return {
        "extract": json.loads((reports / "extract.json").read_text(encoding="utf-8")),
        "split": pd.read_parquet(root / "data/interim/split.parquet"),
    }


def row_number(origin: str) -> int:
    """The sheet's example number of ``data/raw/textbook/xx.tsv:LINE`` (line 1: header)."""
    return int(origin.rpartition(":")[2]) - 1


@pytest.mark.parametrize("language", sorted(PLANTED))
def test_a_textbook_sheet_keeps_every_row_label_and_letter(run_cli, tmp_path, language):
    if language == "ja":
        pytest.importorskip("MeCab", reason="the ja extra (pip install 'rucola[ja]')")
    examples = sheet(language)
    result = built(run_cli, project(tmp_path, language))
    extract, rows = result["extract"], result["split"]
    assert extract["read"] == extract["kept"] == len(examples)
    assert extract["set_aside"] == {}
    assert len(rows) == len(examples)  # no threshold, split or validation lost a row

    flagged = {row_number(f["origin"]): f["kinds"] for f in extract["artefacts"]["found"]}
    assert flagged == PLANTED[language]

    by_number = rows.set_index(rows["origin"].map(row_number)).sort_index()
    assert by_number.index.tolist() == list(range(1, len(examples) + 1))
    for number, example in enumerate(examples, start=1):
        row = by_number.loc[number]
        assert row["label"] == int(example["label"]), (number, example)
        expected = example["sentence"].replace(LRM, "")
        if expected.startswith(example["mark"]) and example["mark"]:
            expected = expected[len(example["mark"]) :].strip()
        assert row["sentence"] == expected, (number, example)


def test_persian_keeps_its_non_joiners_and_arabic_loses_its_direction_marks(run_cli, tmp_path):
    persian = built(run_cli, project(tmp_path / "fa", "fa"))
    rows = persian["split"]
    assert rows["sentence"].str.contains(ZWNJ).sum() == 10
    # the same words without the joiner are another spelling: another row, not a repeat
    assert {"من می\u200cخواهم به خانه بروم.", "من میخواهم به خانه بروم."} <= set(rows["sentence"])
    assert persian["extract"]["normalised"]["rows"] == 0

    arabic = built(run_cli, project(tmp_path / "ar", "ar"))
    rows, report = arabic["split"], arabic["extract"]
    assert not rows["sentence"].str.contains(LRM).any()
    marked = rows.set_index(rows["origin"].map(row_number)).loc[[20, 21]]
    assert marked["sentence"].tolist() == ["اشترى محمد كتابا جديدا.", "المعلم يشرح الدرس للطلاب."]
    assert marked["corrections"].str.contains("normalised").all()
    assert report["normalised"]["rows"] == 2
    assert report["normalised"]["characters"] == {"U+200E LEFT-TO-RIGHT MARK": 2}


def test_a_mark_repeated_in_the_text_is_split_off_and_recorded(run_cli, tmp_path):
    result = built(run_cli, project(tmp_path, "is"))
    rows = result["split"]
    row = rows[rows["origin"].map(row_number) == 2].iloc[0]
    assert (row["sentence"], row["mark"], row["label"]) == (
        "Lesið hafa strákarnir bækurnar.",
        "?*",
        0,
    )
    assert "mark" in str(row["corrections"])


@pytest.mark.slow
def test_an_icelandic_sheet_builds_a_release_with_dvc(tmp_path):
    """The one whole build: ``dvc repro`` from the sheet to the release, in a real DVC
    repository, as the linguist runs it, the overlay completed to a whole params file (a
    repeated mark no longer blocks the release)."""
    from dvc_project import copy_project, git, sh

    from rucola.dev.params import render

    root = project(copy_project(tmp_path / "is"), "is")
    shutil.rmtree(root / "data/sample")
    overlay_file = root / "rucola/presets/textbook.yaml"
    overlay_file.write_text(overlay("is"), encoding="utf-8")
    (root / "params.yaml").write_text(render(overlay_file, "textbook"), encoding="utf-8")
    git("init", "-q", cwd=root)
    sh("dvc", "add", "-q", "data/raw/textbook", cwd=root)
    sh("dvc", "repro", cwd=root)
    release = json.loads((root / "reports/release.json").read_text(encoding="utf-8"))
    assert release["read"] == release["kept"] == len(sheet("is")) and release["set_aside"] == {}
    from datasets import load_dataset

    folder = root / "data/release" / "dataset"  # release.out: the overlay keeps the default
    loaded = load_dataset(str(folder), "default")
    assert sum(loaded[name].num_rows for name in loaded) == len(sheet("is"))
    assert "Lesið hafa strákarnir bækurnar." in set(loaded["train"]["sentence"]) | set(
        loaded["validation"]["sentence"]
    ) | set(loaded["test"]["sentence"])
