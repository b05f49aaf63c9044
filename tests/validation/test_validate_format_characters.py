"""Validate agrees with extract on format characters (issue 42, item 2): a Persian corpus's
two spellings of one sentence, with and without the zero-width non-joiner, are two
sentences; an Arabic row kept as read with a directional mark inside a word passes, as
extract kept it; a bidi override still fails."""

from __future__ import annotations

from test_suite import UNPRINTABLE_NAME, failed_names, run, valid_frame

ZWNJ, LRM = "\u200c", "\u200e"
PERSIAN = f"من می{ZWNJ}خواهم به خانه بروم."
PERSIAN_JOINED = "من میخواهم به خانه بروم."
UNIQUE = "sentence: unique across all splits"


def persian_frame():
    frame = valid_frame()
    frame.loc[1, "sentence"] = PERSIAN  # two acceptable train rows
    frame.loc[2, "sentence"] = PERSIAN_JOINED
    return frame


def test_the_persian_spellings_are_two_sentences(tmp_path):
    result, _ = run(tmp_path, persian_frame(), corpus={"language": "fa"})
    assert result.success, result.summary()


def test_in_a_language_without_the_non_joiner_they_are_one(tmp_path):
    """The check can fail: keyed as Russian, the two spellings are the same sentence."""
    result, _ = run(tmp_path, persian_frame())
    assert failed_names(result) == {UNIQUE}


def test_a_row_kept_with_its_directional_mark_passes(tmp_path):
    frame = valid_frame()
    frame.loc[1, "sentence"] = f"ذهب الولد إلى المد{LRM}رسة صباحا."
    frame.loc[2, "sentence"] = "قرأ الطالب الكتاب.\u200f\u061c"
    result, _ = run(tmp_path, frame, corpus={"language": "ar"})
    assert result.success, result.summary()


def test_a_bidi_override_still_fails(tmp_path):
    frame = valid_frame()
    frame.loc[1, "sentence"] = "ذهب الولد\u202e إلى المدرسة."
    result, _ = run(tmp_path, frame, corpus={"language": "ar"})
    assert failed_names(result) == {UNPRINTABLE_NAME}
