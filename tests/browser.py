"""Headless chromium with the network blocked: what a reader offline sees of a page.

Two blocks, so that no request can leave: every connection goes through a proxy that is not
there (``127.0.0.1:9``, discard), and every host name resolves to nothing. The virtual time
budget lets the page's scripts run (and fonts load) before the DOM is dumped or the
screenshot taken. Tests that need it skip, with the reason, only when no chromium is found
(`.ci/run` installs Debian's).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NAMES = ("chromium", "chromium-browser", "google-chrome")
OFFLINE = ("--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND")
FLAGS = ("--headless", "--disable-gpu", "--no-sandbox", "--virtual-time-budget=8000")


def chromium() -> str:
    """The browser's path, or skip the test."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"no headless browser: none of {', '.join(NAMES)} is on PATH")


def _run(page: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [chromium(), *FLAGS, *OFFLINE, *extra, page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def dom(page: Path) -> str:
    """The page's DOM after its scripts ran, offline."""
    return _run(page, "--dump-dom").stdout


def screenshot(page: Path, out: Path, size: str = "1400,900") -> Path:
    """A PNG of the page as rendered offline."""
    _run(page, f"--screenshot={out.resolve()}", f"--window-size={size}")
    assert out.is_file(), f"chromium wrote no screenshot of {page}"
    return out


def pixels_near(png: Path, colour: tuple[int, int, int], within: int = 30) -> int:
    """How many pixels of ``png`` are within ``within`` of ``colour`` on every channel."""
    import numpy as np
    from PIL import Image

    image = np.asarray(Image.open(png).convert("RGB"), dtype=np.int16)
    near = np.abs(image - np.array(colour, dtype=np.int16)) <= within
    return int(near.all(axis=-1).sum())
