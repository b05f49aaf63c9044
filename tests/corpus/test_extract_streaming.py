"""Extract holds its rows in Arrow pieces of ``row_store.BATCH_ROWS`` (issue 42: a million-row table
in under 1 GiB) and reads tables as a stream; its outputs are the same bytes whatever the
size of the pieces (Parquet pages would follow them)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from identity import rucola_categories

from rucola.corpus import extract as extract_stage
from rucola.corpus import row_store
from rucola.settings import Extract, ExtractSource

ROWS = [
    ("Мальчик читает книгу.", "1", "", "train"),
    ("Мальчик читают книгу.", "0", "Morphology", "train"),
    ("Мальчик читает книгу.", "1", "", "test"),  # a test copy of a train row
    ("Девочка пришла домой.", "1", "", "validation"),
    ("Девочка пришла домой.", "0", "Syntax", "train"),  # conflicting labels
    ("Он  пришёл\u00a0домой.", "1", "", "train"),  # normalised
    ("Они пришли.", "2", "", "train"),  # an excluded label
    ("Она спит (*спят).", "1", "", "validation"),
    ("Мы гуляли в парке.", "1", "", "test"),
]


def _outputs(tmp_path: Path, name: str) -> dict[str, str]:
    table = tmp_path / "table.tsv"
    lines = ["sentence\tlabel\terror_type\tsplit\tnote"]
    lines += [
        f"{s}\t{label}\t{kind}\t{split}\tp. {i}" for i, (s, label, kind, split) in enumerate(ROWS)
    ]
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / name
    settings = Extract(
        out=str(out / "kept.parquet"),
        rejected=str(out / "rejected.parquet"),
        report=str(out / "report.json"),
        private_report=str(out / "private.json"),
    )
    source = ExtractSource(
        path=str(table),
        columns={"label": "label", "split": "split"},
        labels={"1": "acceptable", "0": "unacceptable", "2": "exclude"},
    )
    extract_stage.extract(settings, rucola_categories(), [source])
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir())}


def test_the_outputs_do_not_depend_on_the_size_of_the_pieces(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    # pages of a few bytes: a page then ends where a piece ends, as a 1 MiB page does in a
    # large table, and the bytes would show pieces written as they are (rucola.io's writer
    # looks pyarrow.parquet.write_table up when it writes)
    write_table, written = pq.write_table, []

    def small_pages(*args, **kwargs):  # noqa: ANN202 - pyarrow's own signature
        written.append(args[1])
        return write_table(*args, **kwargs, data_page_size=16)

    monkeypatch.setattr(pq, "write_table", small_pages)
    whole = _outputs(tmp_path, "whole")
    monkeypatch.setattr(row_store, "BATCH_ROWS", 2)
    pieces = _outputs(tmp_path, "pieces")
    assert pieces == whole and len(whole) == 4
    assert written  # the small pages were written


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_a_streamed_table_reads_every_line_ending_and_a_bom(tmp_path, ending):
    from rucola.corpus.sources.readers import Readers

    path = tmp_path / "t.tsv"
    text = 'sentence\tlabel\nA cat sleeps.\t1\n"A cat\nsleeps."\t0\n'.replace("\n", ending)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    source = ExtractSource(path=str(path), columns={"label": "label"})
    rows = list(Readers(Extract(), rucola_categories()).read(path, source))
    assert [(r.text, r.label, r.origin) for r in rows] == [
        ("A cat sleeps.", 1, f"{path}:2"),
        ("A cat\nsleeps.", 0, f"{path}:3"),
    ]
