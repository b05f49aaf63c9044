"""``python -m rucola``: the same command line as the ``rucola`` script."""

from rucola.cli import main

main()
