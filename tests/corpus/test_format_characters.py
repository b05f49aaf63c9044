"""Format characters by profile (issue 42, item 2): no meaningful character lost, no good
row dropped.

Persian, Urdu and the Indic scripts spell words with the zero-width non-joiner and joiner:
their profiles keep them, so ``می‌خواهم`` stays one spelling and ``میخواهم`` another. A
joiner inside an emoji sequence is kept in every language. The directional marks (LRM,
RLM, ALM) are removed by normalisation and recorded, never a reason to set a row aside;
with ``extract.normalize: false`` the row is kept as read, mark and all, and validate
accepts it. Every stage keys sentences in ``corpus.language``: the last tests run Persian
rows through extract, split with a pin, filter, audit, annotate corpus, validate and
``release diff``, and check that no caller in the package leaves the language out.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from corpora import corpus
from identity import identity_yaml, rucola_params
from test_extract import run_extract

from rucola.corpus.dedup import loose_key, sentence_key
from rucola.corpus.errata import ErrataOptions
from rucola.corpus.languages.profile import LanguageProfile
from rucola.corpus.normalize import (
    normalize_text,
    repaired_characters,
    text_fault,
    unprintable_class,
)
from rucola.corpus.split import run_split
from rucola.io import write_parquet
from rucola.registry import LANGUAGES

ZWNJ, ZWJ, LRM, RLM, ALM = "\u200c", "\u200d", "\u200e", "\u200f", "\u061c"
PERSIAN = f"من می{ZWNJ}خواهم به خانه بروم."  # "I want to go home"
PERSIAN_JOINED = "من میخواهم به خانه بروم."  # the same words spelt without the non-joiner
ARABIC = "ذهب الولد إلى المدرسة صباحا."
ARABIC_LRM = f"ذهب الولد إلى المد{LRM}رسة صباحا."  # a mark inside a word
HINDI_ZWJ = f"यह क्{ZWJ}ष बड़ा है।"  # half form of क before ष
HINDI_ZWNJ = f"यह क्{ZWNJ}ष बड़ा है।"  # a visible virama
FAMILY = f"👨{ZWJ}👩{ZWJ}👧"
REPO = Path(__file__).resolve().parents[2]


# --- the profiles and normalisation ---------------------------------------------------------


def test_each_profile_declares_its_format_characters():
    joiners = frozenset(ZWNJ + ZWJ)
    for code in ("fa", "ur", "hi", "bn", "ta"):
        assert LANGUAGES[code].format_characters == joiners, code
    for code in ("ru", "en", "ar", "it", "ja", "is"):
        assert LANGUAGES[code].format_characters == frozenset(), code
    assert LanguageProfile.format_characters == frozenset()


def test_persian_keeps_its_zero_width_non_joiner():
    assert normalize_text(PERSIAN, "fa") == PERSIAN
    assert sentence_key(PERSIAN, "fa") == PERSIAN
    assert sentence_key(PERSIAN, "fa") != sentence_key(PERSIAN_JOINED, "fa")
    assert loose_key(PERSIAN, "fa") != loose_key(PERSIAN_JOINED, "fa")
    assert text_fault(PERSIAN, "fa") is None
    assert repaired_characters(PERSIAN, "fa") == {}
    # Urdu, same script, same rule
    urdu = f"میں نے کتاب{ZWNJ}یں پڑھیں۔"
    assert normalize_text(urdu, "ur") == urdu


@pytest.mark.parametrize("text", [HINDI_ZWJ, HINDI_ZWNJ])
def test_hindi_keeps_its_joiner_and_non_joiner(text):
    assert normalize_text(text, "hi") == text
    assert sentence_key(text, "hi") == text
    assert sentence_key(HINDI_ZWJ, "hi") != sentence_key(HINDI_ZWNJ, "hi")


def test_russian_still_loses_a_non_joiner_and_its_key_is_unchanged():
    text = f"Мальчик чи{ZWNJ}тает кни{ZWJ}гу."
    assert normalize_text(text) == normalize_text(text, "ru") == "Мальчик читает книгу."
    assert sentence_key(text) == sentence_key("Мальчик читает книгу.", "ru")
    assert repaired_characters(text, "ru") == {
        "U+200C ZERO WIDTH NON-JOINER": 1,
        "U+200D ZERO WIDTH JOINER": 1,
    }
    # in any language without them: the Persian spelling collapses as it did before
    assert normalize_text(PERSIAN, "ar") == PERSIAN_JOINED


@pytest.mark.parametrize("language", ["ru", "en", "fa", "ar", "ja"])
@pytest.mark.parametrize(
    "emoji",
    [FAMILY, f"👩🏽{ZWJ}💻", f"❤️{ZWJ}🔥", f"🏳️{ZWJ}🌈"],
    ids=["family", "skin-tone", "variation-selector", "flag"],
)
def test_an_emoji_sequence_keeps_its_joiners_in_any_language(language, emoji):
    text = f"Это {emoji} тут."
    assert normalize_text(text, language) == text
    assert ZWJ in sentence_key(text, language)
    assert repaired_characters(text, language) == {}
    # a joiner beside the emoji but not between two pictographs goes (outside fa/ur/hi...)
    loose = f"Это {emoji}{ZWJ} т{ZWJ}ут."
    assert normalize_text(loose, "ru") == text
    assert repaired_characters(loose, "ru") == {"U+200D ZERO WIDTH JOINER": 2}


@pytest.mark.parametrize("mark", [LRM, RLM, ALM])
def test_a_directional_mark_is_normalised_away_and_is_no_fault(mark):
    text = ARABIC.replace("المدرسة", f"المد{mark}رسة")
    assert text_fault(text, "ar") is None and text_fault(text) is None
    assert normalize_text(text, "ar") == ARABIC
    assert sentence_key(text, "ar") == sentence_key(ARABIC, "ar")
    assert len(repaired_characters(text, "ar")) == 1
    # validate's class agrees: a text kept as read with its mark is accepted
    assert not pd.Series([text]).str.contains(unprintable_class(language="ar")).any()


def test_bidi_overrides_and_isolates_are_still_faults():
    for char in ("\u202a", "\u202e", "\u2066", "\u2069"):
        assert text_fault(f"ذهب{char} الولد.", "ar")[0] == "non_printing_character"


# --- extract ------------------------------------------------------------------------------


def write_sheet(path: Path, sentences: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["sentence\tmark\terror_type", *(f"{s}\t\t" for s in sentences)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def extract(run_cli, tmp_path: Path, sentences: list[str], params: str) -> tuple[dict, dict]:
    """Run ``rucola extract`` on a sheet; (report, kept rows by sentence)."""
    sheet = write_sheet(tmp_path / "in" / "sheet.tsv", sentences)
    code, _, stderr = run_extract(run_cli, tmp_path, sheet, params=params)
    assert code == 0, stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    kept = {r["sentence"]: r for r in pq.read_table(tmp_path / "out.parquet").to_pylist()}
    assert report["read"] == report["kept"] + sum(report["set_aside"].values())
    return report, kept


def test_extract_keeps_persian_spellings_apart(run_cli, tmp_path):
    report, kept = extract(
        run_cli, tmp_path, [PERSIAN, PERSIAN_JOINED], "corpus:\n  language: fa\n"
    )
    assert list(kept) == [PERSIAN, PERSIAN_JOINED]  # two spellings, no duplicate
    assert report["set_aside"] == {} and report["normalised"]["rows"] == 0


def test_extract_keeps_hindi_joiners(run_cli, tmp_path):
    report, kept = extract(run_cli, tmp_path, [HINDI_ZWJ, HINDI_ZWNJ], "corpus:\n  language: hi\n")
    assert list(kept) == [HINDI_ZWJ, HINDI_ZWNJ]
    assert report["normalised"]["characters"] == {}


def test_extract_removes_and_records_a_mark_inside_an_arabic_word(run_cli, tmp_path):
    other = "قرأ الطالب الكتاب."
    report, kept = extract(
        run_cli, tmp_path, [ARABIC_LRM, other + RLM], "corpus:\n  language: ar\n"
    )
    assert list(kept) == [ARABIC, other]
    assert kept[ARABIC]["corrections"] == "normalised"
    assert report["set_aside"] == {}
    assert report["normalised"]["rows"] == 2
    assert report["normalised"]["characters"] == {
        "U+200E LEFT-TO-RIGHT MARK": 1,
        "U+200F RIGHT-TO-LEFT MARK": 1,
    }


def test_extract_as_read_keeps_the_row_with_its_mark(run_cli, tmp_path):
    """``extract.normalize: false``: the text as read, mark included; kept, not set
    aside, nothing counted as repaired; its key is the normalised text."""
    params = "corpus:\n  language: ar\nextract:\n  normalize: false\n"
    report, kept = extract(run_cli, tmp_path, [ARABIC_LRM], params)
    assert list(kept) == [ARABIC_LRM]
    assert report["set_aside"] == {}
    assert report["normalised"]["characters"] == {}


def test_an_emoji_row_keeps_its_joiners_through_extract(run_cli, tmp_path):
    sentence = f"Семья {FAMILY} пришла домой."
    report, kept = extract(run_cli, tmp_path, [sentence], "")
    assert list(kept) == [sentence]
    assert report["normalised"]["rows"] == 0


# --- every stage keys in corpus.language ----------------------------------------------------


def persian_corpus() -> pd.DataFrame:
    """``corpus(400)`` with two in-domain rows of their own groups replaced by the two
    spellings of the Persian sentence."""
    frame = corpus(400)
    frame.loc[300, "sentence"] = PERSIAN
    frame.loc[301, "sentence"] = PERSIAN_JOINED
    frame.loc[[300, 301], ["label", "error_type"]] = [1, None]
    return frame


def split_settings(tmp_path: Path, **changes):
    from rucola.params import with_overrides
    from rucola.settings import Split

    return with_overrides(
        Split(),
        out=str(tmp_path / "out.parquet"),
        rejected=str(tmp_path / "rejected.parquet"),
        report=str(tmp_path / "split.json"),
        private_report=str(tmp_path / "private_split.json"),
        plot=str(tmp_path / "token_lengths.csv"),
        plot_png=str(tmp_path / "token_lengths.png"),
        **changes,
    )


def test_split_pins_each_persian_spelling_to_its_own_row(tmp_path):
    options = ErrataOptions(categories=rucola_params().corpus.categories, language="fa")
    write_parquet(persian_corpus(), tmp_path / "in.parquet")
    run_split(split_settings(tmp_path), tmp_path / "in.parquet", options)
    first = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    first.reset_index().to_parquet(tmp_path / "pin.parquet")
    settings = split_settings(tmp_path, seed=99, pin=[str(tmp_path / "pin.parquet")])
    report = run_split(settings, tmp_path / "in.parquet", options)
    again = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    assert report["pin"]["matched_by_pin"] == len(again) == 600
    for sentence in (PERSIAN, PERSIAN_JOINED):
        assert again.loc[sentence, ["split", "id"]].tolist() == (
            first.loc[sentence, ["split", "id"]].tolist()
        )


def test_the_filter_keeps_both_persian_spellings():
    from rucola.corpus.filters.duplicates import find_duplicates
    from rucola.settings import NearDuplicates

    frame = pd.DataFrame(
        {
            "sentence": [PERSIAN, PERSIAN_JOINED],
            "domain": ["out_of_domain"] * 2,
            "origin": ["a:1", "a:2"],
            "group": ["g1", "g2"],
        }
    )
    settings = NearDuplicates(enabled=False)
    assert find_duplicates(frame, settings, language="fa").reason.tolist() == [None, None]
    assert find_duplicates(frame, settings).reason.tolist() == [None, "duplicate"]


def test_the_audit_finds_no_cross_split_repeat_of_another_spelling():
    from rucola.curation.duplicates import conflicting_duplicates, cross_split_duplicates
    from rucola.settings import CrossSplitDuplicates

    rows = pd.DataFrame(
        {
            "sentence": [PERSIAN, PERSIAN_JOINED],
            "label": [1, 0],
            "error_type": [None, "Syntax"],
            "domain": ["in_domain"] * 2,
            "group": ["g1", "g2"],
            "split": ["train", "validation"],
            "id": [0, 0],
        }
    )
    settings = CrossSplitDuplicates()
    settings.near_duplicates.enabled = False
    assert cross_split_duplicates(rows, settings, "fa").empty
    assert conflicting_duplicates(rows, language="fa").empty
    assert len(cross_split_duplicates(rows, settings)) == 2  # keyed as Russian: one sentence


def test_a_generation_source_keys_each_side_in_its_own_language(tmp_path):
    """A parallel source's Persian side keeps both spellings (no ``duplicate``) and its
    non-joiner; an LRM in its Arabic side is normalised away, no reason to skip it."""
    from rucola.generation.sources import read_source
    from rucola.settings import GenerationSource

    path = tmp_path / "pairs.tsv"
    path.write_text(
        f"fa\tar\n{PERSIAN}\t{ARABIC_LRM}\n{PERSIAN_JOINED}\t{ARABIC}\n", encoding="utf-8"
    )
    source = GenerationSource(path=str(path), columns={"fa": "fa", "ar": "ar"})
    read = read_source("Pairs", source, 1, "fa")
    assert [s.texts["fa"] for s in read.sentences] == [PERSIAN, PERSIAN_JOINED]
    assert [s.texts["ar"] for s in read.sentences] == [ARABIC, ARABIC]
    assert read.skipped == {}


def test_release_diff_matches_a_moved_row_by_its_persian_key(run_cli, tmp_path):
    columns = ["sentence", "label", "error_type", "split", "detailed_source", "domain", "id"]
    old = pd.DataFrame([(PERSIAN, 1, None, "train", "A", "in_domain", 0)], columns=columns)
    new = pd.DataFrame(
        [(PERSIAN_JOINED, 1, None, "validation", "A", "in_domain", 0)], columns=columns
    )
    old.to_parquet(tmp_path / "old.parquet")
    new.to_parquet(tmp_path / "new.parquet")
    (tmp_path / "fa.yaml").write_text(identity_yaml("corpus:\n  language: fa\n"), encoding="utf-8")
    (tmp_path / "ru.yaml").write_text(identity_yaml("corpus:\n  language: ru\n"), encoding="utf-8")
    found = {}
    for language in ("fa", "ru"):
        code, stdout, stderr = run_cli(
            "release",
            "diff",
            str(tmp_path / "old.parquet"),
            str(tmp_path / "new.parquet"),
            "--params",
            str(tmp_path / f"{language}.yaml"),
        )
        assert code == 0, stderr
        found[language] = stdout
    # Persian: another spelling is another sentence (removed and added); Russian's key
    # drops the non-joiner and would call it the same row moved
    assert "| removed | 1 |" in found["fa"] and "| added | 1 |" in found["fa"]
    assert "| moved | 0 |" in found["fa"]
    assert "| moved | 1 |" in found["ru"] and "| removed | 0 |" in found["ru"]


def test_every_caller_passes_the_language():
    """No call in the package of a function that keys, normalises or checks text leaves
    the language to its default (Russian): each stage passes ``corpus.language`` or the
    language of the text (a translation's source side)."""
    keyed = {
        "normalize_text",
        "sentence_key",
        "loose_key",
        "text_fault",
        "repaired_characters",
        "unprintable",
        "unprintable_class",
        "load_pin",
        "find_duplicates",
        "diff_releases",
        "release_diff",
        "cross_split_duplicates",
        "perturb",
        "decide",
        "changelog_section",
    }
    # positional place of ``language`` in each (1-based count of arguments that reach it)
    place = {
        "normalize_text": 2,
        "sentence_key": 2,
        "loose_key": 2,
        "text_fault": 2,
        "repaired_characters": 2,
        "unprintable": 2,
        "unprintable_class": 2,
        "load_pin": 2,
        "find_duplicates": 4,
        "diff_releases": 5,
        "release_diff": 4,
        "cross_split_duplicates": 3,
        "perturb": 5,
        "decide": 2,
        "changelog_section": 4,
    }
    folders = ["annotation", "corpus", "curation", "generation", "release", "rucola"]
    folders += ["validation"]
    missing = []
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name not in keyed:
                    continue
                given = len(node.args) >= place[name] or any(
                    k.arg == "language" for k in node.keywords
                )
                if not given:
                    missing.append(f"{path.relative_to(REPO)}:{node.lineno} {name}")
    assert not missing, "called without a language:\n" + "\n".join(missing)
