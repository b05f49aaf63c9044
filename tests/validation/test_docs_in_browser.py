"""Issue 33, point 5: the Data Docs opened in headless chromium with the network blocked.

Offline, GX's own pages showed no table of runs (bootstrap-table builds it in JavaScript from
the data in the page) and empty status icons (Font Awesome's font). Here the rendered DOM must
hold the rows bootstrap-table builds, and a screenshot the green of the success icons."""

from __future__ import annotations

import re

import pytest
from browser import chromium, dom, pixels_near, screenshot
from test_offline_docs import build

SUCCESS_GREEN = (40, 167, 69)  # Bootstrap 4's text-success, the colour of fa-check-circle
BUILT_ROW = re.compile(r"<tr\b[^>]*\bdata-index=\"\d+\"")  # bootstrap-table's own markup


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    chromium()  # skip before building anything when there is no browser
    return build(tmp_path_factory.mktemp("docs"))


@pytest.mark.slow
def test_the_index_shows_the_table_of_runs(docs):
    page = dom(docs / "index.html")
    # two runs (rows and balance) and two suites, each a row bootstrap-table built
    assert len(BUILT_ROW.findall(page)) == 4, page[-3000:]
    assert "Showing 1 to 2 of 2 rows" in page  # the pagination line bootstrap-table writes
    runs = page[page.index("Validation Results") :]
    assert "fa-check-circle" in runs and "2000-01-01 00:00:00 UTC" in runs


def test_the_status_icons_are_drawn(docs, tmp_path):
    """Font Awesome's glyphs are drawn: without the font the icons are empty and the page
    has no green at all."""
    png = screenshot(docs / "index.html", tmp_path / "index.png")
    assert pixels_near(png, SUCCESS_GREEN) > 100


@pytest.mark.slow
def test_a_validation_page_is_built_by_its_scripts(docs, tmp_path):
    page = next(docs.glob("validations/rucola_rows/*/*/*.html"))
    rendered = dom(page)
    assert "Succeeded" in rendered
    assert len(BUILT_ROW.findall(rendered)) >= 10  # one per expectation, in its section
    assert "table: has rows" in rendered
    png = screenshot(page, tmp_path / "validation.png", "1400,1400")
    assert pixels_near(png, SUCCESS_GREEN) > 100
