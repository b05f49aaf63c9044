"""A new annotator key is refused below 128 bits by a stated estimate
(``rucola.release.key_strength``); a key a kept version was built with is taken, with a
warning, since the same key must give the same annotator ids in every version."""

from __future__ import annotations

import secrets
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rucola.errors import RucolaError
from rucola.release.key_strength import GOOD_KEY_COMMAND, MIN_KEY_BITS, key_bits
from rucola.release.votes import (
    ENV_VARIABLE,
    AnnotatorKey,
    arrow_metadata,
    check_key_strength,
    require_key,
)

WEAK = {
    "one_letter_16": "a" * 16,  # 16 characters: the old rule took it
    "one_letter_64": "a" * 64,
    "two_letters": "ab" * 32,
    "three_letters": "abc" * 20,
    "few_letters": "abcdabcaabdcbadcabcdabcdddabcabcabcdabcbbacd",
    "a_repeated_word": "annotator-key-" * 4,
    "a_run": "abcdefghijklmnopqrstuvwxyz0123456789",
    "digits": "0123456789" * 4,
    "words": "correct horse battery staple",
    "camel_words": "CorrectHorseBatteryStaple",
    "run_together": "thequickbrownfoxjumpsoverthelazydog",
    "hex_repeated": "deadbeef" * 4,
}


@pytest.mark.parametrize("key", WEAK.values(), ids=list(WEAK))
def test_a_weak_key_is_worth_less_than_128_bits(key):
    assert key_bits(key) < MIN_KEY_BITS


def test_every_random_token_hex_and_urlsafe_of_16_bytes_passes():
    """Many real random keys of the sizes the docs name: none refused."""
    for _ in range(10000):
        for key in (secrets.token_hex(16), secrets.token_urlsafe(16), secrets.token_urlsafe(32)):
            assert key_bits(key) >= MIN_KEY_BITS, key


def test_the_good_key_command_makes_a_good_key():
    command = GOOD_KEY_COMMAND
    assert "secrets.token_urlsafe(32)" in command
    assert key_bits(secrets.token_urlsafe(32)) >= 2 * MIN_KEY_BITS


@pytest.mark.parametrize("key", ["aaaaaaaaaaaaaaaa", "correct horse battery staple"])
def test_a_weak_new_key_is_refused_with_the_command_that_makes_one(key, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RucolaError) as caught:
        require_key("env", {ENV_VARIABLE: key})
    message = caught.value.format()
    assert ENV_VARIABLE in message and "bits" in message and GOOD_KEY_COMMAND in message
    assert key not in message and "\n" not in message


def kept_votes(root: Path, version: str, key: str, private: bool = False) -> None:
    """A kept version's votes file, recording the key it was built with (its fingerprint)."""
    table = pa.table({"id": [0], "annotator": ["x"]})
    table = table.replace_schema_metadata(arrow_metadata(AnnotatorKey("env", key)))
    path = (
        root
        / f"data/releases/{version}/"
        / ("private/votes_test.parquet" if private else "rucola/votes/validation.parquet")
    )
    path.parent.mkdir(parents=True)
    pq.write_table(table, path)


@pytest.mark.parametrize("private", [False, True])
def test_a_weak_key_a_kept_version_was_built_with_is_taken_with_a_warning(
    tmp_path, monkeypatch, capsys, private
):
    """Refusing it would change every annotator's id between versions."""
    weak = "aaaaaaaaaaaaaaaa" + ("b" if private else "c")
    monkeypatch.chdir(tmp_path)
    kept_votes(tmp_path, "v1.0.0", secrets.token_urlsafe(32))  # another key: no excuse
    with pytest.raises(RucolaError):
        require_key("env", {ENV_VARIABLE: weak})
    kept_votes(tmp_path, "v1.1.0", weak, private=private)
    assert require_key("env", {ENV_VARIABLE: weak}).key == weak
    warning = capsys.readouterr().err
    assert warning.startswith("warning:") and "v1.1.0" in warning and weak not in warning
    assert len(warning.strip().splitlines()) == 1


def test_a_strong_key_needs_no_kept_version(tmp_path):
    check_key_strength(AnnotatorKey("env", secrets.token_hex(16)), tmp_path / "none")
