"""The card's human evaluation section: from the public report, the splits it publishes."""

from __future__ import annotations

import json

from rucola.release.card import _human_eval


def test_the_card_shows_the_published_splits_and_nothing_without_a_round(tmp_path):
    report = tmp_path / "human_evaluation.json"
    assert _human_eval(report) is None  # no report: no section
    report.write_text(json.dumps({"has_round": False}), encoding="utf-8")
    assert _human_eval(report) is None
    scores = {"n": 78, "accuracy": 0.833333, "mcc": 0.664338}
    data = {"has_round": True, "scores": {"by_split": {"validation": {
        **scores, "by_domain": {"in_domain": scores}}}}}  # fmt: skip
    report.write_text(json.dumps(data), encoding="utf-8")
    assert _human_eval(report) == [
        ("validation", "all", 78, 0.833333, 0.664338),
        ("validation", "in_domain", 78, 0.833333, 0.664338),
    ]
