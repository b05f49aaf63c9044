"""Issue 33, point 5: the Data Docs read offline (no asset from a CDN), are a private output
of the validate stage, and a rebuild replaces them wholly.

The pages are checked as files here; ``test_docs_in_browser.py`` opens them in chromium with
the network blocked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_suite import params, valid_frame

from rucola.io import write_parquet
from rucola.settings import Params
from rucola.validation.offline_docs import VEGA_BUNDLE, VENDOR, RemoteAsset, make_offline
from rucola.validation.run import validate_split

LOADED = re.compile(r"<(?:script|link|img)\b[^>]*\b(?:src|href)=\"([^\"#]+)\"")


def build(folder: Path, frame=None) -> Path:
    """Data Docs of ``frame`` (the valid sample frame by default) under ``folder/docs``."""
    write_parquet(valid_frame() if frame is None else frame, folder / "split.parquet")
    validate_split(folder / "split.parquet", params(), folder / "v.json", folder / "docs")
    return folder / "docs"


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("docs"))


def test_every_page_loads_only_files_beside_it(docs):
    """GX 1.24 links bootstrap, jQuery, bootstrap-table, Font Awesome, vega... from CDNs and
    its logo from S3; now every script, stylesheet and image is a file in the site."""
    pages = sorted(docs.rglob("*.html"))
    assert len(pages) >= 5  # index, two suites, two validation results
    for page in pages:
        text = page.read_text(encoding="utf-8")
        loaded = LOADED.findall(text)
        assert loaded, page
        for target in loaded:
            assert not target.startswith(("http:", "https:", "//")), (page, target)
            assert (page.parent / target).resolve().is_file(), (page, target)
    index = (docs / "index.html").read_text(encoding="utf-8")
    for needed in ("bootstrap-table.min.js", "jquery.min.js", "all.min.css", "datepicker"):
        assert needed in index


def test_font_awesome_comes_with_its_fonts(docs):
    css = (docs / VENDOR / "font-awesome/css/all.min.css").read_text(encoding="utf-8")
    for font in re.findall(r"url\(\.\./(webfonts/[^)]+)\)", css):
        assert (docs / VENDOR / "font-awesome" / font).is_file(), font


def test_no_graph_no_vega(docs):
    """The suite's pages draw no graph: no vega tag is left and no bundle written."""
    assert not (docs / VENDOR / VEGA_BUNDLE).exists()
    for page in docs.rglob("*.html"):
        assert "vega" not in page.read_text(encoding="utf-8").lower(), page


@pytest.mark.slow
def test_a_page_that_draws_gets_vega_inlined_once(tmp_path):
    pytest.importorskip("vl_convert", reason="vl-convert-python: pip install -e '.[plots]'")
    page = tmp_path / "expectations" / "graph.html"
    page.parent.mkdir()
    page.write_text(
        '<script src="https://cdn.jsdelivr.net/npm/vega@5"></script>\n'
        '<script src="https://cdn.jsdelivr.net/npm/vega-lite@5"></script>\n'
        '<script src="https://cdn.jsdelivr.net/npm/vega-embed@6"></script>\n'
        "<script>vegaEmbed('#g', {});</script>\n",
        encoding="utf-8",
    )
    make_offline(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert text.count("<script src=") == 1
    assert f'src="../{VENDOR.as_posix()}/{VEGA_BUNDLE}"' in text
    assert "window.vegaEmbed=" in (tmp_path / VENDOR / VEGA_BUNDLE).read_text(encoding="utf-8")


def test_an_asset_without_a_local_copy_is_an_error(tmp_path):
    """A later GX that links another CDN file fails the build, naming page and URL, rather
    than writing pages that need the network again."""
    page = tmp_path / "index.html"
    url = "https://cdn.example.org/new-widget.min.js"
    page.write_text(f'<script src="{url}"></script>', encoding="utf-8")
    with pytest.raises(RemoteAsset) as raised:
        make_offline(tmp_path)
    assert str(raised.value).startswith(f"index.html: links {url}, which has no local copy")
    assert "\n" not in str(raised.value)
    img = tmp_path / "logo.html"
    page.unlink()
    img.write_text('<img src="https://cdn.example.org/logo.png">', encoding="utf-8")
    with pytest.raises(RemoteAsset, match="logo.png"):
        make_offline(tmp_path)


@pytest.mark.slow
def test_a_rebuild_leaves_no_page_of_the_earlier_build(tmp_path):
    """After a branch switch the docs showed the other build: a rebuild replaces the whole
    folder, so the pages of other data (another run name) are gone."""
    first = build(tmp_path)
    before = {p.relative_to(first).as_posix() for p in first.rglob("*.html")}
    other = valid_frame()
    other.loc[0, "sentence"] = "Совсем другое предложение."
    second = build(tmp_path, other)
    after = {p.relative_to(second).as_posix() for p in second.rglob("*.html")}
    gone = before - after
    assert gone and all(name.startswith("validations/") for name in gone), gone
    assert len([n for n in after if n.startswith("validations/")]) == 2


def test_the_docs_are_a_private_output_of_validate():
    """They show the split's rows, test rows included: under reports/private (git-ignored),
    declared private in the validate stage."""
    import yaml
    from dvc_project import ROOT

    docs = Params().validate.docs
    assert docs.startswith("reports/private/")
    validate = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]["validate"]
    declared = {path: flags for out in validate["outs"] for path, flags in out.items()}
    assert declared["${validate.docs}"]["meta"] == {"access": "private"}
