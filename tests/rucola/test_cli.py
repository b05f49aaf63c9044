"""The command line: help everywhere, exit codes, one-line errors and --debug."""

from __future__ import annotations

import pytest
from identity import write_identity

from rucola.errors import RucolaError


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["extract"],
        ["measure"],
        ["screen"],
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
    write_identity(tmp_path)
    code, stdout, stderr = run_cli("filter", cwd=tmp_path)
    assert code == 1
    assert stderr.strip().startswith("error: data/interim/measured.parquet")
    assert len(stderr.strip().splitlines()) <= 2 and "Traceback" not in stderr
    with pytest.raises(RucolaError):
        run_cli("--debug", "filter", cwd=tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        ["measure"],
        ["filter"],
        ["split"],
        ["validate"],
        ["baseline"],
        ["annotate", "corpus"],
        ["release", "build"],
    ],
)
def test_stage_commands_take_their_input_as_an_option(run_cli, tmp_path, command):
    """The options pattern: --input replaces the params key for this run (the error names
    the file given, not the params default)."""
    write_identity(tmp_path)
    code, _, stderr = run_cli(*command, "--input", "other.parquet", cwd=tmp_path)
    assert code == 1 and stderr.startswith("error: other.parquet"), stderr


def test_filter_and_screen_take_every_path_as_an_option(run_cli):
    for command in ("filter", "screen"):
        _, stdout, _ = run_cli(command, "--help")
        for option in ("--input", "--out", "--rejected", "--report", "--params"):
            assert option in stdout, (command, option)


@pytest.mark.parametrize(
    ("command", "options", "reads"),
    [
        ("extract", ["--sources", "--out", "--rejected", "--report"], None),
        ("measure", ["--input", "--out", "--report", "--workers"], "annotate.corpus.out"),
        ("filter", ["--input", "--out", "--rejected", "--report"], "measure.out"),
        ("screen", ["--input", "--out", "--rejected", "--report"], "screen.input"),
        ("split", ["--input", "--out", "--report"], "filter.out"),
    ],
)
def test_corpus_stage_commands_share_the_factorys_options(run_cli, command, options, reads):
    """Every corpus stage command is made by ``stage_command``: ``--params``, the paths
    its stage has, and ``--input`` defaulting to the key of the stage that writes it."""
    _, stdout, _ = run_cli(command, "--help")
    text = " ".join(stdout.split())
    for option in [*options, "--params"]:
        assert option in text, (command, option)
    if reads is not None:
        assert f"default: {reads}" in text.replace("│ ", "").replace(" │", ""), text
