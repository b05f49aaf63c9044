"""docs/pipeline.md's `dvc exp show` advice cannot go stale (issue 33, 10): it copies no
output (whose figures were the build's, and drifted from it), and the columns its `--keep`
picks are the headline metrics' keys and params this project has. The slow test in
``test_metrics_and_plots.py`` runs the same invocation on a built sample."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs/pipeline.md"


def keep_pattern(doc: Path = DOC) -> str:
    """The ``--keep`` regular expression of the documented ``dvc exp show``."""
    found = re.findall(r"dvc exp show --drop '\.\*' --keep '([^']+)'", doc.read_text("utf-8"))
    assert len(found) == 1, f"{doc}: one `dvc exp show --drop '.*' --keep ...` expected"
    return found[0]


def test_the_doc_copies_no_exp_show_output():
    text = DOC.read_text(encoding="utf-8")
    table = [
        line
        for line in text.splitlines()
        if re.match(r"\s+(workspace|master|main)\s+\d", line) or re.search(r"[├└]── \w+ \[", line)
    ]
    assert table == [], "docs/pipeline.md copies `dvc exp show` figures, which go stale"


def test_the_kept_columns_are_metrics_and_params_of_the_project():
    pattern = keep_pattern()
    names = [part for part in pattern.split("|") if part != "Experiment$"]
    metrics = json.loads((ROOT / "reports/metrics.json").read_text(encoding="utf-8"))
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    prefixes = [f"{section}.{key}" for section, keys in params.items() for key in keys]
    for name in names:
        if name.endswith("$"):
            assert name[:-1] in metrics, f"{name}: not a key of reports/metrics.json"
        else:
            prefix = name.replace("\\.", ".")
            assert any(p.startswith(prefix) for p in prefixes), f"{name}: no such param"
    text = DOC.read_text(encoding="utf-8")
    for name in (n[:-1] for n in names if n.endswith("$")):
        assert f"`{name}`" in text, f"docs/pipeline.md does not say what `{name}` is"
