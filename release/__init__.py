"""Releasing the corpus: the Hugging Face dataset folder and its card, the private test
gold, the published RuCoLA CSV layout, baselines, scoring, diffs and publishing."""
