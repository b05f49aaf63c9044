"""Params: one schema checks every key at every depth; any mistake is exit 1 with one line
naming the file given, the line in it and the dotted key; a removed key says what replaced
it; the params files and the params table are generated from the schema."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from identity import identity_yaml, rucola_params, write_identity

from rucola.dev.params import params_table, readme
from rucola.errors import RucolaError
from rucola.params import DEFAULTS, MOST_PROBLEMS, OUTPUT_KEYS, load_settings
from rucola.settings import REMOVED_KEYS, Params

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
    "misspelt section": (r"\nfilter:", "\nfitler:", "fitler", "fitler:", "did you mean filter"),
    "misspelt key": (
        r"  min_tokens: 4",
        "  min_tokns: 4",
        "filter.min_tokns",
        "min_tokns",
        "unknown parameter (did you mean min_tokens?)",
    ),
    "misspelt key in a list item": (
        r"  - path: data/sample/in_domain\n",
        "  - path: data/sample/in_domain\n    tpye: sheet\n",
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
        r"  seed: 42[^\n]*\n  ratios:",
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
        r"\nfilter:[^\n]*\n.*?\nscreen:",
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
        r"strategy: beam",
        "strategy: beem",
        "generate.generators.opus_mt.decoding.strategy",
        "strategy: beem",
        "'sampling'",
    ),
    "key one level too high": (
        r"      backend: ctranslate2\n",
        "      backend: ctranslate2\n      top_p: 0.91\n",
        "generate.generators.opus_mt.top_p",
        "top_p: 0.91",
        "did you mean decoding.top_p",
    ),
    "a key another method has": (
        r"      per_sentence: 2\n",
        "      per_sentence: 2\n      top_p: 0.91\n",
        "generate.generators.perturbations.top_p",
        "top_p: 0.91",
        "known: method, enabled, sources, seed, rules, per_sentence",
    ),
    "ratios": (
        r"in_domain: \[0\.8, 0\.1, 0\.1\]",
        "in_domain: [0.8, 0.1, 0.2]",
        "split.ratios.in_domain",
        "0.2]",
        "add up to 1",
    ),
    "encoding": (r"  encoding: utf-8", "  encoding: utf-9", "extract.encoding", "utf-9", ""),
    # checks between keys
    "generator without a model": (
        r"      model: models/mt5-paraphraser\n",
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
        r"  pin: \[\][^\n]*\n",
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


@pytest.mark.parametrize("section", ["filter", "screen"])
def test_a_minimum_above_the_maximum_is_one_line_where_params_are_read(run_cli, tmp_path, section):
    """The threshold rules trust this check (the filter's token rule no longer repeats it)."""
    start = PARAMS.index(f"\n{section}:")
    at = PARAMS.index("  min_tokens: 4 ", start)
    text = PARAMS[:at] + "  min_tokens: 40" + PARAMS[at + len("  min_tokens: 4") :]
    code, output = run_with(run_cli, tmp_path, text)
    where = f"{FILE}:{text[:at].count(chr(10)) + 1}"
    assert_one_line(code, output, where, f"{section}.min_tokens: 40 is more than {section}.max")


def test_several_mistakes_are_one_line_each_in_file_order(run_cli, tmp_path):
    """Issue 45: every problem at once (before: the first, and how many more), so a new
    corpus's params are fixed in one pass."""
    text = edited(r"  min_tokens: 4", "  min_tokns: 4")
    text = text.replace("expand_alternations: true", "expand_alternations: 1")
    code, output = run_with(run_cli, tmp_path, text)
    assert code == 1 and "Traceback" not in output, output
    lines = output.strip().splitlines()
    extract, filter_ = line_of(text, "expand_alternations: 1"), line_of(text, "min_tokns: 4")
    assert extract < filter_ and len(lines) == 2, output
    assert lines[0].startswith(f"error: {FILE}:{extract}: extract.expand_alternations: ")
    assert lines[1].startswith(f"error: {FILE}:{filter_}: filter.min_tokns: unknown parameter")
    assert "more problem" not in output


def test_past_the_most_problems_the_rest_are_counted(tmp_path):
    """A file of many mistakes lists the first MOST_PROBLEMS in file order, then how many
    more there are."""
    extra = MOST_PROBLEMS + 2
    text = identity_yaml("filter:\n" + "".join(f"  min_tokns{i}: 4\n" for i in range(extra)))
    (tmp_path / FILE).write_text(text, encoding="utf-8")
    with pytest.raises(RucolaError) as caught:
        load_settings(tmp_path / FILE)
    lines = str(caught.value).splitlines()
    assert len(lines) == MOST_PROBLEMS + 1
    for i, line in enumerate(lines[:-1]):
        assert f"{FILE}:{i + 2}: filter.min_tokns{i}: unknown parameter" in line, line
    assert lines[-1].endswith(f"{FILE}: and 2 more problems")


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


def test_a_removed_key_says_what_replaced_it(run_cli, tmp_path):
    """A path one stage writes and the next reads is one key, the writer's: an old params
    file naming the reader's copy is told which key to set instead."""
    text = PARAMS.replace("\nfilter:", "\nfilter:\n  input: data/interim/measured.parquet", 1)
    code, output = run_with(run_cli, tmp_path, text)
    line = line_of(text, "  input: data/interim/measured")
    words = "filter.input: removed; filter reads measure.out"
    assert_one_line(code, output, f"{FILE}:{line}", words)
    assert "unknown parameter" not in output


@pytest.mark.parametrize("key", sorted(REMOVED_KEYS))
def test_every_removed_key_is_explained(tmp_path, key):
    *sections, name = key.split(".")
    data: dict = {name: "x"}
    for section in reversed(sections):
        data = {section: data}
    (tmp_path / FILE).write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(RucolaError, match=rf"{re.escape(key)}: removed; "):
        load_settings(tmp_path / FILE).model_dump()


def test_a_missing_params_file_is_an_error(run_cli, tmp_path):
    code, stdout, stderr = run_cli("split", "--params", "nowhere.yaml", cwd=tmp_path)
    assert_one_line(code, stdout + stderr, "nowhere.yaml", "not found")


def test_without_a_file_params_yaml_is_asked_for_and_then_read(tmp_path, monkeypatch):
    """Issue 45: the defaults name no corpus, so without params.yaml a command says, in one
    line, what a corpus needs; once it is there, it is read."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RucolaError) as caught:
        load_settings()
    text = str(caught.value)
    assert "\n" not in text and text.startswith("params.yaml: not found here")
    assert "corpus.name, corpus.language, corpus.license" in text
    (tmp_path / "params.yaml").write_text(identity_yaml("split:\n  seed: 7\n"), encoding="utf-8")
    assert load_settings().model_dump()["split"]["seed"] == 7
    assert load_settings(None).model_dump()["filter"] == DEFAULTS["filter"]
    (tmp_path / "params.yaml").write_text(identity_yaml("split:\n  seed: x\n"), encoding="utf-8")
    with pytest.raises(RucolaError, match=r"^params\.yaml:2: split\.seed: "):
        load_settings().model_dump()


def test_an_empty_file_names_each_identity_key_it_lacks(tmp_path):
    """Issue 45: name, language and licence are required, each missing one its own line."""
    (tmp_path / FILE).write_text("# nothing changed\n", encoding="utf-8")
    with pytest.raises(RucolaError) as caught:
        load_settings(tmp_path / FILE)
    lines = str(caught.value).splitlines()
    assert len(lines) == 3
    for line, key in zip(lines, ["name", "language", "license"], strict=True):
        assert f"{FILE}: corpus.{key}: is not set (hint: give " in line, line


def test_a_file_of_the_identity_alone_means_the_defaults(tmp_path):
    (tmp_path / FILE).write_text(identity_yaml("# nothing changed\n"), encoding="utf-8")
    assert load_settings(tmp_path / FILE).model_dump() == rucola_params().model_dump()


def test_a_single_path_is_read_as_a_list_of_one(tmp_path):
    (tmp_path / FILE).write_text(
        identity_yaml("annotate:\n  controls: gold.tsv\n"), encoding="utf-8"
    )
    assert load_settings(tmp_path / FILE).model_dump()["annotate"]["controls"] == ["gold.tsv"]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_presets_load(preset, monkeypatch):
    monkeypatch.chdir(ROOT)
    params = load_settings(preset).model_dump()
    assert set(params) == set(DEFAULTS)


def test_defaults_come_from_the_schema():
    assert Params().model_dump() == DEFAULTS
    assert DEFAULTS["measure"]["out"] == "data/interim/measured.parquet"


def test_the_defaults_never_name_the_sample():
    """A params file that does not name the embedded sample never builds from it: the
    schema's input keys default to nothing; the sample is the project's overlay."""
    assert "data/sample" not in str(DEFAULTS)
    assert DEFAULTS["extract"]["sources"] == [] and DEFAULTS["annotate"]["stage1"] == []


def test_the_params_table_is_the_schema():
    if not (ROOT / "docs/params.md").is_file():
        pytest.skip("docs/params.md not there yet")
    assert readme(ROOT, check=True) == [], "run `python -m rucola.dev generate`"
    table = params_table()
    for key in ("filter.min_high_freq_share", "generate.generators.<name>.decoding.top_p"):
        assert f"| `{key}` |" in table


def test_output_keys_are_the_paths_commands_write():
    assert {"split.out", "annotate.simulate.out_dir", "release.changelog"} <= set(OUTPUT_KEYS)
    assert not {"screen.input", "split.pin", "annotate.stage1"} & set(OUTPUT_KEYS)
    assert all(not key.endswith(("input", "candidates")) for key in OUTPUT_KEYS)


def test_split_ratios_are_checked_by_the_schema():
    """One ratio rule (``rucola.settings.ratios_problem``) for the split and validation:
    both receive ``split.ratios`` only once the schema has checked them."""
    from rucola.settings import split_ratios

    with pytest.raises(RucolaError, match="add up to 1"):
        split_ratios([0.8, 0.1, 0.2])
    assert split_ratios([0, 0.5, 0.5]) == [0.0, 0.5, 0.5]


# A key whose value is checked long after loading (a stage's own check) was reported
# against params.yaml whatever --params named: every such message names the file loaded.
def test_a_key_checked_after_loading_names_the_file_given(run_cli, tmp_path):
    (tmp_path / FILE).write_text(identity_yaml("corpus:\n  language: it\n"), encoding="utf-8")
    code, stdout, stderr = run_cli("generate", "nope", "--params", FILE, cwd=tmp_path)
    assert_one_line(code, stdout + stderr, FILE, "no generator 'nope' in generate.generators")
    # the next command, without --params, names params.yaml again: nothing carries over
    write_identity(tmp_path)
    code, stdout, stderr = run_cli("generate", "nope", cwd=tmp_path)
    assert_one_line(code, stdout + stderr, "params.yaml", "no generator 'nope'")


def test_params_errors_name_the_file_in_effect_and_only_while_it_is():
    from rucola.errors import params_error, params_file, reading_params, set_params_file
    from rucola.names import check_name, check_output_path
    from rucola.params import path_list
    from rucola.settings import split_ratios

    checks = [
        lambda: split_ratios([0.8, 0.1, 0.2]),
        lambda: path_list(3, "split.pin"),
        lambda: check_name("a b", "generate.generators['a b']"),
        lambda: check_output_path("", "split.out"),
        lambda: (_ for _ in ()).throw(params_error("split.seed: no")),
    ]
    for check in checks:
        with pytest.raises(RucolaError) as caught:
            check()
        assert caught.value.path == "params.yaml"
        with reading_params(f"configs/{FILE}"), pytest.raises(RucolaError) as caught:
            check()
        assert caught.value.path == f"configs/{FILE}"
        with reading_params(), pytest.raises(RucolaError) as caught:
            set_params_file(FILE)  # what the command line does once it has loaded FILE
            check()
        assert caught.value.path == FILE
    set_params_file(FILE)  # outside a command: nothing would forget it, so nothing changes
    assert params_file() == "params.yaml"


def test_no_stage_names_params_yaml_itself():
    """A message about a params key takes its file from ``rucola.errors.params_file`` (the
    one the command loaded): no ``RucolaError("...", "params.yaml")`` and no function
    whose default params file is ``"params.yaml"`` outside ``rucola.dev`` (which writes
    that very file)."""
    import ast

    found = []
    folders = ["annotation", "corpus", "curation", "generation", "release", "rucola", "validation"]
    for path in sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py")):
        if "dev" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values: list[ast.expr] = []
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "RucolaError":
                values = [*node.args, *(k.value for k in node.keywords)]
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                values = [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            if any(isinstance(v, ast.Constant) and v.value == "params.yaml" for v in values):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"'params.yaml' named as the file of a params error: {', '.join(found)}"
