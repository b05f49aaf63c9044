"""Issue 45, item 1: the schema's defaults describe an empty corpus of no particular name.

Before, the defaults were RuCoLA's identity (name ``rucola``, ``ru``, its description,
citation, ``apache-2.0`` and categories), and completing a short ``params.yaml`` merged the
sample's overlay under it (its annotation rounds, ``annotator_key: sample``); a Spanish
corpus learnt its identity problems one per run. Each case is a test here.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from rucola.dev.params import _user_file
from rucola.errors import RucolaError
from rucola.params import load_settings
from rucola.settings import Params, defaults_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_defaults_name_no_corpus_and_declare_nothing():
    corpus = Params().corpus
    assert corpus.name is corpus.language is corpus.license is corpus.pretty_name is None
    assert corpus.description is corpus.license_note is None and corpus.citations == []
    assert corpus.categories.all() == []
    assert [corpus.domain_descriptions.of(d) for d in ("in_domain", "out_of_domain")] == [None] * 2
    text = yaml.safe_dump(defaults_of(Params), allow_unicode=True)
    assert "RuCoLA" not in text and "rucola_csv" not in text and "Russian" not in text
    annotate = Params().annotate
    assert annotate.controls == annotate.stage1 == annotate.stage2 == annotate.votes == []
    assert Params().release.annotator_key == "env"


def test_every_missing_identity_key_is_named_at_once(tmp_path, run_cli):
    params = tmp_path / "params.yaml"
    params.write_text("extract:\n  sources: []\n", encoding="utf-8")
    code, _, err = run_cli("extract", "--params", str(params))
    lines = err.strip().splitlines()
    assert code == 1 and "Traceback" not in err
    assert [line.split(": ")[2] for line in lines] == [
        "corpus.name",
        "corpus.language",
        "corpus.license",
    ], err
    assert all(line.startswith(f"error: {params}:") and "is not set" in line for line in lines)
    assert "and 2 more" not in err


def test_a_declared_unknown_licence_is_a_licence(tmp_path):
    params = tmp_path / "params.yaml"
    text = "corpus:\n  name: escola\n  language: es\n"
    params.write_text(text, encoding="utf-8")
    try:
        load_settings(params)
    except RucolaError as error:
        assert error.message.startswith("corpus.license: is not set") and not error.more
    else:
        raise AssertionError("a corpus without a licence was accepted")
    params.write_text(text + "  license: unknown\n", encoding="utf-8")
    assert load_settings(params).corpus.license == "unknown"


def test_a_short_params_file_is_completed_from_the_schemas_defaults_only(tmp_path):
    """Not from the sample's overlay: no rounds, no sample key, no RuCoLA words."""
    (tmp_path / "rucola/presets").mkdir(parents=True)
    for name in ("sample.yaml", "rucola.yaml"):
        overlay = ROOT / "rucola/presets" / name
        (tmp_path / "rucola/presets" / name).write_text(overlay.read_text(encoding="utf-8"))
    short = "corpus:\n  name: escola\n  language: es\n  license: cc-by-4.0\n"
    (tmp_path / "params.yaml").write_text(short, encoding="utf-8")
    assert _user_file(tmp_path, "rucola/presets/sample.yaml", False, Params) == ["params.yaml"]
    completed = yaml.safe_load((tmp_path / "params.yaml").read_text(encoding="utf-8"))
    expected = defaults_of(Params)
    expected["corpus"].update(name="escola", language="es", license="cc-by-4.0")
    assert completed == expected
    assert load_settings(tmp_path / "params.yaml").corpus.name == "escola"


def test_the_presets_and_the_sample_keep_rucolas_identity_from_one_overlay():
    rucola = yaml.safe_load((ROOT / "rucola/presets/rucola.yaml").read_text(encoding="utf-8"))
    for name in ("params.yaml", "configs/rucola-v1.yaml", "configs/rucola-v1.1.yaml"):
        data = yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))
        expected = {**rucola["corpus"]}
        if name == "params.yaml":  # the sample's own title
            expected["pretty_name"] = data["corpus"]["pretty_name"]
        assert {k: data["corpus"][k] for k in expected} == expected, name
        assert data["release"]["out"] == "data/release/rucola", name


def test_an_overlay_includes_only_overlays_beside_it_and_never_itself(tmp_path):
    from rucola.dev.params import render

    overlays = tmp_path / "overlays"
    overlays.mkdir()
    (tmp_path / "outside.yaml").write_text("corpus:\n  name: x\n", encoding="utf-8")
    cases = {
        "include: [../outside.yaml]\n": "is not an overlay file beside this one",
        "include: [missing.yaml]\n": "is not an overlay file beside this one",
        "include: [a.yaml]\n": "includes this overlay again",
        "include: a.yaml\n": "must be a list of overlay file names",
    }
    for text, words in cases.items():
        (overlays / "a.yaml").write_text(text, encoding="utf-8")
        try:
            render(overlays / "a.yaml", "a")
        except RucolaError as error:
            assert words in error.message and error.path == str(overlays / "a.yaml"), text
        else:
            raise AssertionError(f"accepted: {text}")
    (overlays / "id.yaml").write_text("corpus:\n  name: x\n  language: es\n", encoding="utf-8")
    (overlays / "a.yaml").write_text("include: [id.yaml]\ncorpus:\n  name: y\n", encoding="utf-8")
    data = yaml.safe_load(render(overlays / "a.yaml", "a"))
    assert (data["corpus"]["name"], data["corpus"]["language"]) == ("y", "es")
