"""The ordered threshold rules of the filter and screen stages.

Each rule class registers itself here where it is defined (``@THRESHOLDS.register(order=N)``)
and builds itself from the stage's settings section (``from_settings``: ``Filter`` for
``filter``, ``Screen`` for ``screen``; None when the section turns it off or lacks its
key). The stages import every module of ``corpus.filters`` and of ``corpus.attributes``,
so a rule is found without naming it anywhere else, whether it has a module of its own
among the filters or sits beside the attribute it reads; the duplicate rule runs after
all of them.

A module of its own, outside both packages: a rule beside its attribute imports this
registry, and importing it must not import every filter (``measure``'s fingerprint would
then cover every rule, and a rule's edit would measure again).
"""

from __future__ import annotations

from rucola.rules import RuleRegistry

THRESHOLDS = RuleRegistry("filter")
