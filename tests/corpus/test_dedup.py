"""Duplicate keys, MinHash clusters, the filter's duplicate step and split grouping."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from corpora import split_settings

from rucola.corpus.dedup import exact_roots, loose_key, lsh_bands, near_roots, shingles
from rucola.corpus.filters.duplicates import find_duplicates
from rucola.corpus.measure import measure
from rucola.settings import Filter, Frequency, NearDuplicates

SETTINGS = NearDuplicates(enabled=True, threshold=0.7, shingle=5, num_perm=64, seed=42)
BASE = "Студенты сдали последний экзамен и уехали домой на поезде"


def test_key_ignores_case_punctuation_spaces_and_yo():
    assert loose_key("  Ёжик  пришёл, домой!") == loose_key("ежик пришел домой.")
    assert exact_roots(["a", "b", "a", "c", "b"]).tolist() == [0, 1, 0, 3, 1]


def _jaccard(a: str, b: str, size: int = 5) -> float:
    x, y = set(shingles(loose_key(a), size)), set(shingles(loose_key(b), size))
    return len(x & y) / len(x | y)


def test_clusters_are_the_pairs_above_the_threshold():
    sentences = [
        BASE,
        BASE.replace("поезде", "автобусе"),  # one word changed: Jaccard 0.77
        "Кошка спит на тёплом подоконнике весь день",
        BASE.replace("последний", "первый"),  # 0.69: below 0.7
        "Кошка спит на тёплом подоконнике весь вечер",
    ]
    assert _jaccard(sentences[0], sentences[1]) >= 0.7 > _jaccard(sentences[0], sentences[3])
    keys = [loose_key(s) for s in sentences]
    assert near_roots(keys, 0.7, 5, 64, 42).tolist() == [0, 0, 2, 3, 2]
    assert near_roots(keys, 0.6, 5, 64, 42).tolist() == [0, 0, 2, 0, 2]
    assert near_roots(keys, 0.95, 5, 64, 42).tolist() == [0, 1, 2, 3, 4]


def test_band_choice_stays_below_the_threshold():
    for perms, threshold in ((64, 0.7), (128, 0.8), (64, 0.5)):
        bands = lsh_bands(perms, threshold)
        assert (1 / bands) ** (bands / perms) <= threshold


def _frame(rows: list[tuple[str, str, int | None, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sentence": [r[0] for r in rows],
            "domain": [r[1] for r in rows],
            "label": [r[2] for r in rows],
            "group": [r[3] for r in rows],
            "origin": [f"f:{i + 1}" for i in range(len(rows))],
        }
    )


def test_generated_repeats_are_set_aside_and_in_domain_pairs_grouped():
    frame = _frame(
        [
            ("Сдали ли студенты экзамен?", "out_of_domain", 1, "o1"),
            (BASE + ".", "in_domain", 1, "g1"),
            (BASE.replace("поезде", "автобусе") + ".", "in_domain", 0, "g2"),
            (BASE.replace("поезде", "самолёте") + ".", "out_of_domain", 1, "o2"),
            ("сдали ли студенты экзамен", "out_of_domain", 0, "o3"),
            ("Кошка спит на тёплом подоконнике.", "in_domain", 1, "g3"),
            ("Кошка спит на тёплом подоконнике!", "in_domain", 1, "g4"),
            ("Сдали ли студенты экзамен?", "out_of_domain", 1, "o4"),
        ]
    )
    found = find_duplicates(frame, SETTINGS)
    assert found.reason.tolist() == [
        None,
        None,
        None,
        "near_duplicate",
        "near_duplicate",  # only case and punctuation differ: alike, not the same sentence
        None,
        None,  # in-domain: a statement and an exclamation are two sentences
        "duplicate",  # the same text
    ]
    assert found.of.tolist()[3] == "f:2"  # the in-domain row ranks first
    assert found.of.tolist()[4] == "f:1"  # the earlier generated row
    assert found.of.tolist()[7] == "f:1"
    groups = found.group.tolist()
    assert groups[1] == groups[2] == "g1"  # minimal pair kept, one split group
    assert groups[0] == "o1" and groups[5] == groups[6] == "g3"


def test_learner_pairs_are_kept_and_grouped_within_their_domain():
    """A learner's sentence and its correction are near-duplicates by design: both stay;
    a generated copy of either is set aside; an in-domain row alike joins no learner group
    (each domain is split on its own)."""
    frame = _frame(
        [
            (BASE + ".", "learner", 1, "p1"),
            (BASE.replace("уехали", "уехал") + ".", "learner", 0, "p1"),
            (BASE.replace("поезде", "автобусе") + ".", "learner", 1, "p2"),
            (BASE.replace("поезде", "самолёте") + ".", "out_of_domain", 1, "o1"),
            (BASE.replace("поезде", "машине") + ".", "in_domain", 1, "g1"),
        ]
    )
    found = find_duplicates(frame, SETTINGS)
    assert found.reason.tolist() == [None, None, None, "near_duplicate", None]
    groups = found.group.tolist()
    assert groups[:3] == ["p1", "p1", "p1"] and groups[4] == "g1"


def test_published_rows_are_never_set_aside():
    frame = _frame(
        [
            ("Сдали ли студенты экзамен?", "out_of_domain", 1, "o1"),
            ("Сдали ли студенты экзамен?", "out_of_domain", 1, "o2"),
            ("Сдали ли студенты экзамен?", "out_of_domain", 1, "o3"),
        ]
    )
    frame["published"] = [True, True, False]
    found = find_duplicates(frame, SETTINGS)
    assert found.reason.tolist() == [None, None, "duplicate"]


def test_reference_rows_rank_first(tmp_path: Path):
    frame = _frame([(BASE.replace("поезде", "самолёте"), "out_of_domain", None, "c1")])
    reference = pd.DataFrame({"sentence": [BASE], "origin": ["in_domain:7"]})
    found = find_duplicates(frame, SETTINGS, reference)
    assert found.reason.tolist() == ["near_duplicate"]
    assert found.of.tolist() == ["in_domain:7"]


def test_measure_streams_with_workers_and_gives_the_same_bytes(tmp_path: Path):
    sentences = [f"Мальчик номер {i} читает интересную книгу." for i in range(250)]
    pd.DataFrame({"sentence": sentences, "extra": np.arange(250)}).to_parquet(
        tmp_path / "in.parquet"
    )
    frequency = Frequency(source="wordfreq")
    one = measure(tmp_path / "in.parquet", tmp_path / "one.parquet", frequency, False, 1, 40)
    two = measure(tmp_path / "in.parquet", tmp_path / "two.parquet", frequency, False, 2, 40)
    assert one["read"] == one["kept"] == two["kept"] == 250 and one["set_aside"] == {}
    assert (tmp_path / "one.parquet").read_bytes() == (tmp_path / "two.parquet").read_bytes()
    table = pq.read_table(tmp_path / "two.parquet")
    assert table.column("extra").to_pylist() == list(range(250))
    assert table.column("n_tokens").to_pylist()[0] == 7


def test_near_duplicate_pairs_never_straddle_splits(tmp_path: Path):
    """Filter (with its duplicate step) then split: each in-domain near pair shares a split."""
    from rucola.corpus.filters.stage import run_filter
    from rucola.corpus.split import run_split

    subjects = ["Студенты", "Туристы", "Рабочие", "Школьники", "Инженеры", "Музыканты"]
    places = ["на поезде", "на автобусе", "на самолёте", "на машине", "на корабле"]
    rows = []
    for i in range(300):
        base = f"{subjects[i % 6]} сдали {i}-й экзамен и уехали домой {places[i % 5]}"
        rows.append((base + ".", 1, None, f"a{i}"))
        rows.append((base.replace(" и уехали", " и не уехали") + ".", 0, "Syntax", f"b{i}"))
    frame = pd.DataFrame(
        {
            "sentence": [r[0] for r in rows],
            "label": [r[1] for r in rows],
            "error_type": [r[2] for r in rows],
            "domain": "in_domain",
            "detailed_source": "Sample",
            "group": [r[3] for r in rows],
            "origin": [f"s.tsv:{i + 2}" for i in range(len(rows))],
        }
    )
    frame.to_parquet(tmp_path / "rows.parquet")
    measure(tmp_path / "rows.parquet", tmp_path / "m.parquet", Frequency(), False, 1)
    filtered = Filter(
        out=str(tmp_path / "f.parquet"),
        rejected=str(tmp_path / "r.parquet"),
        report=str(tmp_path / "f.json"),
        min_high_freq_share=0.0,
    )
    report = run_filter(filtered, tmp_path / "m.parquet")
    assert report["kept"] == len(rows)  # minimal pairs are grouped, not dropped
    assert report["duplicates"]["clusters"] >= 20  # one per subject and place
    run_split(split_settings(tmp_path), filtered.out)
    result = pq.read_table(tmp_path / "split.parquet").to_pandas().set_index("sentence")
    assert set(result["split"]) == {"train", "validation", "test"}
    straddling = 0
    for i in range(0, len(rows), 2):
        a, b = rows[i][0], rows[i + 1][0]
        if _jaccard(a, b) >= 0.7:
            straddling += result.loc[a, "split"] != result.loc[b, "split"]
    assert straddling == 0


def test_shingle_hashes_match_the_shingle_sets():
    from rucola.corpus.dedup import shingle_hashes

    keys = ["мама мыла раму", "да", "кошка спит на тёплом подоконнике", "аааааааа"]
    hashes, offsets = shingle_hashes(keys, 5)
    for row, key in enumerate(keys):
        assert offsets[row + 1] - offsets[row] == len(set(shingles(key, 5)))
    again, _ = shingle_hashes(list(reversed(keys)), 5)
    assert sorted(hashes.tolist()) == sorted(again.tolist())


def test_a_published_test_row_groups_the_same_whatever_its_hidden_domain():
    """Issue 32: a test row grouped with in-domain rows only when its gold said in-domain,
    and the split report (git) lists groups that straddle splits: its domain showed."""
    from rucola.corpus.filters.duplicates import find_duplicates
    from rucola.settings import NearDuplicates

    groups = []
    for hidden in ("in_domain", "out_of_domain", None):
        frame = pd.DataFrame(
            {
                "sentence": [
                    "Мальчик читает интересную книгу каждый вечер дома.",
                    "Мальчик читает интересную книгу каждый вечер дома!",
                    "Совсем другое предложение про погоду в горах.",
                ],
                "domain": ["in_domain", hidden, "in_domain"],
                "origin": ["train.csv:2", "test.csv:2", "train.csv:3"],
                "group": ["a", "b", "c"],
                "published": [True, True, True],
                "published_test": [False, True, False],
            }
        )
        groups.append(find_duplicates(frame, NearDuplicates()).group.tolist())
    assert groups[0] == groups[1] == groups[2]
    assert groups[0][1] == "b"  # with no train row: it groups as its domain is hidden
