"""Publication fidelity: homoglyphs, artefacts, encodings, alternation options."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.corpus.alternations import expand
from rucola.corpus.artefacts import RULES, detect
from rucola.corpus.homoglyphs import fix_homoglyphs


def rows(path: Path) -> list[dict]:
    return pq.read_table(path).to_pylist()


def extract(run_cli, tmp_path: Path, source: Path, params: str = "") -> tuple:
    (tmp_path / "params.yaml").write_text(identity_yaml(params), encoding="utf-8")
    return run_cli(
        "extract",
        "--sources",
        str(source),
        "--out",
        str(tmp_path / "o.parquet"),
        "--rejected",
        str(tmp_path / "r.parquet"),
        "--report",
        str(tmp_path / "x.json"),
        "--params",
        str(tmp_path / "params.yaml"),
    )


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("Он никoгдa не писал.", "Он никогда не писал."),  # Latin o, a
        ("Он вcё-таки пришёл.", "Он всё-таки пришёл."),
        ("Все ждали, что нe придёт.", "Все ждали, что не придёт."),
        ("B ee голосе была горечь.", "В ее голосе была горечь."),
    ],
)
def test_homoglyphs_inside_cyrillic_words_are_fixed(text, fixed):
    assert fix_homoglyphs(text)[0] == fixed


@pytest.mark.parametrize(
    "text",
    [
        "Amazon открыл склад в Подмосковье.",
        "Банк Credit Suisse признан спонсором.",
        "Сериал показывали на BBC и ABC.",
        "В XX веке всё изменилось.",
        "Буква g следует за b.",
    ],
)
def test_real_latin_words_are_left_alone(text):
    assert fix_homoglyphs(text) == (text, [])


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Иван Грозный не убил (*не убивал) своего сына.", "unexpanded_alternation"),
        ("Она (пришла/пришли) вовремя.", "unexpanded_alternation"),
        ("Собор не смотрится во весь рост. поч не *?", "judgment_mark"),
        ("Сама природа поставила ее [березу] здесь.", "editorial_bracket"),
        ("Он ^жонглировал для полного зала.", "annotator_note"),
        ("Онаi очень расстроилась.", "coindex"),
        ("Он сказал (и ушёл.", "unbalanced"),
        ("Он прочёл «Войну и мир.", "unbalanced"),
    ],
)
def test_artefacts_are_detected(text, kind):
    assert kind in detect(text)


@pytest.mark.parametrize(
    "text",
    [
        "Ему дают 1/4 фунта хлеба (на него и жену, и то не каждый день!).",
        "Он спросил (почему?) и ушёл.",
        "Статья Джона в “Times” меня рассердила.",
        "Он написал „Шинель“ в Петербурге.",
        "Как ты хочешь, чтобы я поступил ?",
        "Цены выросли на 5% за год.",
        "Betsy buttered the toast (as usual).",
    ],
)
def test_ordinary_text_is_no_artefact(text):
    assert detect(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Hann þurrkaði diskinn.",  # Icelandic: i, j, k after a Latin letter are letters
        "Hún tók bókina.",
        "Við búum í Reykjavík.",
        "Il a obéi à sa mère.",  # French
        "Hún to\u0301k bókina.",  # an accent as a combining mark (text kept as read)
        "Weißt du, wer kommt?",
        "Er kam nach Österreich.",
        'Hann sagði: "Komdu."',
        "»Ja«, sagte er.",  # German guillemets point inward
        'צה"ל הגיע.',  # Hebrew: a gershayim, not a quotation mark
        "यह किताब है |",  # Hindi: a danda typed as a bar
        "Amazon открыл склад, iPhone дорожает.",
    ],
)
def test_words_of_every_script_are_no_artefact(text):
    assert detect(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Онаi очень расстроилась.",
        "Иван видел егоj вчера.",
        "太郎iが花子jを批判した。",  # Japanese: the particle follows the index
        "هوi قال إن أحمدj سيأتي.",  # Arabic
        "Ο Γιάννηςk έφυγε.",  # Greek
        "Она́i пришла.",  # a combining accent between the word and its index
    ],
)
def test_an_index_glued_to_a_word_of_another_script_is_coindex(text):
    assert detect(text) == ["coindex"]


def test_every_artefact_rule_says_which_scripts_it_is_for():
    for rule in RULES:
        assert rule.kind and rule.scripts, rule
        assert type(rule).__doc__ and "script" in rule.scripts
    assert [rule.kind for rule in RULES] == [
        "unexpanded_alternation",
        "judgment_mark",
        "editorial_bracket",
        "annotator_note",
        "coindex",
        "unbalanced",
    ]


def test_a_bar_or_quote_that_is_no_script_convention_is_still_an_artefact():
    assert detect("यह किताब|है") == ["annotator_note"]  # glued between words
    assert detect('He said "go.') == ["unbalanced"]
    assert detect("»Ja, sagte er.") == ["unbalanced"]


def test_artefacts_set_aside_or_kept(run_cli, tmp_path):
    sheet = tmp_path / "s.tsv"
    sheet.write_text(
        "sentence\tmark\nОна поставила ее [березу] здесь.\t\nОн спал всю ночь.\t\n",
        encoding="utf-8",
    )
    assert extract(run_cli, tmp_path, sheet)[0] == 0
    assert [r["reason"] for r in rows(tmp_path / "r.parquet")] == ["artefact:editorial_bracket"]
    report = json.loads((tmp_path / "x.json").read_text())
    assert report["artefacts"]["found"][0]["origin"] == f"{sheet}:2"
    assert extract(run_cli, tmp_path, sheet, "extract:\n  artefacts: keep\n")[0] == 0
    kept = rows(tmp_path / "o.parquet")
    assert [r["artefacts"] for r in kept] == ["editorial_bracket", None]


def test_homoglyph_fixes_are_counted_and_can_be_disabled(run_cli, tmp_path):
    sheet = tmp_path / "s.tsv"
    sheet.write_text("sentence\nОн никoгдa не писал.\n", encoding="utf-8")
    extract(run_cli, tmp_path, sheet)
    assert rows(tmp_path / "o.parquet")[0]["sentence"] == "Он никогда не писал."
    report = json.loads((tmp_path / "x.json").read_text())
    assert report["homoglyph_fixes"]["rows"] == 1
    assert report["homoglyph_fixes"]["fixes"][0]["words"] == ["никoгдa->никогда"]
    extract(run_cli, tmp_path, sheet, "extract:\n  fix_homoglyphs: false\n")
    assert rows(tmp_path / "o.parquet")[0]["sentence"] == "Он никoгдa не писал."


def test_bom_crlf_and_invisible_characters(run_cli, tmp_path):
    sheet = tmp_path / "s.tsv"
    sheet.write_bytes(
        "\ufeffsentence\tmark\r\nОн\u00a0спал\u200b всю ночь.\t\r\n"
        "Мы\u00adшли домой.\t\r\n".encode()
    )
    assert extract(run_cli, tmp_path, sheet)[0] == 0
    assert [r["sentence"] for r in rows(tmp_path / "o.parquet")] == [
        "Он спал всю ночь.",
        "Мышли домой.",
    ]
    assert rows(tmp_path / "o.parquet")[1]["origin"] == f"{sheet}:3"


def test_named_encoding(run_cli, tmp_path):
    sheet = tmp_path / "legacy.tsv"
    sheet.write_bytes("sentence\tmark\nОн спал всю ночь.\t\n".encode("cp1251"))
    code, _, stderr = extract(run_cli, tmp_path, sheet)
    assert code == 1 and "extract.encoding" in stderr and f"{sheet}:2" in stderr
    assert extract(run_cli, tmp_path, sheet, "extract:\n  encoding: cp1251\n")[0] == 0
    assert rows(tmp_path / "o.parquet")[0]["sentence"] == "Он спал всю ночь."


def test_alternations_off_leave_text(run_cli, tmp_path):
    sheet = tmp_path / "s.tsv"
    sheet.write_text("sentence\terror_type\nМы вернулись (*в) домой.\tSyntax\n", encoding="utf-8")
    extract(run_cli, tmp_path, sheet, "extract:\n  expand_alternations: false\n  artefacts: keep\n")
    kept = rows(tmp_path / "o.parquet")
    assert [r["sentence"] for r in kept] == ["Мы вернулись (*в) домой."]
    assert kept[0]["artefacts"] == "unexpanded_alternation"


def test_nested_and_multiple_alternatives():
    variants = expand("Он (пришёл/*(?при)шли/*пришло) домой.")
    assert [(v.text, v.mark) for v in variants] == [
        ("Он пришёл домой.", ""),
        ("Он шли домой.", "*"),
        ("Он пришло домой.", "*"),
        ("Он пришли домой.", "*"),
    ]
    assert [(v.text, v.mark) for v in expand("Он (?на) долго думал.")] == [
        ("Он долго думал.", ""),
        ("Он на долго думал.", "?"),
    ]


def test_english_cola_sheet(run_cli, tmp_path):
    sheet = tmp_path / "cola.tsv"
    sheet.write_text(
        "source\tmark\tsentence\n"
        "gj04\t\tBetsy buttered (*at) the toast.\n"
        "gj04\t??\tThe more you eat, the more you want eat.\n"
        "gj04\t?\tHe might could go.\n",
        encoding="utf-8",
    )
    code, _, stderr = extract(run_cli, tmp_path, sheet, "extract:\n  require_error_type: false\n")
    assert code == 0, stderr
    kept = rows(tmp_path / "o.parquet")
    assert [(r["sentence"], r["label"]) for r in kept] == [
        ("Betsy buttered the toast.", 1),
        ("Betsy buttered at the toast.", 0),
        ("The more you eat, the more you want eat.", 0),
    ]
    assert kept[0]["group"] == kept[1]["group"]
    assert [r["reason"] for r in rows(tmp_path / "r.parquet")] == ["excluded_mark"]


def test_an_icelandic_sheet_keeps_its_words_and_splits_a_repeated_mark(run_cli, tmp_path):
    """Issue 42: with the default ``artefacts: reject`` an Icelandic sheet kept 85% of its
    rows (``þurrkaði``, ``tók``, ``Reykjavík`` read as co-indexed), and a mark in its
    column and again in the text was kept, then refused by validate."""
    sheet = tmp_path / "is.tsv"
    lines = [
        ("Hann þurrkaði diskinn.", ""),
        ("Hún tók bókina.", ""),
        ("Við búum í Reykjavík.", ""),
        ("?*Lesið hafa strákarnir bækurnar.", "?*"),
        ("Strákarnir hafa lesið bækurnar.", "*/??"),
        ("Bækurnar hafa strákarnir lesið.", "?/*"),
        ("*Hún tók bókin.", "?"),
    ]
    sheet.write_text(
        "sentence\tmark\n" + "".join(f"{s}\t{m}\n" for s, m in lines), encoding="utf-8"
    )
    params = "corpus:\n  language: is\nextract:\n  require_error_type: false\n"
    code, _, err = extract(run_cli, tmp_path, sheet, params)
    assert code == 0, err
    kept = {r["sentence"]: r for r in rows(tmp_path / "o.parquet")}
    assert sorted(kept) == sorted(
        [
            "Hann þurrkaði diskinn.",
            "Hún tók bókina.",
            "Við búum í Reykjavík.",
            "Lesið hafa strákarnir bækurnar.",
            "Strákarnir hafa lesið bækurnar.",
        ]
    )
    assert all(r["artefacts"] is None for r in kept.values())
    assert kept["Lesið hafa strákarnir bækurnar."]["corrections"] == "repeated mark split off"
    assert kept["Strákarnir hafa lesið bækurnar."]["label"] == 0  # */??: both unacceptable
    set_aside = [(r["reason"], r["detail"]) for r in rows(tmp_path / "r.parquet")]
    assert set_aside == [
        ("excluded_mark", "?/*"),
        ("mark_in_text", "'*' in the text, '?' its mark"),
    ]
    report = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert report["artefacts"]["rows"] == 0
    assert report["repeated_marks"] == {"rows": 1, "examples": [f"{sheet}:5"]}
