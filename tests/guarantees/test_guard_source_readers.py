"""Every source reader keeps the promises of ``rucola extract``, tried through the command
line on each registered format (``rucola.registry.SOURCE_READERS``), so a new reader meets
them without a test of its own: its own example file is read into rows, each row read kept
or set aside and counted; a file cut short, undecodable or empty is one line naming the
file, exit 1, no output; what it says it carries (labels or marks) is what it gives; its
extensions choose it when a source gives no type.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from guards import one_error_line
from identity import rucola_categories, with_identity

from rucola.corpus.sources.readers import by_extension, source_type
from rucola.corpus.sources.records import LABELS, MARKS
from rucola.registry import SOURCE_READERS

FORMATS = SOURCE_READERS.names()
OUT = "o.parquet"


def project(tmp_path: Path, kind: str, body: bytes | str) -> Path:
    """A folder with one source file of ``kind`` and params naming it with its type."""
    reader = SOURCE_READERS[kind]
    data = body.encode("utf-8") if isinstance(body, str) else body
    (tmp_path / reader.example_name).write_bytes(data)
    params = {
        "extract": {
            "sources": [{"path": reader.example_name, "type": kind}],
            "report": "report.json",
            "private_report": "private.json",
            "rejected": "rejected.parquet",
        }
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(with_identity(params)), encoding="utf-8")
    return tmp_path


def extract(run_cli, root: Path) -> tuple[int, str]:
    code, _, stderr = run_cli("extract", "--out", OUT, cwd=root)
    return code, stderr


def test_the_registry_holds_the_formats_the_docs_describe():
    assert {"sheet", "list", "rucola_csv", "m2"} <= set(FORMATS)


@pytest.mark.parametrize("kind", FORMATS)
def test_its_example_is_read_and_every_row_has_a_fate(run_cli, tmp_path: Path, kind: str):
    root = project(tmp_path, kind, SOURCE_READERS[kind].example)
    code, stderr = extract(run_cli, root)
    assert code == 0, stderr
    rows = pd.read_parquet(root / OUT)
    assert len(rows) >= 1
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    assert report["read"] == report["kept"] + sum(report["set_aside"].values()), report


@pytest.mark.parametrize("kind", FORMATS)
def test_what_it_carries_is_what_it_gives(tmp_path: Path, kind: str):
    """A format that carries labels sets each example's label; one that carries only
    marks leaves the label to ``extract.marks``."""
    from rucola.corpus.sources.readers import Readers
    from rucola.settings import Extract, ExtractSource

    reader = SOURCE_READERS[kind]
    path = tmp_path / reader.example_name
    path.write_text(reader.example, encoding="utf-8")
    readers = Readers(Extract(), rucola_categories())
    examples = list(readers.read(path, ExtractSource(path=str(path), type=kind)))
    assert examples and reader.carries and reader.carries <= {LABELS, MARKS}
    labelled = [e.label is not None for e in examples]
    if reader.carries == {LABELS}:
        assert all(labelled)
    if reader.carries == {MARKS}:
        assert not any(labelled)
    assert all(e.origin.startswith(f"{path}:") for e in examples)


@pytest.mark.parametrize("kind", FORMATS)
@pytest.mark.parametrize(
    ("case", "body"),
    [
        ("undecodable", b"\xff\xfe\x00 not text \xc3\x28\n"),
        ("empty", b""),
    ],
)
def test_a_broken_file_is_one_line_naming_it(run_cli, tmp_path, kind, case, body):
    reader = SOURCE_READERS[kind]
    root = project(tmp_path, kind, body)
    code, stderr = extract(run_cli, root)
    assert code == 1, (case, stderr)
    one_error_line(stderr, reader.example_name)
    assert not (root / OUT).exists() and not (root / "report.json").exists()


@pytest.mark.parametrize("kind", FORMATS)
def test_a_file_cut_short_loses_no_row_silently(run_cli, tmp_path, kind):
    """The example cut in the middle of its last line: either one line naming the file,
    or rows read, each kept or set aside and counted."""
    text = SOURCE_READERS[kind].example
    root = project(
        tmp_path, kind, text[: len(text) - len(text.rstrip("\n").split("\n")[-1]) // 2 - 1]
    )
    code, stderr = extract(run_cli, root)
    if code == 1:
        one_error_line(stderr, SOURCE_READERS[kind].example_name)
        assert not (root / OUT).exists()
    else:
        assert code == 0, stderr
        report = json.loads((root / "report.json").read_text(encoding="utf-8"))
        assert report["read"] == report["kept"] + sum(report["set_aside"].values()), report


@pytest.mark.parametrize("kind", FORMATS)
def test_its_extensions_choose_it(kind: str):
    for extension in SOURCE_READERS[kind].extensions:
        assert by_extension()[extension] == kind
        assert source_type(Path(f"x{extension}"), None) == kind


def test_an_unknown_type_in_params_is_one_line_naming_the_key_and_the_types(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        "extract:\n  sources:\n    - path: a.txt\n      type: nonsense\n", encoding="utf-8"
    )
    code, stderr = extract(run_cli, tmp_path)
    assert code == 1
    line = one_error_line(stderr, "params.yaml", "extract.sources[0].type", "nonsense")
    for kind in FORMATS:
        assert kind in line
