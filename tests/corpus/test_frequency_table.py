"""``filter.frequency.source: table``: a user's own frequency list, its column layout
declared in ``filter.frequency.table``."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.corpus.frequency import RncFrequencies, TableFrequencies, load_frequencies
from rucola.errors import RucolaError, reading_params
from rucola.settings import Frequency
from rucola.settings.corpus import FrequencyTable


def test_a_headed_list_with_ipm(tmp_path: Path):
    path = tmp_path / "freq.tsv"
    path.write_text("rank\tword\tipm\n1\tcasa\t500.5\n2\tCane\t20\n3\tcane\t5\n", "utf-8")
    settings = Frequency(source="table", path=[str(path)], table={"word": "word"})
    table = load_frequencies(settings, "it")
    assert isinstance(table, TableFrequencies) and table.name == "table"
    assert table.ipm("casa") == 500.5
    assert table.ipm("CANE") == 25  # case folded, a word listed twice summed
    assert table.ipm("gatto") == 0


def test_counts_without_a_header_become_ipm(tmp_path: Path):
    path = tmp_path / "counts.csv"
    path.write_text("3,der\n1,hund\n", "utf-8")
    layout = FrequencyTable(word="2", value="1", unit="count", delimiter=",", header=False)
    table = TableFrequencies(path, layout)
    assert table.ipm("der") == 750_000 and table.ipm("hund") == 250_000


LATIN1 = "lemma\tipm\ncasa\t3\ncittà\t2\n".encode("latin-1")


@pytest.mark.parametrize(
    ("data", "layout", "words"),
    [
        ("lemma\tipm\ncasa\tmolto\n", {}, ["freq.tsv:2", "bad frequency row"]),
        ("lemma\tipm\ncasa\n", {}, ["freq.tsv:2", "column 2 a number"]),
        ("word\tfreq\ncasa\t3\n", {}, ["freq.tsv:1", "no column 'lemma'", "word, freq"]),
        ("casa\t3\n", {"header": False}, ["freq.tsv", "give the column's number"]),
        ("lemma\tipm\ncasa\t-3\n", {}, ["freq.tsv:2", "negative frequency '-3'"]),
        # non-finite: inf was kept as inf ipm; as a count, it made every ipm 0 and one NaN
        ("lemma\tipm\ncasa\t2\ncane\tinf\n", {}, ["freq.tsv:3", "'inf' is not a finite"]),
        ("lemma\tipm\ncasa\t1e400\n", {}, ["freq.tsv:2", "'1e400' is not a finite"]),
        ("lemma\tipm\ncasa\tnan\n", {}, ["freq.tsv:2", "'nan' is not a finite"]),
        ("lemma\tipm\ncasa\tInfinity\n", {"unit": "count"}, ["freq.tsv:2", "not a finite"]),
        ("lemma\tipm\ncasa\t-0.5\n", {"unit": "count"}, ["freq.tsv:2", "negative"]),
        # finite numbers whose sum is not: a word listed twice, or a count list's total
        ("lemma\tipm\ncasa\t1e308\ncasa\t1e308\n", {}, ["freq.tsv:3", "of 'casa' add up"]),
        ("lemma\tipm\na\t1e308\nb\t1e308\n", {"unit": "count"}, ["freq.tsv:3", "add up"]),
        ("lemma\tipm\ncasa\t0\n", {"unit": "count"}, ["freq.tsv", "every count is 0"]),
        # a column named twice: which one holds the frequencies is ambiguous (case too)
        ("lemma\tipm\tipm\ncasa\t3\t4\n", {}, ["freq.tsv:1", "duplicated column(s) ipm"]),
        ("lemma\tIPM\tipm\ncasa\t3\t4\n", {}, ["freq.tsv:1", "duplicated column(s) IPM"]),
        # header-only (or blank lines under it): every word silently got 0 ipm
        ("lemma\tipm\n", {}, ["freq.tsv:1", "no rows under the header", "0 ipm"]),
        ("lemma\tipm\n\n \t \n", {}, ["freq.tsv:3", "no rows under the header"]),
        ("\n", {"header": False, "word": "1", "value": "2"}, ["freq.tsv:1", "no rows in the"]),
        ("", {}, ["freq.tsv", "the list is empty"]),
        # Latin-1 bytes in a list read as UTF-8: was a UnicodeDecodeError traceback
        (LATIN1, {}, ["freq.tsv:3", "not utf-8 (filter.frequency.table.encoding)", "e0"]),
        ("lemma\tipm\nдом\t2\n".encode("cp1251"), {}, ["freq.tsv:2", "byte(s) e4 cannot"]),
        ("lemma\tipm\nx\t1\n".encode("utf-16"), {}, ["freq.tsv:1", "not utf-8", "byte(s) ff "]),
        # csv's own refusals (a cell over its field size limit) are a line too
        ("lemma\tipm\n" + "x" * 200_000 + "\t1\n", {}, ["freq.tsv:2", "field larger"]),
    ],
)
def test_a_bad_list_is_one_line_naming_the_file_and_line(tmp_path, data, layout, words):
    path = tmp_path / "freq.tsv"
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    with pytest.raises(RucolaError) as caught:
        TableFrequencies(path, FrequencyTable(**layout))
    message = caught.value.format()
    assert "\n" not in message and caught.value.path == str(path)
    for word in words:
        assert word in message


def test_a_bad_delimiter_names_the_params_file_in_effect(tmp_path: Path):
    path = tmp_path / "freq.tsv"
    path.write_text("lemma\tipm\ncasa\t3\n", "utf-8")
    with pytest.raises(RucolaError) as caught:
        TableFrequencies(path, FrequencyTable(delimiter="||"))
    assert caught.value.format() == (
        "params.yaml: filter.frequency.table.delimiter '||' is not one character"
    )
    with reading_params("configs/other.yaml"), pytest.raises(RucolaError) as caught:
        TableFrequencies(path, FrequencyTable(delimiter="||"))
    assert caught.value.path == "configs/other.yaml"


def test_the_declared_encoding_reads_the_list(tmp_path: Path):
    path = tmp_path / "freq.tsv"
    path.write_bytes(LATIN1)
    table = TableFrequencies(path, FrequencyTable(encoding="latin-1"))
    assert table.ipm("città") == 2 and table.ipm("CASA") == 3


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-32-le"])
def test_a_byte_order_mark_is_skipped(tmp_path: Path, encoding: str):
    """A spreadsheet's UTF-8 export starts with a BOM: it was read into the first column's
    name (``no column 'lemma' ... in the header \ufefflemma``, the BOM invisible)."""
    path = tmp_path / "freq.tsv"
    path.write_bytes("\ufefflemma\tipm\ncasa\t3\n".encode(encoding))
    table = TableFrequencies(path, FrequencyTable(encoding=encoding))
    assert table.table == {"casa": 3.0}
    path.write_bytes("\ufeffcasa\t3\n".encode(encoding))  # no header: the first word
    headless = FrequencyTable(encoding=encoding, header=False, word="1", value="2")
    assert TableFrequencies(path, headless).table == {"casa": 3.0}


def test_an_invisible_character_in_the_header_is_shown(tmp_path: Path):
    path = tmp_path / "freq.tsv"
    path.write_text("lemma\u200b\tipm\ncasa\t3\n", "utf-8")
    with pytest.raises(RucolaError) as caught:
        TableFrequencies(path, FrequencyTable())
    assert "in the header 'lemma\\u200b', ipm" in caught.value.format()


def test_a_list_of_good_rows_reads_as_it_did(tmp_path: Path):
    """Blank lines skipped, -0 read as 0, a word's rows summed, counts over their total."""
    path = tmp_path / "freq.tsv"
    path.write_text("lemma\tipm\n\ncasa\t-0\nCasa\t1.5\n \t \ncane\t0.5\n", "utf-8")
    assert TableFrequencies(path, FrequencyTable()).table == {"casa": 1.5, "cane": 0.5}
    counts = TableFrequencies(path, FrequencyTable(unit="count")).table
    assert counts == {"casa": 750_000.0, "cane": 250_000.0}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Lemma\tPoS\tFreq(ipm)\nдом\ts\tinf\n", ["rnc.tsv:2", "not a finite number"]),
        ("Lemma\tPoS\tFreq(ipm)\nдом\ts\t-1\n", ["rnc.tsv:2", "negative"]),
        ("Lemma\tPoS\tFreq(ipm)\n", ["rnc.tsv:1", "no rows under the header"]),
    ],
)
def test_the_rnc_reader_holds_its_rows_to_the_same_rules(tmp_path, text, words):
    path = tmp_path / "rnc.tsv"
    path.write_text(text, "utf-8")
    with pytest.raises(RucolaError) as caught:
        RncFrequencies(path)
    for word in words:
        assert word in caught.value.format()


# ipm of the RNC dictionary as it read before the checks above (and RNC's own numbers).
RNC_SAMPLE = {
    "и": 35801.8,
    "в": 31374.2,
    "быть": 12160.7,
    "дом": 792.6,
    "ёлка": 22.3,
    "стол": 402.5,
    "кошка": 50.4,
    "сахар": 38.1,
    "абажур": 4.9,
    "Москва": 633.5,
}


def test_the_rnc_dictionary_reads_as_before_with_either_reader(shared_data: Path):
    path = shared_data / "rnc" / "freqrnc2011.tsv"
    rnc = RncFrequencies(path)
    table = TableFrequencies(path, FrequencyTable(word="Lemma", value="Freq(ipm)"))
    assert rnc.table == table.table and len(rnc.table) == 51_682
    assert {word: rnc.ipm(word) for word in RNC_SAMPLE} == RNC_SAMPLE


def _measure_with(tmp_path: Path, run_cli, frequency: str, *params: str) -> tuple[int, str]:
    """``rucola measure`` on a one-sentence parquet with ``frequency`` as the
    ``filter.frequency`` section of ``other.yaml`` (a good ``params.yaml`` beside it)."""
    pq.write_table(pa.table({"sentence": ["La casa è grande."]}), tmp_path / "in.parquet")
    (tmp_path / "params.yaml").write_text(identity_yaml("corpus:\n  language: it\n"), "utf-8")
    (tmp_path / "other.yaml").write_text(
        identity_yaml(f"corpus:\n  language: it\nfilter:\n  frequency:\n{frequency}"), "utf-8"
    )
    args = ["--input", "in.parquet", "--out", "measured.parquet", "--workers", "1"]
    code, _, err = run_cli("measure", *args, *params, cwd=tmp_path)
    return code, err


def test_a_bad_params_key_names_the_params_file_given(run_cli, tmp_path: Path):
    """``table.delimiter`` is checked when the list is read, long after the params file
    was: the message named ``params.yaml`` whatever ``--params`` said."""
    (tmp_path / "freq.tsv").write_text("lemma\tipm\ncasa\t3\n", "utf-8")
    section = "    source: table\n    path: [freq.tsv]\n    table:\n      delimiter: '||'\n"
    code, err = _measure_with(tmp_path, run_cli, section, "--params", "other.yaml")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: other.yaml: filter.frequency.table.delimiter '||' is not")
    assert "params.yaml" not in err


def test_a_bad_list_stops_the_command_with_one_line(run_cli, tmp_path: Path):
    (tmp_path / "freq.tsv").write_text("lemma\tipm\ncasa\t1e400\n", "utf-8")
    section = "    source: table\n    path: [freq.tsv]\n"
    code, err = _measure_with(tmp_path, run_cli, section, "--params", "other.yaml")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: freq.tsv:2: frequency '1e400' is not a finite number")


def test_a_table_source_without_a_path_is_refused(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("filter:\n  frequency:\n    source: table\n"), "utf-8"
    )
    code, _, err = run_cli("split", "--params", str(tmp_path / "params.yaml"))
    assert code == 1 and "is 'table' but filter.frequency.path names no dictionary" in err
