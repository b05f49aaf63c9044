"""The ordered threshold rules of the filter and screen stages.

Each rule class registers itself here where it is defined (``@THRESHOLDS.register(order=N)``)
and builds itself from the stage's settings section (``from_settings``: ``Filter`` for
``filter``, ``Screen`` for ``screen``; None when the section turns it off or lacks its
key). ``corpus.filters`` imports every module of the package, so a rule in a new module
is found without naming it anywhere else; the duplicate rule runs after all of them.
"""

from __future__ import annotations

from rucola.rules import RuleRegistry

THRESHOLDS = RuleRegistry("filter")
