"""Text is text (issue 13): control and non-printing characters never reach the corpus.

Sheets, lists and published CSV files with NUL, BEL, a bidi override and U+2028 go through
the real extract command: the rows with a control or non-printing character are set aside
with the reason and the code points, also with ``extract.normalize: false``; U+2028 is
whitespace and becomes a space (counted) when the text is normalised.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_extract import run_extract

from rucola.corpus.normalize import (
    normalize_text,
    repaired_characters,
    text_fault,
    unprintable,
    unprintable_class,
)

NUL_ROW = "Мальчик чи\x00тает книгу."
BEL_ROW = "Девочка пи\x07шет письмо."
SEPARATED = "Кошка спит\u2028на диване."
BIDI = "Мама \u202eмоет раму."
CLEAN = "Папа читает газету."


def write(path: Path, text: str) -> Path:
    """Bytes as given: the NUL must reach the reader."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def extract(run_cli, tmp_path: Path, source: Path, params: str = "") -> tuple[dict, dict, dict]:
    """Run ``rucola extract``; (report, kept rows by sentence, rejected rows by origin line)."""
    code, _, stderr = run_extract(run_cli, tmp_path, source, params=params)
    assert code == 0, stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    kept = {r["sentence"]: r for r in pq.read_table(tmp_path / "out.parquet").to_pylist()}
    rejected = {
        int(r["origin"].rpartition(":")[2]): r
        for r in pq.read_table(tmp_path / "rejected.parquet").to_pylist()
    }
    assert report["read"] == report["kept"] + sum(report["set_aside"].values())
    return report, kept, rejected


def assert_set_aside(rejected: dict, line: int, reason: str, detail: str, text: str) -> None:
    row = rejected[line]
    assert (row["reason"], row["detail"]) == (reason, detail)
    assert row["sentence"] == text and text in row["raw"]  # the text is kept, as read


# --- the character classes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason", "detail"),
    [
        (NUL_ROW, "control_character", "U+0000 NUL"),
        (BEL_ROW, "control_character", "U+0007 BEL"),
        ("a\x1bb\x7fc\x85", "control_character", "U+001B ESC, U+007F DEL, U+0085 C1 control"),
        (BIDI, "non_printing_character", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        (
            "a\u2066b\u2069",
            "non_printing_character",
            "U+2066 LEFT-TO-RIGHT ISOLATE, U+2069 POP DIRECTIONAL ISOLATE",
        ),
        ("a\ue000b", "non_printing_character", "U+E000 Co"),
        ("a\ufffeb", "non_printing_character", "U+FFFE Cn"),
        ("a\u0378b", "non_printing_character", "U+0378 Cn"),
        ("a\ud800b", "non_printing_character", "U+D800 Cs"),
        ("a\u202eb\x00", "control_character", "U+202E RIGHT-TO-LEFT OVERRIDE, U+0000 NUL"),
    ],
)
def test_unprintable_characters_are_named(text, reason, detail):
    assert text_fault(text) == (reason, detail)


@pytest.mark.parametrize(
    "text",
    [CLEAN, SEPARATED, "a\tb\nc\rd\ve\ff\u2029g", "об\u00adрыв\u200b\ufeff", "a\u00a0b"],
)
def test_whitespace_and_droppable_invisibles_are_not_faults(text):
    assert text_fault(text) is None and unprintable(text) == []


def test_separators_become_spaces_and_are_counted():
    assert normalize_text(SEPARATED) == "Кошка спит на диване."
    assert normalize_text("Абзац.\u2029Второй.") == "Абзац. Второй."
    assert repaired_characters(SEPARATED + "\u00ad\t") == {
        "U+2028 LINE SEPARATOR": 1,
        "U+00AD SOFT HYPHEN": 1,
    }


def test_the_validation_class_matches_exactly_the_faults():
    import re

    import pyarrow as pa
    import pyarrow.compute as pc

    samples = [NUL_ROW, BEL_ROW, BIDI, "a\ue000", "a\U000e0001", "a\U0010ffff", CLEAN, SEPARATED]
    samples += ["об\u00adрыв", "a\tb", "Ёжик 😀"]
    expected = [text_fault(s) is not None for s in samples]
    pattern = unprintable_class()
    assert [bool(re.search(pattern, s)) for s in samples] == expected  # Python re
    re2 = pc.match_substring_regex(pa.array(samples), pattern).to_pylist()  # RE2 (Arrow)
    assert re2 == expected == [True] * 6 + [False] * 5


# --- through the extract stage ------------------------------------------------------------

SHEET = (
    "sentence\tmark\terror_type\n"
    f"{CLEAN}\t\t\n"
    f"{NUL_ROW}\t\t\n"
    f"{BEL_ROW}\t*\tSyntax\n"
    f"{SEPARATED}\t\t\n"
    f"{BIDI}\t\t\n"
    '"Кот\x00 в ""кавычках"" спит."\t\t\n'
)


@pytest.mark.parametrize("suffix", [".tsv", ".csv"])
def test_sheet_rows_with_control_characters_are_set_aside(run_cli, tmp_path, suffix):
    text = SHEET if suffix == ".tsv" else SHEET.replace("\t", ",")
    report, kept, rejected = extract(run_cli, tmp_path, write(tmp_path / f"s{suffix}", text))
    assert list(kept) == [CLEAN, "Кошка спит на диване."]
    assert kept["Кошка спит на диване."]["corrections"] == "normalised"
    assert_set_aside(rejected, 3, "control_character", "U+0000 NUL", NUL_ROW)
    assert_set_aside(rejected, 4, "control_character", "U+0007 BEL", BEL_ROW)
    assert_set_aside(rejected, 6, "non_printing_character", "U+202E RIGHT-TO-LEFT OVERRIDE", BIDI)
    # a quoted cell with a NUL is read whole, not cut at the NUL
    assert_set_aside(rejected, 7, "control_character", "U+0000 NUL", 'Кот\x00 в "кавычках" спит.')
    assert report["read"] == 6 and report["kept"] == 2
    assert report["set_aside"] == {"control_character": 3, "non_printing_character": 1}
    assert report["normalised"]["characters"] == {"U+2028 LINE SEPARATOR": 1}


def test_list_lines_with_control_characters_are_set_aside(run_cli, tmp_path):
    listing = (
        f"# source: Book\n(1) {CLEAN}\n(2) *{NUL_ROW}\n(3) {BEL_ROW}\n(4) {SEPARATED}\n(5) {BIDI}\n"
    )
    params = "extract:\n  require_error_type: false\n"
    report, kept, rejected = extract(run_cli, tmp_path, write(tmp_path / "l.txt", listing), params)
    assert list(kept) == [CLEAN, "Кошка спит на диване."]
    assert_set_aside(rejected, 3, "control_character", "U+0000 NUL", "*" + NUL_ROW)
    assert_set_aside(rejected, 4, "control_character", "U+0007 BEL", BEL_ROW)
    assert rejected[6]["reason"] == "non_printing_character"
    assert report["set_aside"] == {"control_character": 2, "non_printing_character": 1}


def published(folder: Path) -> Path:
    """A release folder in the published layout, written with a real CSV writer."""
    folder.mkdir(parents=True)
    rows = [(0, CLEAN, 1, "0"), (1, NUL_ROW, 1, "0"), (2, BEL_ROW, 0, "Syntax")]
    rows += [(3, SEPARATED, 1, "0"), (4, "Ко\u00adт спит.", 1, "0")]
    with (folder / "in_domain_train.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "sentence", "acceptable", "error_type", "detailed_source"])
        writer.writerows([(*row, "Book") for row in rows])
    return folder


@pytest.mark.parametrize("normalize", [True, False])
def test_published_rows_with_control_characters_are_set_aside(run_cli, tmp_path, normalize):
    """Also when the text is kept as read (the preset that rebuilds RuCoLA v1)."""
    flag = str(normalize).lower()
    params = f"extract:\n  normalize: {flag}\n  deduplicate: {flag}\n"
    report, kept, rejected = extract(run_cli, tmp_path, published(tmp_path / "v1"), params)
    assert_set_aside(rejected, 3, "control_character", "U+0000 NUL", NUL_ROW)
    assert_set_aside(rejected, 4, "control_character", "U+0007 BEL", BEL_ROW)
    assert rejected[3]["published_id"] == 1 and rejected[3]["published_split"] == "train"
    assert report["set_aside"] == {"control_character": 2}
    if normalize:
        assert list(kept) == [CLEAN, "Кошка спит на диване.", "Кот спит."]
        assert report["normalised"]["characters"] == {
            "U+00AD SOFT HYPHEN": 1,
            "U+2028 LINE SEPARATOR": 1,
        }
    else:  # as read: whitespace and the soft hyphen stay, nothing is counted as repaired
        assert list(kept) == [CLEAN, SEPARATED, "Ко\u00adт спит."]
        assert report["normalised"] == {"rows": 0, "examples": [], "characters": {}}


@pytest.mark.slow
def test_published_release_holds_no_unprintable_character(shared_data: Path):
    """The v1 rebuild (``normalize: false``) sets aside nothing for this reason: the real
    files hold no control, format (other than one soft hyphen), private-use, unassigned or
    separator character."""
    found: dict[str, list[str]] = {}
    for path in sorted((shared_data / "rucola").glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                sentence = row.get("sentence") or ""
                odd = [c for c in sentence if text_fault(c) or c in "\u2028\u2029\t\n\r"]
                if odd:
                    found.setdefault(path.name, []).append(sentence)
                assert "\ufeff" not in sentence
    assert found == {}
