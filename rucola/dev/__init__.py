"""Developer tools, the top layer (above the command line): what writes the files derived
from the code and the schema, so that nothing derived is kept by hand.

``python -m rucola.dev generate`` rewrites the code fingerprints under ``reports/code/``
(:mod:`rucola.code_fingerprint`, as the ``fingerprint_code`` stage does), ``params.yaml``,
the presets under ``configs/`` and the params table in ``docs/params.md``
(:mod:`rucola.dev.params`); ``python -m rucola.dev check`` exits 1 naming each stale file
(``make lint`` runs it). ``dvc.yaml`` is written by hand.
"""
