"""One written split file of the release: what the card's ``configs`` and ``dataset_info``
need. Its own module so that ``build`` (which writes the files) and ``card`` (which
describes them) both import it, and neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SplitFile:
    """One written parquet file of the public folder."""

    config: str
    split: str
    path: str  # relative to out_dir, POSIX
    num_examples: int
    num_bytes: int  # Arrow size, as ``datasets`` records it in its split info
    file_size: int  # bytes on disk (the card's ``download_size``)
