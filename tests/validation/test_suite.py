"""The validate stage: the GX suite passes clean data and names the rows that break a rule."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import pytest
from identity import rucola_categories, with_identity
from release_params import merged

from rucola.corpus.artefacts import detect
from rucola.corpus.extract import Extractor, _Collector
from rucola.corpus.marks import split_leading_mark
from rucola.corpus.sources.records import RawExample
from rucola.errors import RucolaError
from rucola.io import file_sha256, write_parquet
from rucola.settings import Extract, Params
from rucola.validation.balance import share_tolerance, size_tolerance
from rucola.validation.properties import row_properties
from rucola.validation.run import ValidationResult, _read, validate_split
from rucola.validation.suite import (
    UNPRINTABLE,
    UNPRINTABLE_NAME,
    all_checks,
)

PARENTHESIS = "sentence: no marked or slashed parenthesis"
LEADING = "sentence: no judgment mark at the start"
SPLIT_SIZES = "split sizes: within max(0.02, 2 groups / rows) of split.ratios"
EMPTY_SPLITS = "split sizes: empty where split.ratios is 0"
ACCEPTABLE_SHARE = "acceptable share: within max(0.03, 2 standard errors) of the domain's"
IN_DOMAIN_TYPES = ["Morphology", "Syntax", "Semantics"]


def params(**overrides: dict) -> Params:
    """RuCoLA's params (the schema's defaults under RuCoLA's identity and categories) with
    ``overrides`` (section -> keys, a mapping laid on the one it replaces) validated like a
    file."""
    data = Params.model_validate(with_identity()).model_dump()
    for section, values in overrides.items():
        data[section] = merged(data[section], values)
    return Params.model_validate(data)


def renumber(frame: pd.DataFrame) -> pd.DataFrame:
    """Sequential ids within each split, as the split stage gives them."""
    frame = frame.reset_index(drop=True)
    frame["id"] = frame.groupby("split").cumcount().astype("int64")
    return frame


def valid_frame(case: int = 0) -> pd.DataFrame:
    """100 in-domain rows split 80/10/10 and 20 out-of-domain rows split 0/10/10, with an
    acceptable share of 0.8 (in domain) and 0.5 (out of domain) in every split; ``case``
    (the batch of row checks below) numbers its sentences, groups and origins apart."""
    n, prefix = 1000 * case, f"case{case}/" if case else ""
    rows = []
    for i in range(100):
        label = int(i % 5 != 0)
        split = "train" if i < 80 else "validation" if i < 90 else "test"
        rows.append(
            {
                "sentence": f"Мальчик номер {i + n} читает новую книгу.",
                "label": label,
                "error_type": None if label else IN_DOMAIN_TYPES[i // 5 % 3],
                "domain": "in_domain",
                "detailed_source": "Paducheva2004",
                "mark": "" if label else "*",
                "group": f"{prefix}g{i}",
                "origin": f"{prefix}in_domain.tsv:{i + 2}",
                "n_tokens": 6,
                "high_freq_share": 0.9,
                "split": split,
            }
        )
    for i in range(20):
        label = i % 2
        rows.append(
            {
                "sentence": f"Девочка номер {i + n} пишет длинное письмо.",
                "label": label,
                "error_type": None if label else "Hallucination",
                "domain": "out_of_domain",
                "detailed_source": "generated",
                "mark": "" if label else "*",
                "group": f"{prefix}o{i}",
                "origin": f"{prefix}out_of_domain.tsv:{i + 2}",
                "n_tokens": 6,
                "high_freq_share": 0.8,
                "split": "validation" if i < 10 else "test",
            }
        )
    return renumber(pd.DataFrame(rows))


def run(tmp_path: Path, frame: pd.DataFrame, docs: bool = False, **overrides):
    path = tmp_path / "split.parquet"
    write_parquet(frame, path)
    report_path = tmp_path / "validation.json"
    public_path = tmp_path / "public_validation.json"
    docs_dir = tmp_path / "docs" if docs else None
    result = validate_split(path, params(**overrides), public_path, docs_dir, report_path)
    report = json.loads(report_path.read_text(encoding="utf-8"))  # the private report
    public = json.loads(public_path.read_text(encoding="utf-8"))  # what git tracks
    assert public == {
        "success": report["success"],
        "rows": report["rows"],
        "expectations": [
            {"name": e["name"], "success": e["success"]} for e in report["expectations"]
        ],
        "failed": report["failed"],
        "evaluated": report["evaluated"],
    }
    return result, report


def failure(result: ValidationResult, name: str):
    matches = [f for f in result.failures if f.expectation == name]
    assert matches, f"'{name}' did not fail; failures: {[f.expectation for f in result.failures]}"
    return matches[0]


def failed_names(result: ValidationResult) -> set[str]:
    return {f.expectation for f in result.failures}


def keys(rows: list[dict]) -> set[tuple]:
    return {(r["split"], r["id"]) for r in rows}


def locate(frame: pd.DataFrame, index: int) -> tuple[str, int]:
    return frame.at[index, "split"], int(frame.at[index, "id"])


# --- one GX run for the row checks (issue 44) ---------------------------------------------
# Each row check below changes a cell or two of a valid frame; run one by one, each was a
# whole GX validation. Here every case gets a valid frame of its own (its sentences, groups
# and origins numbered apart, so no two cases' rows meet in a table-wide check), all are
# validated together in one run under the default params, and each test reads back the
# failures of its own case's rows.


@dataclass
class RowChecks:
    frame: pd.DataFrame  # every case's frame, one after another, as validated
    cases: dict[tuple, int]  # case -> where its rows start in ``frame``
    result: ValidationResult
    report: dict

    def locate(self, case: tuple, index: int) -> tuple[str, int]:
        return locate(self.frame, self.cases[case] + index)

    def cell(self, case: tuple, index: int, column: str):  # noqa: ANN201 - a cell's value
        return self.frame.at[self.cases[case] + index, column]

    def _mine(self, case: tuple, rows: list[dict]) -> list[dict]:
        start = self.cases[case]
        own = set(map(tuple, self.frame.iloc[start : start + ROWS][["split", "id"]].values))
        return [r for r in rows if (r["split"], r["id"]) in own]

    def failures(self, case: tuple) -> dict[str, list[dict]]:
        """Expectation -> the case's rows it names, for each that names one."""
        found = {f.expectation: self._mine(case, f.rows) for f in self.result.failures}
        return {name: rows for name, rows in found.items() if rows}

    def sole_failure(self, case: tuple, name: str, index: int) -> list[dict]:
        """The case's rows that ``name`` names, after checking that ``name`` is the only
        expectation failing on the case's rows and that it names row ``index`` alone."""
        failures = self.failures(case)
        assert set(failures) == {name}
        assert keys(failures[name]) == {self.locate(case, index)}
        return failures[name]

    def entry(self, case: tuple, name: str) -> dict:
        """The report's entry of expectation ``name``, counted over the case's rows."""
        entry = next(e for e in self.report["expectations"] if e["name"] == name)
        rows = self._mine(case, entry["rows"])
        return {"success": entry["success"], "unexpected_count": len(rows), "rows": rows}


ROWS = len(valid_frame())


def row_cases() -> dict[tuple, Callable[[pd.DataFrame], pd.DataFrame]]:
    """Every case of the batched row checks: (test, its parameter) -> the change it makes."""
    cases: dict[tuple, Callable[[pd.DataFrame], pd.DataFrame]] = {}
    for sentence in ORDINARY:
        cases["ordinary", sentence] = mutate("sentence", 7, sentence)
    for sentence in LEADING_MARKS:
        cases["leading", sentence] = mutate("sentence", 12, sentence)
    for sentence in PARENTHESES:
        cases["parenthesis", sentence] = mutate("sentence", 85, sentence)
    for sentence in CONTROL:
        cases["control", sentence] = mutate("sentence", 30, sentence)
    for change, index, name in ROW_RULES:
        cases["rule", name, index] = change
    return cases


@pytest.fixture(scope="module")
def row_checks(tmp_path_factory) -> RowChecks:
    frames, starts = [], {}
    for number, (case, change) in enumerate(row_cases().items(), start=1):
        starts[case] = len(frames) * ROWS
        frames.append(change(valid_frame(number)))
    frame = renumber(pd.concat(frames, ignore_index=True))
    assert not frame["sentence"].duplicated().any(), "two cases write the same sentence"
    result, report = run(tmp_path_factory.mktemp("row_checks"), frame)
    # the batch breaks row checks only: every failure names rows, and every count is whole
    assert all(f.rows for f in result.failures), result.summary()
    for entry in report["expectations"]:
        if entry["unexpected_count"]:
            assert entry["unexpected_count"] == len(entry["rows"]) < 50, entry["name"]
    return RowChecks(frame, starts, result, report)


# --- clean data ---------------------------------------------------------------------------


@pytest.mark.slow
def test_valid_frame_passes_and_records_the_hash(tmp_path):
    frame = valid_frame()
    result, report = run(tmp_path, frame, docs=True)
    assert result.success, result.summary()
    assert result.failures == []
    assert report["success"] is True
    assert report["data_sha256"] == file_sha256(tmp_path / "split.parquet")
    assert report["rows"] == len(frame)
    assert report["failed"] == 0
    assert report["evaluated"] == len(all_checks(params())) == len(report["expectations"])
    assert [e["name"] for e in report["expectations"]] == [c.name for c in all_checks(params())]
    assert all(e["success"] for e in report["expectations"])
    index = tmp_path / "docs" / "index.html"
    assert index.is_file()
    pages = list((tmp_path / "docs").rglob("*.html"))
    assert any("validations" in p.parts for p in pages)
    # no temporary folders left next to the docs or the report
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "docs",
        "public_validation.json",
        "split.parquet",
        "validation.json",
    ]


@pytest.mark.slow
def test_report_is_byte_identical_across_runs(tmp_path):
    frame = valid_frame()
    frame.loc[3, "sentence"] = "*Мальчик читает книгу вчера."  # a failure with rows, too
    run(tmp_path, frame, docs=True)
    first = (tmp_path / "validation.json").read_bytes()
    run(tmp_path, frame, docs=True)
    assert (tmp_path / "validation.json").read_bytes() == first
    report = json.loads(first)
    assert report["success"] is False and report["failed"] == 1
    assert (tmp_path / "docs" / "index.html").is_file()


@pytest.mark.slow
def test_hash_follows_the_file(tmp_path):
    _, first = run(tmp_path, valid_frame())
    frame = valid_frame()
    frame.loc[0, "high_freq_share"] = 0.95
    _, second = run(tmp_path, frame)
    assert first["data_sha256"] != second["data_sha256"]
    assert second["data_sha256"] == file_sha256(tmp_path / "split.parquet")


ORDINARY = [
    "Мальчик, как всегда, опоздал (как обычно) на урок.",
    "Он так и не объяснил, зачем пришёл (почему?).",
    "Он ушёл (почему?)",
    "Цена выросла на 5% за последний год.",
    "Где он? Никто не знает, куда он делся.",
    # printable, though some print nothing: the soft hyphen the published corpus keeps
    "Мягкий пере\u00adнос остался, как в изданном корпусе.",
    "Ёжик и эмодзи 😀 — печатные символы.",
]


@pytest.mark.parametrize("sentence", ORDINARY)
def test_ordinary_text_passes(row_checks, sentence):
    assert row_checks.failures(("ordinary", sentence)) == {}
    assert row_checks.cell(("ordinary", sentence), 7, "sentence") == sentence


@pytest.mark.slow
def test_a_domain_without_rows_is_skipped(tmp_path):
    frame = renumber(valid_frame().query("domain == 'in_domain'"))
    result, _ = run(tmp_path, frame)
    assert result.success, result.summary()


# --- judgment marks and parentheses ------------------------------------------------------


LEADING_MARKS = [
    "*Иван пришла.",
    "?Мальчик читает книгу.",
    "  #Мальчик читает книгу.",
    "%Мальчик читает книгу.",
    "\u00a0*Мальчик читает книгу.",
    "*?Мальчик читает книгу.",
]


@pytest.mark.parametrize("sentence", LEADING_MARKS)
def test_leading_mark_fails_and_names_the_row(row_checks, sentence):
    case = ("leading", sentence)
    rows = row_checks.sole_failure(case, LEADING, 12)
    assert rows[0]["sentence"] == sentence
    assert rows[0]["origin"] == row_checks.cell(case, 12, "origin")
    entry = row_checks.entry(case, LEADING)
    assert entry["success"] is False and entry["unexpected_count"] == 1
    assert entry["rows"] == rows


PARENTHESES = [
    "Иван Грозный не убил (*не убивал) своего сына.",
    "Он пришёл (?на) работу вовремя.",
    "Он пришёл ( *X) на работу вовремя.",
    "Он пришёл (в/на) работу вовремя.",
    "Он пришёл (в/*на) работу вовремя.",
]


@pytest.mark.parametrize("sentence", PARENTHESES)
def test_marked_or_slashed_parenthesis_fails(row_checks, sentence):
    rows = row_checks.sole_failure(("parenthesis", sentence), PARENTHESIS, 85)
    assert rows[0]["sentence"] == sentence


# --- one definition of each row property (issue 42) ---------------------------------------

# Sentences in several scripts, as read: marks in front (plain, slashed, repeated, behind an
# invisible character, after a no-break space), parentheses marked, slashed or plain, and
# words whose letters once looked like artefacts to one rule or another.
TRICKY = [
    ("*Иван пришла.", None),
    (" ?Мальчик читает книгу.", None),
    ("\u00a0*Мальчик читает книгу.", None),
    ("\u200b*Иван пришла.", None),
    ("*?Иван пришла.", None),
    ("X *Y", None),
    ("?*Lesið hafa strákarnir bækurnar.", "?*"),
    ("?Lesið hafa strákarnir bækurnar.", "*"),
    ("*/??Er hat das Buch gelesen.", None),
    ("?/* Il a obéi.", None),
    ("Hann þurrkaði diskinn og tók bókina í Reykjavík.", None),
    ("Иван Грозный не убил (*не убивал) своего сына.", None),
    ("Он пришёл (в/*на) работу.", None),
    ("太郎が学校(に/で)行った。", None),
    ("Er kam (wie immer) zu spät.", None),
    ("Он спросил (почему?) и ушёл.", None),
    ("Ему дают 1/4 фунта (1/5%) хлеба.", None),
    ("هوi قال.", None),
    ("(*в) *Он пришёл.", None),
]


def test_validates_columns_are_extracts_own_rules(tmp_path):
    """The text checks' columns are what ``split_leading_mark`` and the artefact rule say of
    the sentence, in every script; a parenthesis extract flagged is no longer its concern."""
    frame = valid_frame().iloc[: len(TRICKY)].copy()
    frame["sentence"] = [text for text, _ in TRICKY]
    frame["artefacts"] = None
    frame.loc[12, "artefacts"] = "unexpanded_alternation,judgment_mark"  # kept flagged
    path = tmp_path / "split.parquet"
    write_parquet(frame, path)
    read = _read(path)
    assert read["leading_mark"].tolist() == [
        split_leading_mark(text)[0] or None for text, _ in TRICKY
    ]
    expected = [
        "unexpanded_alternation"
        if "unexpanded_alternation" in detect(text) and index != 12
        else None
        for index, (text, _) in enumerate(TRICKY)
    ]
    assert read["marked_parenthesis"].tolist() == expected
    assert expected.count("unexpanded_alternation") == 3  # (в/*на), (に/で), (*в)


def kept_by_extract(artefacts: str) -> list[dict]:
    """The rows extract keeps of ``TRICKY`` (each its own sheet row, its mark column as
    given; labelled rows are not expanded, so their parentheses stay)."""
    settings = Extract(artefacts=artefacts, require_error_type=False, deduplicate=False)
    extractor, collector = Extractor(settings, rucola_categories()), _Collector()
    for line, (text, mark) in enumerate(TRICKY, start=2):
        row = RawExample(f"s.tsv:{line}", text, text, mark, None, "Sample")
        extractor.add(row, collector)
        extractor.add(replace(row, origin=f"t.tsv:{line}", label=1, expand=False), collector)
    return collector.rows


@pytest.mark.parametrize("artefacts", ["keep", "reject"])
def test_no_row_extract_keeps_breaks_a_text_check(artefacts):
    kept = kept_by_extract(artefacts)
    assert len(kept) >= len(TRICKY)
    frame = pd.DataFrame(kept)
    read = pd.DataFrame(row_properties(frame))
    assert read["leading_mark"].isna().all(), frame[read["leading_mark"].notna()]
    assert read["marked_parenthesis"].isna().all(), frame[read["marked_parenthesis"].notna()]


def test_validate_accepts_what_extract_kept(tmp_path):
    """One GX run over the rows extract kept of ``TRICKY`` (artefacts kept, flagged, as the
    CoLA and ItaCoLA presets keep them): not one text check refuses one of them."""
    kept = list({row["sentence"]: row for row in reversed(kept_by_extract("keep"))}.values())
    assert any(row["artefacts"] == "unexpanded_alternation" for row in kept)
    frame = valid_frame()
    rows = frame.index[frame["label"] == 1][: len(kept)]
    assert len(rows) == len(kept)
    frame["artefacts"] = None
    frame.loc[rows, "sentence"] = [row["sentence"] for row in kept]
    frame.loc[rows, "artefacts"] = [row["artefacts"] for row in kept]
    result, _ = run(tmp_path, frame)
    assert result.success, result.summary()


# --- control and non-printing characters (issue 13: text is text) -----------------------


CONTROL = [
    "Мальчик чи\x00тает книгу.",
    "Девочка пи\x07шет письмо.",
    "Мама \u202eмоет раму.",
    "Кот\x1b[0m спит.",
    "Дом\ue000 стоит.",
    "Дом стоит.\x85",
    "Табуляция\tв тексте.",
    "Перевод\u2028строки.",
    "Возврат\rкаретки.",
]


@pytest.mark.parametrize("sentence", CONTROL)
def test_control_character_fails_and_names_the_row(row_checks, sentence):
    case = ("control", sentence)
    rows = row_checks.sole_failure(case, UNPRINTABLE_NAME, 30)
    assert rows[0]["sentence"] == sentence
    assert row_checks.entry(case, UNPRINTABLE_NAME)["unexpected_count"] == 1


def test_published_rows_are_not_exempt_from_the_control_character_check(tmp_path):
    """``validate.exempt_published`` spares published artefacts, never a NUL."""
    frame = valid_frame()
    frame["published_id"] = pd.array(range(len(frame)), dtype="Int64")
    frame.loc[30, "sentence"] = "*Мальчик чи\x00тает книгу."  # a leading mark and a NUL
    result, _ = run(tmp_path, frame, validate={"exempt_published": True})
    assert failed_names(result) == {UNPRINTABLE_NAME}
    assert keys(failure(result, UNPRINTABLE_NAME).rows) == {locate(frame, 30)}


def test_control_character_class_agrees_with_python_re_and_re2():
    import pyarrow as pa
    import pyarrow.compute as pc

    samples = ["a\x00b", "a\u202eb", "a\U000e0001", "чистый текст", "a\u00adb", "a\tb", "a\u2028"]
    expected = [True, True, True, False, False, True, True]
    assert [bool(re.search(UNPRINTABLE, s)) for s in samples] == expected
    assert pc.match_substring_regex(pa.array(samples), UNPRINTABLE).to_pylist() == expected


# --- uniqueness --------------------------------------------------------------------------


def test_duplicate_sentence_names_both_rows(tmp_path):
    frame = valid_frame()
    frame.loc[50, "sentence"] = frame.at[5, "sentence"]
    result, _ = run(tmp_path, frame)
    assert failed_names(result) == {"sentence: unique across all splits"}
    rows = failure(result, "sentence: unique across all splits").rows
    assert keys(rows) == {locate(frame, 5), locate(frame, 50)}


def test_duplicate_sentence_across_splits_fails(tmp_path):
    frame = valid_frame()
    frame.loc[95, "sentence"] = frame.at[1, "sentence"]  # train and test
    result, _ = run(tmp_path, frame)
    rows = failure(result, "sentence: unique across all splits").rows
    assert {r["split"] for r in rows} == {"train", "test"}


def test_duplicate_split_and_id_fails(tmp_path):
    frame = valid_frame()
    frame.loc[2, "id"] = 1
    result, _ = run(tmp_path, frame)
    name = "id: unique per split (and, outside test, per domain, as published)"
    assert failed_names(result) == {name}
    rows = failure(result, name).rows
    assert {r["origin"] for r in rows} == {frame.at[1, "origin"], frame.at[2, "origin"]}


# --- labels, error types, domains, splits, lengths ------------------------------------


def mutate(column: str, index: int, value) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def apply(frame: pd.DataFrame) -> pd.DataFrame:
        frame.loc[index, column] = value
        return frame

    return apply


ROW_RULES = [
    (mutate("error_type", 1, "Syntax"), 1, "error_type: null for acceptable rows"),
    (mutate("error_type", 5, None), 5, "error_type: set for unacceptable rows"),
    (
        mutate("error_type", 5, "Pragmatics"),
        5,
        "error_type: one of Morphology, Syntax, Semantics, Hallucination",
    ),
    (
        mutate("error_type", 5, "Hallucination"),
        5,
        "error_type: Hallucination only out of domain",
    ),
    (mutate("n_tokens", 7, 3), 7, "n_tokens: between 4 and 30"),
    (mutate("n_tokens", 8, 31), 8, "n_tokens: between 4 and 30"),
    (mutate("origin", 9, None), 9, "origin: not null"),
]


@pytest.mark.parametrize(("change", "index", "name"), ROW_RULES)
def test_row_rule_fails_and_names_the_row(row_checks, change, index, name):
    row_checks.sole_failure(("rule", name, index), name, index)


def test_hallucination_out_of_domain_is_fine(tmp_path):
    frame = valid_frame()
    assert (frame.loc[frame["domain"] == "out_of_domain", "error_type"] == "Hallucination").any()
    result, _ = run(tmp_path, frame)
    assert result.success, result.summary()


@pytest.mark.slow
def test_the_categories_are_the_params_lists(tmp_path):
    """``corpus.categories`` decides, per domain: Hallucination listed for in-domain rows
    passes there; Syntax left out of the in-domain list fails every in-domain Syntax row
    (a category two other domains allow: one check, the rows of neither refused)."""
    frame = mutate("error_type", 5, "Hallucination")(valid_frame())
    allowed = {"categories": {"in_domain": [*IN_DOMAIN_TYPES, "Hallucination"]}}
    result, _ = run(tmp_path, frame, corpus=allowed)
    assert result.success, result.summary()

    frame = valid_frame()
    (tmp_path / "strict").mkdir()
    strict = {"categories": {"in_domain": ["Morphology", "Semantics"]}}
    result, _ = run(tmp_path / "strict", frame, corpus=strict)
    name = "error_type: Syntax only out of domain or learner"
    assert failed_names(result) == {name}
    syntax = frame.index[(frame["domain"] == "in_domain") & (frame["error_type"] == "Syntax")]
    assert len(syntax) and keys(failure(result, name).rows) == {locate(frame, i) for i in syntax}


def test_label_outside_zero_and_one_fails(tmp_path):
    frame = valid_frame()
    frame.loc[3, "label"] = 2
    result, _ = run(tmp_path, frame)
    name = "label: 0 or 1 (-1: a published test row whose gold we do not hold)"
    assert keys(failure(result, name).rows) == {locate(frame, 3)}


@pytest.mark.slow
def test_unlabelled_rows_only_in_test(tmp_path):
    """A published test row whose gold we do not hold passes; -1 outside test fails."""
    frame = valid_frame()
    extra = frame[frame["split"] == "test"].iloc[[0]].copy()
    extra[["label", "error_type", "domain", "detailed_source"]] = [-1, None, None, None]
    extra["sentence"] = "Опубликованное тестовое предложение без метки."
    extra["id"] = int(frame.loc[frame["split"] == "test", "id"].max()) + 1
    frame = pd.concat([frame, extra], ignore_index=True)
    result, _ = run(tmp_path, frame)
    assert result.success, result.summary()
    train = frame.index[frame["split"] == "train"][0]
    frame.loc[train, "label"] = -1
    result, _ = run(tmp_path, frame)
    assert keys(failure(result, "label: 0 or 1 outside test").rows) == {locate(frame, train)}


def test_a_pinned_row_that_moved_fails(tmp_path):
    frame = valid_frame()
    frame["pinned_split"] = None
    row = frame.index[frame["split"] == "train"][0]
    frame.loc[row, "pinned_split"] = "test"
    result, _ = run(tmp_path, frame)
    name = "split: pinned rows keep the split of their pin or published release"
    assert keys(failure(result, name).rows) == {locate(frame, row)}


def test_unknown_split_and_domain_fail(tmp_path):
    frame = valid_frame()
    frame.loc[4, "split"] = "dev"
    frame.loc[6, "domain"] = "other"
    frame = renumber(frame)
    result, _ = run(tmp_path, frame)
    assert keys(failure(result, "split: train, validation, test").rows) == {("dev", 0)}
    name = "domain: in_domain, out_of_domain, learner"
    assert keys(failure(result, name).rows) == {locate(frame, 6)}


def test_n_tokens_bounds_come_from_params(tmp_path):
    frame = valid_frame()  # every row has 6 tokens
    result, _ = run(tmp_path, frame, filter={"min_tokens": 7, "max_tokens": 30})
    rows = failure(result, "n_tokens: between 7 and 30").rows
    assert len(rows) == len(frame)


@pytest.mark.slow
def test_a_null_token_bound_is_off_as_in_the_filter(tmp_path):
    """The schema allows ``filter.min_tokens: null`` ("off") and the filter honours it;
    validation failed with "filter.min_tokens must be a number, not None". A null bound is
    off here too: the other bound is still checked, and with both off there is no check."""
    frame = valid_frame()  # every row has 6 tokens
    result, report = run(tmp_path, frame, filter={"min_tokens": None, "max_tokens": 5})
    assert len(failure(result, "n_tokens: at most 5").rows) == len(frame)
    result, _ = run(tmp_path, frame, filter={"min_tokens": 7, "max_tokens": None})
    assert len(failure(result, "n_tokens: at least 7").rows) == len(frame)
    result, report = run(tmp_path, frame, filter={"min_tokens": None, "max_tokens": None})
    assert result.success, result.summary()
    bounds = ("n_tokens: between", "n_tokens: at least", "n_tokens: at most")
    assert not [e["name"] for e in report["expectations"] if e["name"].startswith(bounds)]


def test_wrong_type_is_a_table_level_failure(tmp_path):
    frame = valid_frame()
    frame["n_tokens"] = frame["n_tokens"].astype("float64")
    result, report = run(tmp_path, frame)
    assert failed_names(result) == {"n_tokens: of type int64"}
    fail = failure(result, "n_tokens: of type int64")
    assert fail.rows == []
    assert "float64" in fail.details
    entry = next(e for e in report["expectations"] if e["name"] == "n_tokens: of type int64")
    assert entry["unexpected_count"] is None and entry["rows"] == []


def test_empty_table_fails(tmp_path):
    frame = valid_frame().iloc[0:0]
    result, _ = run(tmp_path, frame)
    assert "table: has rows" in failed_names(result)


# --- split sizes and acceptable shares -----------------------------------------------


def test_bad_split_ratio_names_domain_and_split(tmp_path):
    frame = valid_frame()
    frame.loc[[0, 1, 2, 3, 4], "split"] = "test"  # train 0.75, test 0.15; shares stay 0.8
    frame = renumber(frame)
    result, report = run(tmp_path, frame)
    assert failed_names(result) == {SPLIT_SIZES}
    rows = failure(result, SPLIT_SIZES).rows
    assert {(r["domain"], r["split"]) for r in rows} == {
        ("in_domain", "train"),
        ("in_domain", "test"),
    }
    train = next(r for r in rows if r["split"] == "train")
    assert train["observed"] == pytest.approx(0.75) and train["target"] == pytest.approx(0.8)
    assert failure(result, SPLIT_SIZES).details == "2 of 6 splits"
    line = "  in_domain/train: 75 rows, share 0.75 (target 0.8, off by 0.05, tolerance 0.02)"
    assert result.summary().splitlines().count(line) == 1  # once: it was printed twice
    assert report["success"] is False


def test_split_deviation_within_tolerance_passes(tmp_path):
    frame = valid_frame()
    frame.loc[2, "split"] = "test"  # train 0.79, test 0.11
    result, _ = run(tmp_path, renumber(frame))
    assert result.success, result.summary()


def test_split_with_ratio_zero_must_be_empty(tmp_path):
    frame = valid_frame()
    frame.loc[101, "split"] = "train"  # one out-of-domain row in train (ratio 0)
    frame = renumber(frame)
    # loose tolerances: only the ratio-0 rule is left to catch it
    result, _ = run(
        tmp_path,
        frame,
        validate={"max_split_deviation": 0.1, "max_acceptable_share_deviation": 1.0},
    )
    assert failed_names(result) == {EMPTY_SPLITS}
    rows = failure(result, EMPTY_SPLITS).rows
    assert [(r["domain"], r["split"], r["rows"]) for r in rows] == [("out_of_domain", "train", 1)]


def test_skewed_acceptable_share_names_the_split(tmp_path):
    frame = valid_frame()
    for index in (81, 82, 83, 84, 86, 87):  # in-domain validation: 8 -> 2 acceptable of 10
        frame.loc[index, ["label", "error_type", "mark"]] = [0, "Syntax", "*"]
    result, _ = run(tmp_path, frame)
    assert failed_names(result) == {ACCEPTABLE_SHARE}
    rows = failure(result, ACCEPTABLE_SHARE).rows
    assert [(r["domain"], r["split"]) for r in rows] == [("in_domain", "validation")]
    assert rows[0]["observed"] == pytest.approx(0.2)
    assert rows[0]["target"] == pytest.approx(0.74)
    # two binomial standard errors of a 10-row split: 2 * sqrt(0.74 * 0.26 / 10)
    assert rows[0]["tolerance"] == pytest.approx(2 * math.sqrt(0.74 * 0.26 / 10), abs=1e-6)


def learner_rows(validation_acceptable: int = 7) -> pd.DataFrame:
    """Issue 24's learner domain of the sample with filter.max_tokens=12: 118 rows, 65
    acceptable (0.550847), split 95 / 12 / 11, ``validation_acceptable`` of the 12
    validation rows acceptable."""
    rows = []
    plan = {"train": (95, 65 - 6 - validation_acceptable), "validation": (12, 7), "test": (11, 6)}
    plan["validation"] = (12, validation_acceptable)
    for split, (count, acceptable) in plan.items():
        for i in range(count):
            label = int(i < acceptable)
            rows.append(
                {
                    "sentence": f"Ученик {split} номер {i} написал сочинение.",
                    "label": label,
                    "error_type": None if label else "Morphology",
                    "domain": "learner",
                    "detailed_source": "GERA",
                    "mark": "" if label else "*",
                    "group": f"l{split}{i}",
                    "origin": f"gera.m2:{i}",
                    "n_tokens": 6,
                    "high_freq_share": 0.9,
                    "split": split,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_tolerances_scale_with_the_split_size(tmp_path):
    """A 12-row split cannot hold the domain's share 0.550847 closer than 7/12: off by
    0.032486, over the configured 0.03 but well within two standard errors (0.287)."""
    frame = renumber(pd.concat([valid_frame(), learner_rows()]))
    result, report = run(tmp_path, frame)
    assert result.success, result.summary()
    entry = next(e for e in report["expectations"] if e["name"] == ACCEPTABLE_SHARE)
    assert entry["success"] and entry["details"] == "0 of 8 splits"
    # a split far off its domain's share still fails, small as it is
    frame = renumber(pd.concat([valid_frame(), learner_rows(validation_acceptable=1)]))
    result, _ = run(tmp_path, frame)
    assert failed_names(result) == {ACCEPTABLE_SHARE}
    assert [r["split"] for r in failure(result, ACCEPTABLE_SHARE).rows] == ["validation"]


def test_the_tolerance_rules():
    assert share_tolerance(0.03, 0.550847, 12) == 2 * math.sqrt(0.550847 * 0.449153 / 12)
    assert share_tolerance(0.03, 0.550847, 12) == pytest.approx(0.2872, abs=1e-4)
    assert share_tolerance(0.03, 0.55, 100_000) == 0.03  # large splits: the configured one
    assert share_tolerance(0.03, 0.0, 5) == 0.03  # one label only: nothing to scatter
    assert size_tolerance(0.02, 40, 1) == 0.05  # two rows of 40: per label, one row
    assert size_tolerance(0.02, 40, 2) == 0.1  # groups of two rows move two at a time
    assert size_tolerance(0.02, 10_000, 3) == 0.02


def pinned_with_new_rows(splits: list[str]) -> pd.DataFrame:
    """``valid_frame`` as a published release (every row pinned where it is) plus one new
    in-domain row per entry of ``splits``, placed there, 70% of them acceptable."""
    frame = valid_frame()
    frame["pinned_split"] = frame["split"]
    rows = []
    for i, split in enumerate(splits):
        label = int(i % 10 < 7)
        rows.append(
            {
                "sentence": f"Новое предложение номер {i} из листа.",
                "label": label,
                "error_type": None if label else IN_DOMAIN_TYPES[i % 3],
                "domain": "in_domain",
                "detailed_source": "Sheet",
                "mark": "" if label else "*",
                "group": f"new{i}",
                "origin": f"sheet.tsv:{i + 2}",
                "n_tokens": 7,
                "high_freq_share": 0.9,
                "split": split,
                "pinned_split": None,
            }
        )
    new = pd.DataFrame(rows)
    frame = pd.concat([frame, new], ignore_index=True)
    frame["id"] = frame.groupby("split").cumcount().astype("int64")
    return frame


def stratified(n: int, train: int, validation: int) -> list[str]:
    """``n`` split names, spread as the split stage spreads them (labels mixed)."""
    names = ["train"] * train + ["validation"] * validation + ["test"] * (n - train - validation)
    return [names[(i * 7) % n] for i in range(n)]


@pytest.mark.slow
def test_new_rows_of_a_pinned_domain_are_checked_against_the_ratios(tmp_path):
    """The pinned in-domain rows are the published release's; the 40 new rows must follow
    split.ratios among themselves (before issue 24 nothing checked them, and all of them
    went to test)."""
    result, report = run(tmp_path, pinned_with_new_rows(["test"] * 40))
    assert failed_names(result) == {SPLIT_SIZES}
    rows = failure(result, SPLIT_SIZES).rows
    assert {(r["domain"], r["rows_of"], r["split"]) for r in rows} == {
        ("in_domain", "new", "train"),
        ("in_domain", "new", "validation"),
        ("in_domain", "new", "test"),
    }
    assert "  in_domain/test (new rows): 40 rows, share 1.0 (target 0.1, off by 0.9, " in (
        result.summary()
    )
    # 32 / 4 / 4 passes, and so does 32 / 5 / 3: one row per label is 0.05 of 40 rows
    for train, validation in ((32, 4), (32, 5)):
        frame = pinned_with_new_rows(stratified(40, train, validation))
        result, _ = run(tmp_path, frame)
        assert result.success, result.summary()


@pytest.mark.slow
def test_new_rows_sent_to_one_split_must_all_be_there(tmp_path):
    policy = "new rows: all in train (split.new_rows), where the domain has pinned rows"
    frame = pinned_with_new_rows(["train"] * 40)
    result, report = run(tmp_path, frame, split={"new_rows": "train"})
    assert result.success, result.summary()
    assert policy in [e["name"] for e in report["expectations"]]
    frame = pinned_with_new_rows(["train"] * 39 + ["validation"])
    result, _ = run(tmp_path, frame, split={"new_rows": "train"})
    assert failed_names(result) == {policy}
    assert [r["sentence"] for r in failure(result, policy).rows] == [
        "Новое предложение номер 39 из листа."
    ]
    # the out-of-domain rows have no pin: a whole new domain, split by the ratios
    assert (frame.loc[frame["domain"] == "out_of_domain", "split"] != "train").all()


# --- errors and the summary -----------------------------------------------------------


def test_missing_input_raises_with_the_path(tmp_path):
    missing = tmp_path / "nope.parquet"
    with pytest.raises(RucolaError) as caught:
        validate_split(missing, params(), tmp_path / "r.json", None)
    assert caught.value.path == str(missing)
    assert not (tmp_path / "r.json").exists()


def test_missing_column_raises(tmp_path):
    path = tmp_path / "split.parquet"
    write_parquet(valid_frame().drop(columns=["origin", "n_tokens"]), path)
    with pytest.raises(RucolaError, match="origin, n_tokens") as caught:
        validate_split(path, params(), tmp_path / "r.json", None)
    assert caught.value.path == str(path)


def test_summary_lists_failures_and_up_to_ten_rows(tmp_path):
    frame = valid_frame()
    for index in range(20, 35):
        frame.loc[index, "sentence"] = f"*Плохое предложение {index}."
    frame.loc[1, "error_type"] = "Syntax"
    result, report = run(tmp_path, frame)
    lines = result.summary().splitlines()
    assert lines[0] == "2 expectation(s) failed:"
    assert f"- {LEADING}: 15 of 120 rows" in lines
    assert any(line.startswith("- error_type: null for acceptable rows") for line in lines)
    split, id_ = locate(frame, 20)
    assert f"  {frame.at[20, 'origin']} | {split}/{id_} | *Плохое предложение 20." in lines
    row_lines = [line for line in lines if "Плохое" in line]
    assert len(row_lines) == 10
    assert "  ... and 5 more" in lines
    assert len(failure(result, LEADING).rows) == 15
    entry = next(e for e in report["expectations"] if e["name"] == LEADING)
    assert entry["unexpected_count"] == 15 and len(entry["rows"]) == 15
    assert report["failed"] == 2


def test_relative_paths_as_the_cli_passes_them(tmp_path, monkeypatch):
    write_parquet(valid_frame(), tmp_path / "split.parquet")
    monkeypatch.chdir(tmp_path)
    result = validate_split(
        "split.parquet", params(), "reports/validation.json", "reports/validation_docs"
    )
    assert result.success, result.summary()
    assert (tmp_path / "reports" / "validation.json").is_file()
    assert (tmp_path / "reports" / "validation_docs" / "index.html").is_file()
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == [
        "validation.json",
        "validation_docs",
    ]


@pytest.mark.slow
def test_gx_stays_quiet(tmp_path, capfd):
    run(tmp_path, valid_frame(), docs=True)
    out, err = capfd.readouterr()
    assert "Calculating Metrics" not in err + out
    assert err == "" and out == ""
