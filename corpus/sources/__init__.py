"""Readers for judged sources: one module per format, one record type for all
(``records.RawExample``); ``readers`` chooses the reader of a file.

This ``__init__`` imports nothing: the stages that read published releases (``split``'s
pins, ``release``) import ``rucola_csv`` alone, so a new reader registered in ``readers``
reruns ``extract`` and what follows from its output, never ``split``, ``validate`` or
``release`` by their code deps.
"""
