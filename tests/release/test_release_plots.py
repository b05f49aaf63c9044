"""The card's token-length picture (``release.plots``): every series is drawn so that none
hides another, and the test split is one series whatever its domains."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.patches import Polygon

from rucola.release.plots import token_length_figure, token_length_plot


def frame() -> pd.DataFrame:
    """Out-of-domain validation and the test split with the same lengths: the case where
    translucent bars of the larger test series covered out-of-domain's."""
    rows = [("in_domain", "train", n) for n in (4, 5, 5, 6)]
    rows += [("out_of_domain", "validation", n) for n in (7, 8, 8)]
    rows += [("out_of_domain", "test", n) for n in (7, 8, 8, 8)]
    rows += [("in_domain", "test", 5)]
    return pd.DataFrame(rows, columns=["domain", "split", "n_tokens"])


def test_every_series_is_an_unfilled_outline_with_its_count():
    (ax,) = token_length_figure(frame(), "razdel tokens").axes
    outlines = [p for p in ax.patches if isinstance(p, Polygon)]
    labels = [p.get_label() for p in outlines]
    assert labels == ["in_domain (4)", "out_of_domain (3)", "test, domain hidden (5)"]
    for patch in outlines:
        assert not patch.get_fill(), patch.get_label()  # nothing covers what is behind
        assert patch.get_alpha() in (None, 1.0)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == labels
    assert ax.get_title() == "Sentence length: train and validation per domain, test as one"


def test_the_outlines_count_each_series_apart():
    (ax,) = token_length_figure(frame(), "razdel tokens").axes
    outlines = {p.get_label(): p for p in ax.patches if isinstance(p, Polygon)}
    # the step outline's top edge: its largest y is the series' tallest bin
    assert outlines["out_of_domain (3)"].get_xy()[:, 1].max() == 2
    assert outlines["test, domain hidden (5)"].get_xy()[:, 1].max() == 3


def test_same_rows_same_bytes(tmp_path: Path):
    for name in ("a", "b"):
        token_length_plot(frame(), tmp_path / f"{name}.png", "razdel tokens")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
