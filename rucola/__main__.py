"""The ``rucola`` program (``[project.scripts]``) and ``python -m rucola``.

The command line of ``rucola.cli``, but for ``rucola track``, the command DVC runs once per
input params name (seven times in a cold build of the sample): it starts without the
command line framework (``rucola.track_input.main``: 0.1 s, not 0.4; Typer checks every
argument with pydantic). ``rucola track --help``, or any option before the command
(``--debug``), goes to the command line, whose ``track`` command runs the same function.
Every command starts here, so every command's code fingerprint covers this module
(``rucola.code_fingerprint.ENTRY``).
"""

from __future__ import annotations

import sys


def main() -> None:
    words = sys.argv[1:]
    if words[:1] == ["track"] and "--help" not in words:
        from rucola.track_input import main as track

        track(words[1:])
        return
    from rucola.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
