"""The command line: help everywhere, exit codes, one-line errors and --debug."""

from __future__ import annotations

import pytest

from rucola.errors import RucolaError


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["extract"],
        ["measure"],
        ["filter"],
        ["split"],
        ["validate"],
        ["release", "build"],
        ["release", "publish"],
        ["release", "diff"],
        ["evaluate"],
        ["baseline"],
    ],
)
def test_every_command_has_help(run_cli, command):
    code, stdout, _ = run_cli(*command, "--help")
    assert code == 0 and "Usage" in stdout


def test_wrong_usage_exits_2(run_cli):
    assert run_cli("extract", "--no-such-option")[0] == 2
    assert run_cli("no-such-command")[0] == 2


def test_missing_input_is_one_line_and_debug_shows_the_traceback(run_cli, tmp_path):
    code, stdout, stderr = run_cli("filter", cwd=tmp_path)
    assert code == 1
    assert stderr.strip().startswith("error: data/interim/measured.parquet")
    assert len(stderr.strip().splitlines()) <= 2 and "Traceback" not in stderr
    with pytest.raises(RucolaError):
        run_cli("--debug", "filter", cwd=tmp_path)
