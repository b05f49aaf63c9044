"""Issue 43: a fingerprint sees every module its command runs (the extensions a registry
loads by name included) and hashes code, not layout (a comment or a blank line changes no
file under ``reports/code/``), the same on Python 3.11 to 3.13."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from dvc_project import ROOT
from test_code_fingerprint import code_copy, edit

from rucola.cli import app
from rucola.code_fingerprint import fingerprints
from rucola.import_graph import ITER_MODULES, imports, modules, registry_homes
from rucola.source_text import code_hash, code_text

# Registry -> the commands whose code looks one of its entries up (a change to any of its
# extensions reruns exactly their stages). Checking a name (the params schema's
# ``name in LANGUAGES``) covers nothing. Extract reads a language profile (its marks, its
# scripts): before issue 43 it did not cover corpus/languages/.
COVERED_BY = {
    "LANGUAGES": {
        *("annotate/corpus", "annotate/human-eval", "audit", "audit/export", "audit/import"),
        *("extract", "filter", "measure", "merge-candidates", "screen", "split", "validate"),
        *("generate", "generate/back_translation", "generate/paraphrase"),
        *("generate/perturbation", "generate/translation"),
        *("release/build", "release/diff", "release/keep", "release/publish"),
    },
    "SOURCE_READERS": {"extract"},
    "GENERATION_METHODS": {
        *("generate", "generate/back_translation", "generate/paraphrase"),
        *("generate/perturbation", "generate/translation"),
    },
    "BACKENDS": {
        "generate",
        "generate/back_translation",
        "generate/paraphrase",
        "generate/translation",
    },
}
# Every first-party ``importlib.import_module`` call, and how the fingerprints account for
# the module it imports: a package importing each of its modules (``pkgutil``), a
# registry's home (a lookup), or no first-party code a command runs.
IMPORT_MODULE_CALLS = {
    "rucola.corpus.attributes": ITER_MODULES,
    "rucola.corpus.filters": ITER_MODULES,
    "rucola.corpus.languages": ITER_MODULES,
    "rucola.corpus.sources.formats": ITER_MODULES,
    "rucola.generation.backends": ITER_MODULES,
    "rucola.generation.methods": ITER_MODULES,
    "rucola.registry": "a registry's home, covered where an entry is looked up",
    "rucola.corpus.languages.profile": "a profile's pip extra (third party)",
    "rucola.validation.offline_docs": "xstatic packages (third party)",
    "rucola.dev.__main__": "rucola.dev.params, a developer tool no command runs",
}


@pytest.fixture(scope="module")
def original() -> dict[str, dict]:
    return fingerprints(app, ROOT)


def covering(prints: dict[str, dict], home: str) -> set[str]:
    return {name.removesuffix(".json") for name, p in prints.items() if home in p["code"]}


def test_each_registry_is_covered_by_the_commands_that_look_an_entry_up(original):
    homes = registry_homes()
    assert set(homes) == set(COVERED_BY), "a new registry: say which commands cover it"
    for registry, home in homes.items():
        assert covering(original, home) == COVERED_BY[registry], registry


def test_every_import_module_call_is_accounted_for():
    found = set()
    for name, module in modules().items():
        tree = ast.parse(module.path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            func = getattr(node, "func", None)
            if isinstance(func, ast.Attribute) and func.attr == "import_module":
                found.add(name)
    assert found == set(IMPORT_MODULE_CALLS)
    for name, how in IMPORT_MODULE_CALLS.items():
        if how == ITER_MODULES:  # the import graph sees each of the package's modules
            assert {i.written for i in imports(name)} >= {ITER_MODULES}, name


@pytest.mark.slow
def test_editing_a_language_profile_changes_the_commands_that_look_profiles_up(
    tmp_path: Path, original
):
    root = code_copy(tmp_path)
    edit(root / "corpus/languages/russian.py", '"""', '"""Changed. ')
    after = fingerprints(app, root)
    changed = {n.removesuffix(".json") for n in original if original[n] != after[n]}
    assert changed == COVERED_BY["LANGUAGES"]


@pytest.mark.slow
def test_comments_and_blank_lines_change_no_fingerprint(tmp_path: Path, original):
    """A comment after code, a comment alone, blank lines, in every module (outside the
    settings classes too): every file under reports/code/ the same."""
    root = code_copy(tmp_path)
    edit(
        root / "rucola/settings/corpus.py",
        "class Filter(Thresholds):\n",
        "class Filter(Thresholds):  # the filter's keys\n\n    # thresholds below\n",
    )
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        path.write_text(f"# a comment first\n\n{text}\n\n# and one last\n", encoding="utf-8")
    assert fingerprints(app, root) == original


def test_code_text_drops_layout_only():
    text = 'x = 1  # one\n\n# alone\ny = """a\n\n# kept: in a string\n"""\nz = [\n\n    2,\n]\n'
    assert code_text(text) == 'x = 1\ny = """a\n\n# kept: in a string\n"""\nz = [\n    2,\n]\n'
    assert code_hash(text) != code_hash(text.replace("# kept", "# other"))  # content counts
    assert code_hash(text) != code_hash(text.replace("x = 1", "x = 2"))


def python313() -> str:
    found = sorted(Path("/root/.pyenv/versions").glob("3.13*/bin/python3.13"))
    found += [Path(p) for p in ("/usr/bin/python3.13", "/usr/local/bin/python3.13")]
    for candidate in found:
        if candidate.is_file():
            return str(candidate)
    pytest.fail("no Python 3.13 (pyenv install 3.13): the 3.11/3.13 comparison cannot run")


def test_the_tree_hashes_the_same_under_python_3_13():
    files = sorted(str(m.path) for m in modules().values())
    done = subprocess.run(
        [python313(), str(ROOT / "rucola/source_text.py"), *files],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    ours = {f: code_hash(Path(f).read_text(encoding="utf-8")) for f in files}
    assert theirs == ours
