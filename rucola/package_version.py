"""The installed rucola's version: what a release card names, what the release stage
depends on (``reports/code/version.json``) and what ``.rucola/tool.json`` records."""

from __future__ import annotations


def version() -> str:
    """The installed package's version (``0+unknown``: a checkout never installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("rucola")
    except PackageNotFoundError:
        return "0+unknown"
