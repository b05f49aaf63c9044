"""Params: one schema checks every key at every depth; any mistake is exit 1 with one line
naming the file given, the line in it and the dotted key; the README's table and
``params.yaml`` agree with the schema."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml

from rucola.errors import RucolaError
from rucola.params import DEFAULTS, OUTPUT_KEYS, load_params
from rucola.settings import (
    AggregationMethod,
    Backend,
    Decoding,
    Domain,
    GenerationMethod,
    GenerationSource,
    Generator,
    Params,
    PerturbationRule,
    SourceFormat,
    SourceType,
    Strategy,
    Verdict,
    params_table,
    readme_with_table,
)

ROOT = Path(__file__).resolve().parents[2]
PARAMS = (ROOT / "params.yaml").read_text(encoding="utf-8")
PRESETS = ["params.yaml", "configs/rucola-v1.yaml", "configs/rucola-v1.1.yaml"]
FILE = "custom.yaml"  # never params.yaml: errors must name the file actually given


def edited(old: str, new: str) -> str:
    """params.yaml with the one place matching ``old`` (a regex) replaced by ``new``."""
    text, count = re.subn(old, new.replace("\\", "\\\\"), PARAMS, count=1, flags=re.S)
    assert count == 1, f"params.yaml no longer holds {old!r}"
    return text


def line_of(text: str, at: str) -> int:
    assert text.count(at) == 1, f"{at!r} must occur once"
    return text[: text.index(at)].count("\n") + 1


def run_with(run_cli, folder: Path, text: str | bytes) -> tuple[int, str]:
    path = folder / FILE
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    code, stdout, stderr = run_cli("split", "--params", FILE, cwd=folder)
    return code, stdout + stderr


def assert_one_line(code: int, output: str, where: str, *words: str) -> None:
    assert code == 1, output
    assert "Traceback" not in output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith(f"error: {where}: "), output
    for word in words:
        assert word in lines[0], output


# (what params.yaml holds, what the user wrote, the dotted key, where it is, words the line says)
CASES = {
    # the cases
    "misspelt section": (r"\nfilter:\n", "\nfitler:\n", "fitler", "fitler:", "did you mean filter"),
    "misspelt key": (
        r"  min_tokens: 4",
        "  min_tokns: 4",
        "filter.min_tokns",
        "min_tokns",
        "unknown parameter (did you mean min_tokens?)",
    ),
    "misspelt key in a list item": (
        r"    - path: data/sample/in_domain\n",
        "    - path: data/sample/in_domain\n      tpye: sheet\n",
        "extract.sources[0].tpye",
        "tpye",
        "did you mean type",
    ),
    "number as text": (r"min_ipm: 1\.0", 'min_ipm: "four"', "filter.min_ipm", "four", "number"),
    "m2 unknown_type outside its values": (
        r"    unknown_type: error",
        "    unknown_type: skip",
        "extract.m2.unknown_type",
        "unknown_type: skip",
        "'error' or 'reject'",
    ),
    "learner ratios that do not add up": (
        r"    learner: \[0\.8, 0\.1, 0\.1\]",
        "    learner: [0.8, 0.1, 0.2]",
        "split.ratios.learner",
        "learner: [0.8, 0.1, 0.2]",
        "add up to 1",
    ),
    "seed as text": (
        r"  seed: 42\n  ratios:",
        '  seed: "abc"\n  ratios:',
        "split.seed",
        '"abc"',
        "whole number",
    ),
    "sources as a list": (
        r"  sources:\n    SampleWiki:\n.*?format: tsv\n",
        "  sources:\n    - data/sample/out_of_domain/wiki_style.txt\n",
        "generate.sources",
        "  sources:\n    - data",
        "must be a mapping",
    ),
    "section null": (
        r"\nfilter:\n.*?\nscreen:",
        "\nfilter: null\n\nscreen:",
        "filter",
        "filter: null",
        "must be a mapping, not null",
    ),
    "rnc without its dictionary": (
        r"source: wordfreq",
        "source: rnc",
        "filter.frequency.source",
        "source: rnc",
        "names no dictionary",
    ),
    "share out of range": (
        r"min_high_freq_share: 0\.6",
        "min_high_freq_share: 2.5",
        "filter.min_high_freq_share",
        "2.5",
        "0 to 1",
    ),
    "bool as text": (
        r"expand_alternations: true",
        'expand_alternations: "false"',
        "extract.expand_alternations",
        '"false"',
        "true or false",
    ),
    "unknown value": (
        r"on_conflict: reject ",
        "on_conflict: keep ",
        "extract.on_conflict",
        "on_conflict: keep",
        "'reject' or 'error'",
    ),
    # one per key kind
    "int below range": (
        r"batch_rows: 10000",
        "batch_rows: 0",
        "measure.batch_rows",
        "batch_rows: 0",
        "at least 1",
    ),
    "enum in a list": (
        r"methods: \[majority, dawid_skene, wawa, glad\]",
        "methods: [majority, mace]",
        "annotate.simulate.methods[1]",
        "mace",
        "'glad'",
    ),
    "output path": (
        r"  out: data/interim/split\.parquet",
        "  out: ../split.parquet",
        "split.out",
        "../split.parquet",
        "outside the repository",
    ),
    "path list item": (r"  pin: \[\]", "  pin: [3]", "split.pin[0]", "pin: [3]", "text"),
    "path list length": (
        r"controls: \[data/sample/annotations/controls\.tsv\]",
        "controls: [a.tsv, b.tsv]",
        "annotate.controls",
        "b.tsv",
        "at most 1",
    ),
    "user-named mapping value": (
        r'    "\?": exclude',
        '    "?": maybe',
        "extract.marks['?']",
        '"?": maybe',
        "'exclude'",
    ),
    "item of a user-named mapping": (
        r"      format: text\n",
        "      format: text\n      lnag: ru\n",
        "generate.sources.SampleWiki.lnag",
        "lnag",
        "did you mean lang",
    ),
    "nested mapping": (
        r"decoding: \{strategy: beam, num_beams: 4\}",
        "decoding: {strategy: beem, num_beams: 4}",
        "generate.generators.opus_mt.decoding.strategy",
        "strategy: beem",
        "'sampling'",
    ),
    "key one level too high": (
        r"      per_sentence: 2\n",
        "      per_sentence: 2\n      top_p: 0.9\n",
        "generate.generators.perturbations.top_p",
        "      top_p: 0.9",
        "did you mean decoding.top_p",
    ),
    "ratios": (
        r"in_domain: \[0\.8, 0\.1, 0\.1\]",
        "in_domain: [0.8, 0.1, 0.2]",
        "split.ratios.in_domain",
        "0.2]",
        "add up to 1",
    ),
    "encoding": (r"  encoding: utf-8\n", "  encoding: utf-9\n", "extract.encoding", "utf-9", ""),
    # checks between keys
    "generator without a model": (
        r"      model: models/mt5-paraphraser   # a local folder\n",
        "",
        "generate.generators.mt5_paraphrase.model",
        "  mt5_paraphrase:",
        "needs a model",
    ),
    "unknown source id": (
        r"sources: \[SampleParallel\]",
        "sources: [Nope]",
        "generate.generators.opus_mt.sources[0]",
        "[Nope]",
        "unknown source 'Nope'",
    ),
    "thresholds crossed": (
        r"  min_tokens: 4",
        "  min_tokens: 40",
        "filter.min_tokens",
        "min_tokens: 40",
        "max_tokens",
    ),
    "bad generator name": (
        r"    perturbations:\n",
        "    ../..:\n",
        "generate.generators['../..']",
        "../..:",
        "not a valid name",
    ),
    "key given twice": (
        r"  pin: \[\]\n",
        "  pin: []\n  seed: 7\n",
        "split.seed",
        "seed: 7",
        "given twice",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_params_mistake_is_one_line_with_file_line_and_key(run_cli, tmp_path, case):
    old, new, key, at, words = CASES[case]
    text = edited(old, new)
    code, output = run_with(run_cli, tmp_path, text)
    assert_one_line(code, output, f"{FILE}:{line_of(text, at)}", f" {key}: ", words)
    assert "params.yaml" not in output


def test_several_mistakes_name_the_first_and_count_the_rest(run_cli, tmp_path):
    text = edited(r"  min_tokens: 4", "  min_tokns: 4")
    text = text.replace("expand_alternations: true", "expand_alternations: 1")
    code, output = run_with(run_cli, tmp_path, text)
    line = line_of(text, "expand_alternations: 1")
    assert_one_line(code, output, f"{FILE}:{line}", "extract.expand_alternations", "1 more")


def test_a_file_that_is_not_utf8_names_the_line(run_cli, tmp_path):
    text = PARAMS.replace("  min_ipm: 1.0", "  min_ipm: 1.0  # MARK", 1)  # filter, not screen
    line = line_of(text, "MARK")
    data = text.encode("utf-8").replace(b"MARK", "порог".encode("cp1251"))
    code, output = run_with(run_cli, tmp_path, data)
    assert_one_line(code, output, f"{FILE}:{line}", "UTF-8")


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("filter:\n  min_tokens: [4\n", 3, "not valid YAML"),
        ("- extract\n- filter\n", 1, "must be a mapping of sections"),
        ("just words\n", 1, "must be a mapping of sections"),
        ("filter:\n  near_duplicates: {threshold: 1.5}\n", 2, "filter.near_duplicates.threshold"),
    ],
)
def test_a_broken_file_is_one_line(run_cli, tmp_path, text, line, words):
    code, output = run_with(run_cli, tmp_path, text)
    assert_one_line(code, output, f"{FILE}:{line}", words)


def test_a_missing_params_file_is_an_error(run_cli, tmp_path):
    code, stdout, stderr = run_cli("split", "--params", "nowhere.yaml", cwd=tmp_path)
    assert_one_line(code, stdout + stderr, "nowhere.yaml", "not found")


def test_without_a_file_the_defaults_apply_and_params_yaml_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_params() == DEFAULTS
    (tmp_path / "params.yaml").write_text("split:\n  seed: 7\n", encoding="utf-8")
    assert load_params()["split"]["seed"] == 7
    assert load_params(None)["filter"] == DEFAULTS["filter"]
    (tmp_path / "params.yaml").write_text("split:\n  seed: x\n", encoding="utf-8")
    with pytest.raises(RucolaError, match=r"^params\.yaml:2: split\.seed: "):
        load_params()


def test_an_empty_file_means_the_defaults(tmp_path):
    (tmp_path / FILE).write_text("# nothing changed\n", encoding="utf-8")
    assert load_params(tmp_path / FILE) == DEFAULTS


def test_a_single_path_is_read_as_a_list_of_one(tmp_path):
    (tmp_path / FILE).write_text("annotate:\n  controls: gold.tsv\n", encoding="utf-8")
    assert load_params(tmp_path / FILE)["annotate"]["controls"] == ["gold.tsv"]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_presets_load(preset, monkeypatch):
    monkeypatch.chdir(ROOT)
    params = load_params(preset)
    assert set(params) == set(DEFAULTS)


def _unset_keys(given: Any, full: Any, where: str) -> list[str]:
    if not isinstance(given, dict):
        return []
    missing = [f"{where}{k}" for k in full if k not in given]
    for key, value in given.items():
        if isinstance(full.get(key), dict) and key not in ("marks", "sources", "generators"):
            missing += _unset_keys(value, full[key], f"{where}{key}.")
    return missing


@pytest.mark.parametrize("preset", PRESETS)
def test_the_presets_spell_out_every_key(preset):
    """dvc.yaml interpolates paths from the params file itself, and the file is the
    reference a reader edits: no key is left to the defaults."""
    given = yaml.safe_load((ROOT / preset).read_text(encoding="utf-8"))
    assert _unset_keys(given, DEFAULTS, "") == []


def _differences(given: Any, default: Any, where: str) -> list[str]:
    """Keys ``given`` sets to something other than ``default`` (mapping items by key, list
    items by position)."""
    if isinstance(given, dict) and isinstance(default, dict):
        out = []
        for key, value in given.items():
            if key not in default:
                out.append(f"{where}.{key}: not a default")
            else:
                out += _differences(value, default[key], f"{where}.{key}")
        return out
    if isinstance(given, list) and isinstance(default, list) and len(given) == len(default):
        return [
            d for i, g in enumerate(given) for d in _differences(g, default[i], f"{where}[{i}]")
        ]
    return [] if given == default else [f"{where}: {given!r} != default {default!r}"]


def _restated(items: dict[str, Any], model: type, chosen: set[str]) -> list[str]:
    """Keys an item of a user-named mapping sets, beyond what makes it this item, whose
    value differs from the item model's default."""
    out = []
    for name, settings in items.items():
        for key, value in settings.items():
            if key in chosen:
                continue
            field = model.model_fields[key]
            default = field.get_default(call_default_factory=True)
            default = default.model_dump() if hasattr(default, "model_dump") else default
            out += _differences(value, default, f"{name}.{key}")
    return out


def test_params_yaml_holds_exactly_the_schema_defaults():
    """Where params.yaml sets a key, it sets the schema's default, so code and file cannot
    drift apart again. The sample's generators and sources are examples, not defaults (a
    project that names none generates nothing): what makes each one itself (its method,
    model, sources, path ...) is its own; every other key it sets restates the item
    model's default."""
    given = yaml.safe_load(PARAMS)
    sources = given["generate"].pop("sources")
    generators = given["generate"].pop("generators")
    # The sample hashes annotator ids with its own published key; a project's default is
    # the secret key from the environment.
    assert given["release"].pop("annotator_key") == "sample"
    assert DEFAULTS["release"]["annotator_key"] == "env"
    # The sample's card is titled a sample (issue 24); a project's default names RuCoLA.
    assert "sample" in given["release"].pop("pretty_name")
    assert _differences(given, DEFAULTS, "") == []
    chosen = {"method", "enabled", "sources", "model", "pivot_model", "backend", "rules"}
    sampling = {"strategy", "num_return_sequences"}  # mt5_paraphrase samples two outputs
    decodings = {name: g.pop("decoding", {}) for name, g in generators.items()}
    assert _restated(generators, Generator, chosen) == []
    assert _restated(decodings, Decoding, sampling) == []
    assert _restated(sources, GenerationSource, {"path", "format"}) == []
    load_params(ROOT / "params.yaml")  # and all of it is valid


def test_defaults_come_from_the_schema():
    assert Params().model_dump() == DEFAULTS
    assert DEFAULTS["measure"]["input"] == "data/interim/combined.parquet"
    assert DEFAULTS["annotate"]["candidates"] == "data/interim/screened.parquet"
    from rucola.generation.config import DECODING_DEFAULTS, GENERATOR_DEFAULTS
    from rucola.generation.sources import SOURCE_DEFAULTS

    assert GENERATOR_DEFAULTS["method"] is None and GENERATOR_DEFAULTS["per_sentence"] == 2
    assert GENERATOR_DEFAULTS["decoding"] == DECODING_DEFAULTS
    assert SOURCE_DEFAULTS["lang"] == "ru" and SOURCE_DEFAULTS["path"] is None


def test_the_readme_table_is_the_schema():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_with_table(readme) == readme, "run `python -m rucola.settings`"
    table = params_table()
    for key in ("filter.min_high_freq_share", "generate.generators.<name>.decoding.top_p"):
        assert f"| `{key}` |" in table


def test_output_keys_are_the_paths_commands_write():
    assert {"split.out", "annotate.simulate.out_dir", "release.changelog"} <= set(OUTPUT_KEYS)
    assert not {"split.input", "split.pin", "release.validation"} & set(OUTPUT_KEYS)
    assert all(not key.endswith(("input", "candidates")) for key in OUTPUT_KEYS)


def test_allowed_values_agree_with_the_stages():
    from rucola.annotation.aggregate import METHODS
    from rucola.corpus.marks import VERDICTS
    from rucola.corpus.schema import DOMAINS
    from rucola.corpus.sources import SOURCE_TYPES
    from rucola.generation import schema
    from rucola.generation.perturb import RULES
    from rucola.generation.sources import FORMATS

    assert set(get_args(AggregationMethod)) == set(METHODS)
    assert set(get_args(Verdict)) == set(VERDICTS)
    assert set(get_args(Domain)) == set(DOMAINS)
    assert set(get_args(SourceType)) == set(SOURCE_TYPES)
    assert set(get_args(GenerationMethod)) == set(schema.METHODS)
    assert set(get_args(PerturbationRule)) == set(RULES)
    assert set(get_args(SourceFormat)) == set(FORMATS)
    assert set(get_args(Backend)) == {"transformers", "ctranslate2"}
    assert set(get_args(Strategy)) == {"beam", "greedy", "sampling"}


def test_split_and_validation_share_one_ratio_rule():
    from rucola.corpus.split import _ratios
    from rucola.validation.suite import split_ratios

    bad = {"in_domain": [0.8, 0.1, 0.2], "out_of_domain": [0, 0.5, 0.5]}
    with pytest.raises(RucolaError, match="add up to 1"):
        _ratios({"ratios": bad}, "in_domain")
    with pytest.raises(RucolaError, match="add up to 1"):
        split_ratios({"split": {"ratios": bad}}, "in_domain")
    assert split_ratios({"split": {"ratios": bad}}, "out_of_domain") == [0.0, 0.5, 0.5]


def test_generator_config_checks_a_section_built_in_code():
    from rucola.generation.config import GeneratorConfig, generator_config

    generate = {"sources": {"W": {"path": "w.txt"}}, "generators": {"g": {}}, "seed": 3}
    with pytest.raises(RucolaError, match=r"generate\.generators\.g\.method: missing"):
        generator_config(generate, "g")
    generate["generators"]["g"] = {"method": "perturbation", "sources": ["W"]}
    config = generator_config(generate, "g")
    assert isinstance(config, GeneratorConfig) and config.seed == 3
    assert config["decoding"]["num_beams"] == 4 and config.enabled
    generate["generators"]["g"]["decoding"] = {"top_q": 1}
    with pytest.raises(RucolaError, match=r"decoding\.top_q: unknown parameter"):
        generator_config(generate, "g")
