"""The token-length histogram of ``filter`` and ``screen``: a wide CSV (``n_tokens`` and a
column per domain) that DVC draws as one line per domain, and a PNG of the same counts."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import yaml

from rucola.corpus.plots import COLUMNS, histogram_table, token_length_histogram

ROOT = Path(__file__).resolve().parents[2]


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "domain": ["in_domain", "in_domain", "learner", None, "out_of_domain", "in_domain"],
            "n_tokens": [4, 4, 5, 9, 6, 9],
        }
    )


def test_one_column_per_domain_and_every_length_between():
    table = histogram_table(frame())
    assert list(table.columns) == [
        "n_tokens",
        "in_domain",
        "out_of_domain",
        "learner",
        "test",
        "unlabelled",
    ]
    assert table["n_tokens"].tolist() == [4, 5, 6, 7, 8, 9]  # 7 and 8: no row, zeros
    assert table["in_domain"].tolist() == [2, 0, 0, 0, 0, 1]
    assert table["out_of_domain"].tolist() == [0, 0, 1, 0, 0, 0]
    assert table["learner"].tolist() == [0, 1, 0, 0, 0, 0]
    assert table["unlabelled"].tolist() == [0, 0, 0, 0, 0, 1]  # no domain: published test
    assert int(table[COLUMNS].to_numpy().sum()) == len(frame())


def test_a_domain_without_rows_is_a_column_of_zeros_and_no_rows_is_a_header():
    """DVC refuses a plot whose ``y`` names a column the file lacks: the columns never vary."""
    candidates = pd.DataFrame({"domain": ["out_of_domain"] * 3, "n_tokens": [7, 7, 8]})
    table = histogram_table(candidates)
    assert list(table.columns) == ["n_tokens", *COLUMNS]
    assert table["in_domain"].tolist() == [0, 0]
    assert list(histogram_table(candidates.iloc[:0]).columns) == ["n_tokens", *COLUMNS]


def test_the_columns_are_the_ones_dvc_yaml_plots(tmp_path: Path):
    token_length_histogram(frame(), tmp_path / "h.csv", tmp_path / "h.png")
    header = (tmp_path / "h.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    plots = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["plots"]
    for plot in plots:
        (props,) = plot.values()
        assert props["x"] == "n_tokens"
        assert set(props["y"]) <= set(header[1:]), props["y"]


def test_same_rows_same_bytes(tmp_path: Path):
    for name in ("a", "b"):
        token_length_histogram(frame(), tmp_path / f"{name}.csv", tmp_path / f"{name}.png")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    png = (tmp_path / "a.png").read_bytes()
    assert png.startswith(b"\x89PNG") and b"Software" not in png
    assert pd.read_csv(io.BytesIO((tmp_path / "a.csv").read_bytes())).shape == (6, 6)


def test_the_candidates_plot_has_its_own_title_and_says_when_there_are_none(tmp_path: Path):
    """Screening draws the candidates it kept: titled as such, and with no candidate the
    PNG says so instead of showing an empty frame."""
    from matplotlib.text import Text

    from rucola.corpus.filters.stage import CANDIDATE_TITLE, NO_CANDIDATES
    from rucola.corpus.plots import histogram_figure

    candidates = pd.DataFrame({"domain": ["out_of_domain"] * 3, "n_tokens": [7, 7, 8]})
    (ax,) = histogram_figure(histogram_table(candidates), CANDIDATE_TITLE, NO_CANDIDATES).axes
    assert ax.get_title() == CANDIDATE_TITLE != "Sentence length per domain"
    assert [line.get_label() for line in ax.get_lines()] == ["out_of_domain (3)"]
    assert NO_CANDIDATES not in [t.get_text() for t in ax.findobj(Text)]

    none = histogram_table(candidates.iloc[:0])
    (ax,) = histogram_figure(none, CANDIDATE_TITLE, NO_CANDIDATES).axes
    assert ax.get_lines() == [] and ax.get_legend() is None
    assert [t.get_text() for t in ax.texts] == [NO_CANDIDATES]
    assert list(ax.get_xticks()) == [] and list(ax.get_yticks()) == []
