"""Issue 33, point 5: ``dvc plots show`` readable offline.

DVC's page loads vega, vega-lite and vega-embed from a CDN, so offline the CSV plots are
blank. ``rucola.offline_plots`` writes a template with them inlined (from the pinned
vl-convert wheel); the page DVC renders with it is opened in chromium with the network
blocked and must hold the drawn plot with every series."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from browser import dom

pytest.importorskip("vl_convert", reason="vl-convert-python: pip install -e '.[plots]'")

from rucola.offline_plots import main, write_template  # noqa: E402

REMOTE_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=\"https?://")
DVC_YAML = """\
plots:
  - lengths.csv:
      template: simple
      x: n_tokens
      y: [in_domain, test]
"""


def show(project, *args: str) -> str:
    """``dvc plots show`` in ``project``; the HTML it wrote."""
    result = subprocess.run(
        [sys.executable, "-m", "dvc", "plots", "show", "-o", "out", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return (project / "out" / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project = tmp_path_factory.mktemp("plots")
    subprocess.run([sys.executable, "-m", "dvc", "init", "--no-scm", "-q"], cwd=project, check=True)
    (project / "dvc.yaml").write_text(DVC_YAML, encoding="utf-8")
    rows = "\n".join(f"{n},{n * 3 % 7},{n % 4}" for n in range(5, 15))
    (project / "lengths.csv").write_text(f"n_tokens,in_domain,test\n{rows}\n", "utf-8")
    return project


@pytest.mark.slow
def test_dvcs_own_page_needs_the_network(project):
    """Why the template exists: without it the page's scripts come from a CDN."""
    assert REMOTE_SCRIPT.search(show(project))


@pytest.mark.slow
def test_the_page_draws_every_series_offline(project, tmp_path):
    template = write_template(tmp_path / "template.html")
    html = show(project, "--html-template", str(template))
    assert not REMOTE_SCRIPT.search(html)
    assert "window.vegaEmbed=" in html
    rendered = dom(project / "out" / "index.html")
    assert rendered.count('class="marks"') == 1, rendered[-2000:]  # the plot vega drew
    legend = rendered[rendered.index('class="marks"') :]
    for series in ("in_domain", "test"):
        assert f">{series}</text>" in legend, series


@pytest.mark.slow
def test_the_template_is_the_same_bytes_each_time(tmp_path):
    first = write_template(tmp_path / "a.html").read_bytes()
    assert first == write_template(tmp_path / "b.html").read_bytes()
    assert b"{plot_divs}" in first and b"{scripts}" not in first


def test_the_command_line(tmp_path, capsys):
    assert main([str(tmp_path / "t.html")]) == 0
    assert (tmp_path / "t.html").is_file()
    assert main([]) == 2
    assert "usage: python -m rucola.offline_plots PATH" in capsys.readouterr().err
