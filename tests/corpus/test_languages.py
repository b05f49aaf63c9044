"""Language profiles (``corpus.language``): each language's tokens, lemmas, word list and
script, with the real libraries (razdel and pymorphy3, wordfreq, simplemma, MeCab)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.corpus.frequency import WordfreqFrequencies, load_frequencies
from rucola.corpus.languages.profile import LanguageProfile, profile
from rucola.corpus.measured import MeasureContext
from rucola.corpus.tokens import tokenize as razdel_tokens
from rucola.errors import RucolaError
from rucola.registry import LANGUAGES
from rucola.settings import Frequency

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"


def test_every_wordfreq_language_has_a_profile():
    from wordfreq import available_languages

    missing = set(available_languages()) - set(LANGUAGES.names())
    assert missing == {"ko"}  # Korean: MeCab with mecab-ko-dic, no profile yet
    for code in LANGUAGES.names():
        cls = LANGUAGES[code]
        assert cls.name == code and cls.title and cls.script and cls.wordfreq == code


def test_russian_is_razdel_and_pymorphy3_as_before():
    ru = profile("ru")
    sentence = "Мы не смогли бы победить без них, - сказал Пётр."
    assert ru.tokenize(sentence) == razdel_tokens(sentence)
    assert ru.lemma("победили") == "победить"
    assert ru.script == "Cyrl" and len(ru.perturbation_rules) == 7
    assert isinstance(load_frequencies(Frequency()), WordfreqFrequencies)
    assert load_frequencies(Frequency()).lang == "ru"


def test_english_tokens_keep_contractions_and_punctuation():
    en = profile("en")
    assert en.tokenize("I won't go, said John.") == ["i", "won't", "go", ",", "said", "john", "."]
    assert en.lemma("went") == "go"
    assert en.lemma("children") == "child"
    assert en.perturbation_rules == ("word_order", "repeat_word")


def test_italian_elision_splits_as_wordfreq_does():
    it = profile("it")
    assert it.tokenize("Quest'uomo mi ha colpito.") == ["quest'uomo", "mi", "ha", "colpito", "."]
    assert it.tokenize("L'amico è qui.") == ["l'", "amico", "è", "qui", "."]
    assert it.lemma("hanno") == "avere"
    assert it.script == "Latn"


def test_english_lemma_frequencies_are_english():
    context = MeasureContext(load_frequencies(Frequency(), "en"), profile("en"))
    went, ungot = context.token_ipms(["went", "xqzvw"])
    assert went > 1000  # 'go' is among the commonest English lemmas
    assert ungot == 0
    # the Russian list knows no English word: the profile, not the list, was the bug
    russian = MeasureContext(load_frequencies(Frequency(), "ru"))
    assert russian.token_ipms(["went"])[0] < went / 100


def test_an_unknown_language_is_one_line_naming_the_known_ones(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("corpus:\n  language: xx\n"), encoding="utf-8"
    )
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"sentence": ["Он спал."]}), source)
    code, out, err = run_cli(
        "measure",
        "--params",
        str(tmp_path / "params.yaml"),
        "--input",
        str(source),
        "--out",
        str(tmp_path / "out.parquet"),
        "--report",
        str(tmp_path / "r.json"),
    )
    assert code == 1
    assert "corpus.language" in err and "unknown language 'xx'" in err
    assert "en, es" in err and "ja" in err and "ru" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.parquet").exists()


def test_a_missing_extra_is_one_line_naming_it():
    class Klingon(LanguageProfile):
        name = "tlh"
        title = "Klingon"
        wordfreq = None
        script = "Latn"
        extra = "tlh"
        extra_modules = ("rucola_no_such_tokenizer",)

    with pytest.raises(RucolaError, match=r"pip install 'rucola\[tlh\]'"):
        Klingon().check_installed()


def test_japanese_words_are_counted_not_characters():
    pytest.importorskip("MeCab", reason="the ja extra (pip install 'rucola[ja]')")
    ja = profile("ja")
    tokens = ja.tokenize("猫が魚を食べた。")
    assert tokens == ["猫", "が", "魚", "を", "食べ", "た", "。"]
    ipms = MeasureContext(load_frequencies(Frequency(), "ja"), ja).token_ipms(tokens)
    assert len(ipms) == 6 and all(value > 0 for value in ipms)


def test_chinese_words_are_cut_by_jieba_as_wordfreq_looks_them_up():
    pytest.importorskip("jieba", reason="the zh extra (pip install 'rucola[zh]')")
    zh = profile("zh")
    tokens = zh.tokenize("我们今天去北京。")
    assert tokens[-1] == "。" and len(tokens) < len("我们今天去北京。")
    from wordfreq import word_frequency

    assert all(word_frequency(t, "zh") > 0 for t in tokens[:-1])


def _measure(run_cli, tmp_path: Path, sentences: list[str], params: str) -> list[dict]:
    (tmp_path / "params.yaml").write_text(identity_yaml(params), encoding="utf-8")
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"sentence": sentences}), source)
    code, out, err = run_cli(
        "measure",
        "--params",
        str(tmp_path / "params.yaml"),
        "--input",
        str(source),
        "--out",
        str(tmp_path / "measured.parquet"),
        "--report",
        str(tmp_path / "measure.json"),
        "--workers",
        "1",
    )
    assert code == 0, err
    return pq.read_table(tmp_path / "measured.parquet").to_pylist()


def test_a_japanese_sheet_is_extracted_and_measured_in_words(run_cli, tmp_path):
    pytest.importorskip("MeCab", reason="the ja extra (pip install 'rucola[ja]')")
    params = "corpus:\n  language: ja\n"
    (tmp_path / "params.yaml").write_text(identity_yaml(params), encoding="utf-8")
    code, _, err = run_cli(
        "extract",
        "--sources",
        str(FIXTURES / "ja_sheet.tsv"),
        "--out",
        str(tmp_path / "extracted.parquet"),
        "--rejected",
        str(tmp_path / "rejected.parquet"),
        "--report",
        str(tmp_path / "extract.json"),
        "--params",
        str(tmp_path / "params.yaml"),
    )
    assert code == 0, err
    extracted = pq.read_table(tmp_path / "extracted.parquet").to_pylist()
    assert [r["label"] for r in extracted] == [1, 1, 1, 0, 0]
    rows = _measure(run_cli, tmp_path, [r["sentence"] for r in extracted], params)
    first = rows[0]
    assert first["sentence"] == "猫が魚を食べた。"
    assert first["n_tokens"] == 7 < len(first["sentence"])  # words and 。, not 8 characters
    assert [r["n_tokens"] for r in rows] == [7, 11, 8, 7, 12]
    assert all(len(r["word_ipm"]) == r["n_tokens"] - 1 for r in rows)  # 。 is no word
    assert json.loads((tmp_path / "measure.json").read_text())["frequency_source"] == "wordfreq"


def test_the_same_sentence_measures_differently_per_language(run_cli, tmp_path):
    sentence = "The children went home."
    ru = _measure(run_cli, tmp_path, [sentence], "")[0]
    en = _measure(run_cli, tmp_path, [sentence], "corpus:\n  language: en\n")[0]
    assert ru["n_tokens"] == en["n_tokens"] == 5
    assert sum(v > 1 for v in en["word_ipm"]) == 4  # every English lemma is common
    assert sum(v > 1 for v in ru["word_ipm"]) < 4


def test_perturbation_rules_that_cannot_act_on_the_language_are_refused(run_cli, tmp_path):
    params = tmp_path / "params.yaml"
    base = (
        "corpus:\n  language: en\n"
        "generate:\n  sources:\n    Wiki: {path: x.txt, format: text}\n"
        "  generators:\n    rules:\n      method: perturbation\n      sources: [Wiki]\n"
    )
    for rules, expected in [
        ("", "null (every rule) but corpus.language 'en' (English) takes only"),
        ("      rules: [gender_agreement, word_order]\n", "gender_agreement cannot act"),
    ]:
        params.write_text(identity_yaml(base + rules), encoding="utf-8")
        code, out, err = run_cli("split", "--params", str(params))
        assert code == 1 and expected in err, out + err
        assert len(err.strip().splitlines()) == 1
        assert "generate.generators.rules.rules" in err


def test_a_disabled_generator_is_never_checked_against_the_language(tmp_path):
    """Issue 45: a generator left ``enabled: false`` is a template (the sample's model
    generators are): a Spanish corpus keeping one is not refused for its rules."""
    from rucola.params import load_settings

    params = tmp_path / "params.yaml"
    text = (
        "corpus:\n  language: es\n"
        "generate:\n  sources:\n    Wiki: {path: x.txt, format: text}\n"
        "  generators:\n    rules:\n      method: perturbation\n      sources: [Wiki]\n"
    )
    params.write_text(identity_yaml(text + "      enabled: false\n"), encoding="utf-8")
    assert not load_settings(params).generate.generators["rules"].enabled
    params.write_text(identity_yaml(text), encoding="utf-8")
    with pytest.raises(RucolaError, match="corpus.language 'es'"):
        load_settings(params)


@pytest.mark.slow  # a simplemma dictionary to load per language
@pytest.mark.parametrize("code", LANGUAGES.names())
def test_every_profile_reads_its_own_commonest_words(code):
    """Each registered profile, on a sentence of its list's commonest words: tokens, a
    lemma per word and a frequency for them (a wrong simplemma or wordfreq code fails)."""
    from wordfreq import top_n_list

    cls = LANGUAGES[code]
    if cls.extra_modules:
        pytest.importorskip(cls.extra_modules[0], reason=f"pip install 'rucola[{cls.extra}]'")
    words = [w for w in top_n_list(cls.wordfreq, 200) if w.isalpha()][:6]
    joiner = "" if cls.script in ("Jpan", "Hani") else " "
    language = profile(code)
    tokens = language.tokenize(joiner.join(words) + ".")
    assert tokens[-1] == "." and 2 <= len(tokens) <= 20
    context = MeasureContext(load_frequencies(Frequency(), code), language)
    ipms = context.token_ipms(tokens)
    assert sum(value > 1 for value in ipms) >= len(ipms) // 2, (tokens, ipms)
