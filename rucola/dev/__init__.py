"""Developer tools, the top layer (above the command line): what writes the files derived
from the code and the schema, so that nothing derived is kept by hand.

``python -m rucola.dev generate`` rewrites ``dvc.yaml`` (:mod:`rucola.dev.pipeline`, code
deps from the import graph in :mod:`rucola.dev.imports`), ``params.yaml``, the presets
under ``configs/`` and the params table in ``docs/params.md`` (:mod:`rucola.dev.params`);
``python -m rucola.dev check`` exits 1 naming each stale file (``make lint`` runs it).
"""
