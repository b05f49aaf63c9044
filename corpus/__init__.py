"""Turning inputs into labelled rows: sources, marks, extraction, filters, splits."""
