"""``filter.frequency.source: table``: a user's own frequency list, its column layout
declared in ``filter.frequency.table``."""

from __future__ import annotations

from pathlib import Path

import pytest

from rucola.corpus.frequency import TableFrequencies, load_frequencies
from rucola.errors import RucolaError
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


@pytest.mark.parametrize(
    ("text", "layout", "words"),
    [
        ("lemma\tipm\ncasa\tmolto\n", {}, ["freq.tsv:2", "bad frequency row"]),
        ("lemma\tipm\ncasa\n", {}, ["freq.tsv:2", "column 2 a number"]),
        ("word\tfreq\ncasa\t3\n", {}, ["freq.tsv:1", "no column 'lemma'", "word, freq"]),
        ("casa\t3\n", {"header": False}, ["freq.tsv", "give the column's number"]),
        ("lemma\tipm\ncasa\t-3\n", {}, ["freq.tsv:2", "negative"]),
        ("lemma\tipm\n", {"delimiter": "||"}, ["not one character"]),
    ],
)
def test_a_bad_list_is_one_line_naming_the_file_and_line(tmp_path, text, layout, words):
    path = tmp_path / "freq.tsv"
    path.write_text(text, "utf-8")
    with pytest.raises(RucolaError) as caught:
        TableFrequencies(path, FrequencyTable(**layout))
    message = caught.value.format()
    assert "\n" not in message
    for word in words:
        assert word in message


def test_a_table_source_without_a_path_is_refused(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text("filter:\n  frequency:\n    source: table\n", "utf-8")
    code, _, err = run_cli("split", "--params", str(tmp_path / "params.yaml"))
    assert code == 1 and "is 'table' but filter.frequency.path names no dictionary" in err
