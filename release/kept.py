"""Where ``rucola release keep`` puts the published versions: ``data/releases/vX.Y.Z``. Its
own module so that ``keep`` (which writes them) and ``votes`` (which reads the annotator
key each was built with) both import it, and neither imports the other."""

from __future__ import annotations

from pathlib import Path

KEPT_ROOT = Path("data/releases")
