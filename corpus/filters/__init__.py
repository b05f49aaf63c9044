"""Filter rules: each a small class that keeps a row or names the reason it is set aside.

``base`` holds the contract and :func:`~rucola.rules.apply_rules`; ``length``
and ``frequency`` judge each row on its own values; ``duplicates`` judges a row against the
whole stream; ``stage`` runs them as the ``filter`` and ``screen`` stages.
"""
