"""The promise of errata, tried adversarially: a bad erratum is one line naming its file and
line, exit 1, and the previous split outputs stay as they were (nothing partial).

Every attempt runs ``rucola split`` in a project whose split ran before without errata
(``errata_rows``: published rows, one row new in this build, a pin naming a row an earlier
stage set aside); each writes one errata file that breaks one rule of ``corpus.errata``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from errata_rows import HEADER, write_errata, write_project
from guards import one_error_line, snapshot

OLD = f"{HEADER},old"

# (name, header, lines, the line named, words the message holds)
CASES = [
    (
        "stale erratum",
        OLD,
        ["train,in_domain,1,label,1,user report,1"],
        2,
        "stale erratum",
    ),
    (
        "stale sentence",
        OLD,
        ["validation,in_domain,0,remove,,gone,Папа мыл раму."],
        2,
        "stale erratum",
    ),
    (
        "unknown id",
        HEADER,
        ["train,in_domain,1,label,1,ok", "train,in_domain,42,label,1,x"],
        3,
        "unknown id",
    ),
    (
        "unknown id in another domain",
        HEADER,
        ["validation,out_of_domain,1,label,1,x"],
        2,
        "unknown id",
    ),
    ("never published", HEADER, ["train,in_domain,10,label,0,x"], 2, "never published"),
    (
        "set aside before the split",
        HEADER,
        ["train,in_domain,9,sentence,Новый текст здесь.,x"],
        2,
        "set aside by an earlier stage",
    ),
    (
        "row and field named twice",
        HEADER,
        ["train,in_domain,3,error_type,Morphology,a", "train,in_domain,3,error_type,Semantics,b"],
        3,
        "already named at errata.csv:2",
    ),
    (
        "test row named twice, once with a domain",
        HEADER,
        ["test,,1,sentence,Дети играли в саду.,a", "test,in_domain,1,sentence,Дети в саду.,b"],
        3,
        "already named at errata.csv:2",
    ),
    (
        "remove and another field",
        HEADER,
        ["train,in_domain,2,sentence,Собака лает.,a", "train,in_domain,2,remove,,b"],
        3,
        "errata.csv:2",
    ),
    (
        "label to 0 without a category",
        HEADER,
        ["train,in_domain,0,label,0,a typo"],
        2,
        "without a category",
    ),
    (
        "a category on an acceptable row",
        HEADER,
        ["train,in_domain,0,error_type,Syntax,wrong"],
        2,
        "whose label is 1",
    ),
    (
        "a category on a row that becomes acceptable",
        HEADER,
        ["train,in_domain,1,label,1,ok", "train,in_domain,1,error_type,Syntax,x"],
        3,
        "becomes 1 (errata.csv:2)",
    ),
    (
        "no category for an unacceptable row",
        HEADER,
        ["train,in_domain,3,error_type,,none"],
        2,
        "needs a category",
    ),
    ("a label on a test row without gold", HEADER, ["test,,0,label,1,expert"], 2, "no gold"),
    ("wrong domain of a test row", HEADER, ["test,out_of_domain,1,remove,,x"], 2, "in_domain"),
    ("unknown column", HEADER + ",comment", ["train,in_domain,1,label,1,ok,hm"], 1, "comment"),
    ("missing column", "split,domain,id,field,new", ["train,in_domain,1,label,1"], 1, "reason"),
    ("repeated column", HEADER + ",Reason", ["train,in_domain,1,label,1,a,b"], 1, "duplicated"),
    ("empty reason", HEADER, ["train,in_domain,1,label,1,  "], 2, "needs a reason"),
    ("bad label", HEADER, ["train,in_domain,1,label,2,x"], 2, "0 or 1"),
    ("unknown category", HEADER, ["train,in_domain,3,error_type,Spelling,x"], 2, "Spelling"),
    (
        "a category outside the row's domain (corpus.categories)",
        HEADER,
        ["train,in_domain,3,error_type,Hallucination,x"],
        2,
        "Hallucination is no category of in_domain rows",
    ),
    (
        "a test row's category outside its hidden domain",
        HEADER,
        ["test,,1,error_type,Hallucination,x"],
        2,
        "no category of in_domain rows",
    ),
    ("bad split", HEADER, ["dev,in_domain,1,label,1,x"], 2, "unknown split"),
    ("bad field", HEADER, ["train,in_domain,1,acceptable,1,x"], 2, "unknown field"),
    ("no domain in train", HEADER, ["train,,1,label,1,x"], 2, "needs its domain"),
    ("bad id", HEADER, ["train,in_domain,-1,label,1,x"], 2, "id must be"),
    ("remove with a value", HEADER, ["train,in_domain,1,remove,yes,x"], 2, "empty 'new'"),
    ("empty text", HEADER, ['train,in_domain,1,sentence," ",x'], 2, "corrected text"),
    ("a control character", HEADER, ["train,in_domain,1,sentence,Кот\x07 спит.,x"], 2, "BEL"),
    ("changes nothing", HEADER, ["train,in_domain,3,error_type,Syntax,x"], 2, "changes nothing"),
    ("more cells", HEADER, ["train,in_domain,1,label,1,x,y"], 2, "more cells"),
    ("fewer cells", HEADER, ["train,in_domain,1,label"], 2, "fewer cells"),
    # an unterminated quote took the errata after it into a reason (exit 0), and the reason
    # into the public changelog: the CSV is read strictly, and a cell is one line
    (
        "a quote never closed",
        HEADER,
        [
            'train,in_domain,1,label,1,"user report',
            "train,in_domain,0,label,0,typo",
            "train,in_domain,0,error_type,Syntax,typo",
        ],
        2,
        "never closed",
    ),
    (
        "a quote closed lines later by a stray quote",
        HEADER,
        [
            'train,in_domain,1,label,1,"user report',
            "train,in_domain,0,label,0,typo",
            'train,in_domain,0,error_type,Syntax,a typo"',
        ],
        2,
        "runs from line 2 to line 4",
    ),
    ("text after a closing quote", HEADER, ['train,in_domain,1,label,1,"user" report'], 2, "quot"),
    # one cell beyond the csv module's field size limit was a _csv.Error traceback
    (
        "a cell beyond the field limit",
        HEADER,
        ["train,in_domain,1,label,1," + "x" * 131073],
        2,
        "longer than 131072",
    ),
]


@pytest.fixture
def project(tmp_path, run_cli) -> Path:
    """A project whose split ran without errata: the outputs a bad erratum must leave."""
    write_project(tmp_path)
    code, _, stderr = run_cli("split", cwd=tmp_path)
    assert code == 0, stderr
    assert (tmp_path / "out/rejected.parquet").is_file()
    return tmp_path


def refused(run_cli, project: Path, *needles: str) -> str:
    """``rucola split`` with the errata file: one error line naming ``needles``, and no
    output changed."""
    write_project(project, ["errata.csv"])
    before = snapshot(project)
    code, stdout, stderr = run_cli("split", cwd=project)
    assert code == 1, stdout
    assert stdout == ""  # no partial report either
    assert snapshot(project) == before
    return one_error_line(stderr, *needles)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("header", "lines", "line", "words"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_bad_erratum_is_one_line_naming_its_file_and_line(
    run_cli, project, header, lines, line, words
):
    write_errata(project / "errata.csv", *lines, header=header)
    refused(run_cli, project, f"errata.csv:{line}:", words)


def test_an_errata_file_tracked_by_git_is_refused(run_cli, project):
    """It may name hidden test rows: git would publish them with the repository."""
    write_errata(project / "errata.csv", "train,in_domain,1,label,1,user report")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "errata.csv"], cwd=project, check=True)
    line = refused(run_cli, project, "errata.csv", "committed to git", "dvc add")
    assert "git rm --cached" in line
    subprocess.run(["git", "rm", "-q", "--cached", "errata.csv"], cwd=project, check=True)
    assert run_cli("split", cwd=project)[0] == 0  # untracked, the same file applies


def test_a_missing_errata_file_is_named(run_cli, project):
    refused(run_cli, project, "errata.csv", "not found", "extract.errata")


def test_the_same_errata_in_two_files_name_both(run_cli, project):
    write_errata(project / "a.csv", "train,in_domain,1,label,1,first")
    write_errata(project / "errata.csv", "train,in_domain,1,label,1,second")
    write_project(project, ["a.csv", "errata.csv"])
    before = snapshot(project)
    code, _, stderr = run_cli("split", cwd=project)
    assert code == 1 and snapshot(project) == before
    one_error_line(stderr, "errata.csv:2:", "already named at a.csv:2")


def test_the_good_errata_apply_after_every_refusal(run_cli, project):
    """What a refusal leaves is a project the fixed file builds in."""
    write_errata(project / "errata.csv", "train,in_domain,0,label,0,typo")
    refused(run_cli, project, "errata.csv:2:")
    write_errata(
        project / "errata.csv",
        "train,in_domain,0,label,0,typo",
        "train,in_domain,0,error_type,Syntax,typo",
    )
    code, stdout, stderr = run_cli("split", cwd=project)
    assert code == 0, stderr
    assert "split: errata: 2 applied from 1 file (train: label 1, error_type 1" in stdout


# Each reached the diff and the public changelog raw from a reason: ESC and the C1 CSI start
# terminal escapes, the bidi controls reorder what a reader sees.
REFUSED_CHARACTERS = {
    "ESC": "\x1b[31mred\x1b[0m",
    "C1 control": "\x9b31m",
    "DEL": "del\x7f",
    "HT": "a\tb",
    "RIGHT-TO-LEFT OVERRIDE": "\u202eodaraP",
    "LEFT-TO-RIGHT EMBEDDING": "\u202aembedded\u202c",
    "RIGHT-TO-LEFT ISOLATE": "\u2067isolated\u2069",
    "RIGHT-TO-LEFT MARK": "mark\u200f",
    "ARABIC LETTER MARK": "mark\u061c",
    "LINE SEPARATOR": "one\u2028two",
}


@pytest.mark.parametrize("name", list(REFUSED_CHARACTERS))
def test_a_control_or_bidi_character_in_a_reason_is_refused(run_cli, project, name):
    write_errata(project / "errata.csv", f"train,in_domain,1,label,1,{REFUSED_CHARACTERS[name]}")
    line = refused(run_cli, project, "errata.csv:2:", "'reason' cell", name)
    assert line.isprintable() and line.isascii()  # the message names it, never prints it


@pytest.mark.parametrize(
    ("header", "cells", "named"),
    [
        (OLD, "train,in_domain,1,label,1,user report,0\x1b[2J", "'old' cell"),
        (HEADER, "train,in_domain,3,error_type,Syntax\u202e,x", "'new' cell"),
        (HEADER + ",old\x1b", "train,in_domain,1,label,1,x,0", "header cell 7"),
    ],
)
def test_a_control_character_in_any_cell_is_refused(run_cli, project, header, cells, named):
    write_errata(project / "errata.csv", cells, header=header)
    line_number = 1 if named.startswith("header") else 2
    line = refused(run_cli, project, f"errata.csv:{line_number}:", named)
    assert line.isprintable() and line.isascii()


def test_an_untracked_link_to_a_tracked_errata_file_is_refused(run_cli, project):
    """A symbolic link git does not track, pointing at a file git does, was read without a
    word: the file read is the one refused."""
    write_errata(project / "private/tracked.csv", "train,in_domain,1,label,1,user report")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "private/tracked.csv"], cwd=project, check=True)
    (project / "errata.csv").symlink_to("private/tracked.csv")
    line = refused(run_cli, project, "errata.csv", "committed to git", "tracked.csv")
    assert "git rm --cached" in line
    subprocess.run(["git", "rm", "-q", "--cached", "private/tracked.csv"], cwd=project, check=True)
    assert run_cli("split", cwd=project)[0] == 0  # untracked, the link's file applies


def test_a_hard_link_to_a_tracked_errata_file_is_refused(run_cli, project):
    """A second name for a tracked file passed the git check (the symbolic link was
    refused): the same ``(st_dev, st_ino)`` as a path git lists is the same file."""
    write_errata(project / "private/tracked.csv", "train,in_domain,1,label,1,user report")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "private/tracked.csv"], cwd=project, check=True)
    os.link(project / "private/tracked.csv", project / "errata.csv")
    line = refused(run_cli, project, "errata.csv", "committed to git", "hard link", "tracked.csv")
    assert "git rm --cached" in line
    subprocess.run(["git", "rm", "-q", "--cached", "private/tracked.csv"], cwd=project, check=True)
    assert run_cli("split", cwd=project)[0] == 0  # untracked, the linked file applies


def test_a_hard_link_git_does_not_track_is_no_reason_to_refuse(run_cli, project):
    """DVC's cache links the files it tracks: two names for one untracked file are fine."""
    write_errata(project / "errata.csv", "train,in_domain,1,label,1,user report")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / ".dvc/cache").mkdir(parents=True)
    os.link(project / "errata.csv", project / ".dvc/cache/0a1b")
    assert os.stat(project / "errata.csv").st_nlink == 2
    write_project(project, ["errata.csv"])
    code, _, stderr = run_cli("split", cwd=project)
    assert code == 0, stderr
