"""The agreement plot of ``annotate merge`` (``annotation.report``): worker counts are whole
numbers, so the workers axis has integer ticks only."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from rucola.annotation.report import (  # noqa: E402
    _draw_agreement,
    agreement_rows,
    write_agreement_plot,
)


def report(accuracies: list[float]) -> dict:
    return {
        "has_answers": True,
        "control_accuracies": accuracies,
        "params": {"min_control_accuracy": 0.5},
        "agreement": {"stage1": {"wawa": {"overall": {"wawa": 0.8}}}},
    }


def test_the_workers_axis_counts_whole_workers():
    """Three workers drew ticks at 0.0, 0.5, 1.0, 1.5, ...: half a worker."""
    data = report([0.9, 0.95, 0.6])
    fig = _draw_agreement(plt, data, agreement_rows(data))
    try:
        _, right = fig.axes
        assert right.get_ylabel() == "workers"
        assert isinstance(right.yaxis.get_major_locator(), MaxNLocator)
        fig.canvas.draw()
        ticks = [t for t in right.get_yticks() if right.get_ylim()[0] <= t <= right.get_ylim()[1]]
        assert len(ticks) >= 2
        assert all(float(t).is_integer() for t in ticks), ticks
    finally:
        plt.close(fig)


def test_the_plot_is_written(tmp_path: Path):
    write_agreement_plot(report([0.9, 0.95, 0.6]), tmp_path / "a.csv", tmp_path / "a.png")
    assert (tmp_path / "a.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "a.csv").read_text(encoding="utf-8").startswith("category,wawa")
