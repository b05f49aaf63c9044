"""``rucola.track`` and ``rucola.track_input``: stale foreach instances leave dvc.lock
(issue 32, 2); the trackers, cheap to start and held to the command line's behaviour
(issue 44)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rucola.track import foreach_keys, prune_lock, stale_lock_stages

LOCK = """\
schema: '2.0'
stages:
  track_errata@data/raw/errata:
    cmd: rucola track extract.errata "data/raw/errata"
    deps:
    - path: data/raw/errata
      hash: md5
      md5: b57a69a3ee5079f06e16c48d01378e6a.dir
      size: 687
      nfiles: 2
  track_extract@0:
    cmd: rucola track extract.sources "data/sample/in_domain"
  track_extract@1:
    cmd: rucola track extract.sources "data/sample/learner"
  track_source@SampleWiki:
    cmd: rucola track generate.sources "x" --as SampleWiki
  generate@opus_mt:
    cmd: rucola generate opus_mt
  split:
    cmd: rucola split
"""


def test_dvc_names_foreach_instances_by_item_index_or_key():
    assert foreach_keys(["a", "b"]) == {"a", "b"}
    assert foreach_keys([{"path": "a"}, "b"]) == {"0", "1"}  # any composite item: indices
    assert foreach_keys({"x": {}, "y": {}}) == {"x", "y"}
    assert foreach_keys(None) == set()


def test_instances_params_no_longer_name_leave_dvc_lock(tmp_path: Path):
    lock, params = tmp_path / "dvc.lock", tmp_path / "params.yaml"
    lock.write_text(LOCK, encoding="utf-8")
    params.write_text(
        yaml.safe_dump(
            {
                "extract": {"sources": [{"path": "data/sample/in_domain"}], "errata": []},
                "generate": {"sources": {"SampleWiki": {"path": "x"}}, "generators": {}},
            }
        ),
        encoding="utf-8",
    )
    assert prune_lock(lock, params) == [
        "generate@opus_mt",
        "track_errata@data/raw/errata",
        "track_extract@1",
    ]
    stages = yaml.safe_load(lock.read_text(encoding="utf-8"))["stages"]
    assert sorted(stages) == ["split", "track_extract@0", "track_source@SampleWiki"]
    assert "b57a69a3ee5079f06e16c48d01378e6a" not in lock.read_text(encoding="utf-8")
    assert prune_lock(lock, params) == []  # nothing more: the file stays as it is


def test_the_retired_generator_trackers_leave_dvc_lock():
    """Each generator had a tracker stage (``track_generator@NAME``) before one stage
    tracked them all (issue 44): an upgraded repository's lock drops their entries."""
    raw = {"generate": {"generators": {"opus_mt": {}}}}
    stages = ["track_generator@opus_mt", "track_generators", "generate@opus_mt"]
    assert stale_lock_stages(raw, stages) == ["track_generator@opus_mt"]


def test_a_stage_that_is_no_foreach_is_never_pruned():
    raw = {"extract": {"errata": ["data/raw/errata"]}}
    assert stale_lock_stages(raw, ["split", "track_index", "track_errata@data/raw/errata"]) == []


# The table libraries (and numpy under them): seconds of start-up for a command that reads
# params and writes a few small JSON files, in a DVC stage per params-named input.
TABLE_LIBRARIES = ("pandas", "pyarrow", "numpy", "scipy", "sklearn")


def test_a_tracker_command_loads_no_table_library():
    """``rucola track`` and ``track-index`` (issue 44: the bookkeeping stages were a third
    of a cold build, mostly start-up) read the repository's whole params, every registry
    its schema checks names against included, and write JSON: none of that loads pandas,
    pyarrow or numpy. A module made to import one at its top for a constant would."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from rucola.cli import app\n"
        "from rucola.cli.common import read_settings\n"
        "import rucola.track\n"
        "read_settings(None)\n"
        f"print(' '.join(m for m in {TABLE_LIBRARIES!r} if m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [], done.stdout


def test_one_generator_tracker_changes_only_the_file_of_the_generator_that_changed(
    tmp_path: Path, monkeypatch
):
    """``track_generators`` (issue 44: one stage for every generator, not one each) writes
    a file per generator; ``generate@NAME`` depends on its own (and on its own params), so
    disabling one generator or editing a source only some read must leave every other
    file's bytes as they were, and a generator params drop loses its file."""
    import shutil

    from rucola.params import load_settings
    from rucola.track import ROOT, track_generators, track_index
    from rucola.track_input import track

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "data/sample", tmp_path / "data/sample")
    shutil.copy(root / "params.yaml", tmp_path / "params.yaml")
    monkeypatch.chdir(tmp_path)
    raw = yaml.safe_load(Path("params.yaml").read_text(encoding="utf-8"))

    def run(data: dict) -> dict[str, bytes]:
        Path("params.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
        params = load_settings()
        track_index(params)
        for source_id, source in params.generate.sources.items():
            track("generate.sources", source.path, source_id)
        names = track_generators(params)
        folder = ROOT / "generate.generators"
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            [f"{n}.json" for n in names] + ["_params.json"]
        )
        return {n: (folder / f"{n}.json").read_bytes() for n in names}

    before = run(raw)
    generators = raw["generate"]["generators"]
    assert len(before) == len(generators) > 1
    changed = next(n for n, g in generators.items() if g.get("enabled", True))
    generators[changed]["enabled"] = False
    assert [n for n, b in run(raw).items() if before[n] != b] == [changed]
    generators[changed]["enabled"] = True
    after = run(raw)
    assert after == before

    # a source only some generators read: only theirs change
    wiki = raw["generate"]["sources"]["SampleWiki"]["path"]
    Path(wiki).write_text(Path(wiki).read_text(encoding="utf-8") + "Ещё одна строка.\n")
    readers = sorted(
        n for n, g in generators.items() if g.get("enabled", True) and "SampleWiki" in g["sources"]
    )
    assert readers and len(readers) < len(generators)
    edited = run(raw)
    assert sorted(n for n in after if after[n] != edited[n]) == readers

    del generators[changed]
    assert set(run(raw)) == set(before) - {changed}


def test_a_tracker_loads_no_settings_and_knows_every_family():
    """A tracker runs once per input (issue 44): it finds its input in the index
    ``track_index`` wrote and loads neither pydantic nor the schema (about 0.3 s a run);
    the families it takes are exactly those ``track_index`` reads from the settings."""
    import subprocess
    import sys

    from rucola.track import FAMILIES
    from rucola.track_input import FAMILY_NAMES

    assert tuple(FAMILIES) == FAMILY_NAMES
    code = (
        "import sys\n"
        "from rucola.cli import app\n"
        "import rucola.cli.track, rucola.track_input\n"
        "print(' '.join(m for m in ('pydantic', 'rucola.settings', 'rucola.params', 'yaml')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [], done.stdout


def test_a_tracker_takes_only_what_the_index_names(tmp_path: Path, monkeypatch):
    """The tracker's input must be in its family's index, which it needs: without one it
    says to run ``rucola track-index``; with one, a path the index does not name is refused
    and nothing is written."""
    from rucola.errors import RucolaError
    from rucola.settings import Params
    from rucola.track import track_index
    from rucola.track_input import ROOT, track

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.tsv").write_text("x\n", encoding="utf-8")
    (tmp_path / "b.tsv").write_text("y\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="no index of the inputs annotate.controls") as caught:
        track("annotate.controls", "a.tsv")
    assert "rucola track-index" in str(caught.value.hint)
    track_index(Params.model_validate({"annotate": {"controls": ["a.tsv"]}}))
    with pytest.raises(RucolaError, match="does not name 'b.tsv'"):
        track("annotate.controls", "b.tsv")
    assert not (ROOT / "annotate.controls/b.tsv.json").exists()
    assert track("annotate.controls", "a.tsv") == ROOT / "annotate.controls/a.tsv.json"
    with pytest.raises(RucolaError, match="unknown input family"):
        track("annotate.nothing", "a.tsv")
    # a foreign file where the index goes: one line, whatever it holds
    for foreign in ("[1, 2]", '{"family": "annotate.controls", "inputs": "a.tsv"}', "{"):
        (ROOT / "annotate.controls/_params.json").write_text(foreign, encoding="utf-8")
        with pytest.raises(RucolaError, match="index of annotate.controls"):
            track("annotate.controls", "a.tsv")


def test_a_full_disk_is_one_line_from_the_tracker_too(tmp_path: Path, monkeypatch, capsys):
    """The tracker's own start (``rucola.track_input.main``) prints the command line's
    line for a full disk, exit 1, and leaves no fingerprint behind."""
    import errno

    import rucola.track_input as track_input
    from rucola.settings import Params
    from rucola.track import track_index

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.tsv").write_text("x\n", encoding="utf-8")
    track_index(Params.model_validate({"annotate": {"controls": ["a.tsv"]}}))

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "reports/inputs/x.json")

    monkeypatch.setattr(track_input, "write_json", full)
    with pytest.raises(SystemExit) as stopped:
        track_input.main(["annotate.controls", "a.tsv"])
    assert stopped.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: reports/inputs/x.json: No space left on device (hint: the disk")
    assert len(err.splitlines()) == 1
    assert not (track_input.ROOT / "annotate.controls/a.tsv.json").exists()


def _run(words: list[str], cwd: Path, framework: bool) -> tuple[int, str, str]:
    """``rucola WORDS`` as the script runs it (``rucola.__main__``: ``rucola track`` starts
    without the command line framework), or through the command line (``rucola.cli``, as
    ``rucola track --help`` and ``--debug`` go)."""
    import subprocess
    import sys

    entry = "rucola.cli" if framework else "rucola.__main__"
    command = [sys.executable, "-c", f"from {entry} import main; main()", *words]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def _both_ways(words: list[str], cwd: Path) -> list[tuple[int, str, str]]:
    return [_run(words, cwd, framework) for framework in (False, True)]


@pytest.mark.slow  # about 5 s: sixteen processes
def test_the_tracker_says_what_the_command_line_says(tmp_path: Path):
    """``rucola track`` starts without Typer (``rucola.__main__``, issue 44: 0.1 s, not 0.4, for
    each of the tracker stages); what it writes, prints and refuses is what the command
    line's ``track`` command writes, prints and refuses, every error one line, exit 1."""
    from identity import identity_yaml

    params = identity_yaml(yaml.safe_dump({"annotate": {"controls": ["a.tsv"]}}))
    (tmp_path / "params.yaml").write_text(params, encoding="utf-8")
    (tmp_path / "a.tsv").write_text("ctl-01\t1\n", encoding="utf-8")
    (tmp_path / "b.tsv").write_text("ctl-02\t0\n", encoding="utf-8")
    (index,) = {r[0] for r in _both_ways(["track-index"], tmp_path)}
    assert index == 0
    record = tmp_path / "reports/inputs/annotate.controls/a.tsv.json"
    written = []
    for framework in (False, True):
        code, out, err = _run(["track", "annotate.controls", "a.tsv"], tmp_path, framework)
        assert (code, err) == (0, "") and out.startswith("track: a.tsv -> ")
        written.append((out, record.read_bytes()))
        record.unlink()
    assert written[0] == written[1]
    for words in (
        ["track", "annotate.controls", "b.tsv"],  # params do not name it
        ["track", "annotate.nothing", "a.tsv"],
        ["track", "annotate.controls", "../a.tsv"],
        ["track", "generate.sources", "a.tsv", "--as", "../x"],
    ):
        direct, framework = _both_ways(words, tmp_path)
        assert direct == framework and direct[0] == 1, (words, direct, framework)
        assert direct[2].startswith("error: ") and len(direct[2].splitlines()) == 1
    assert {r[0] for r in _both_ways(["track", "annotate.controls"], tmp_path)} == {2}
    assert not record.exists()

    # a corpus repository set up with other code: both refuse to run
    (tmp_path / ".rucola").mkdir()
    (tmp_path / ".rucola/tool.json").write_text('{"rucola": "0.0.1", "code": "other"}\n')
    direct, framework = _both_ways(["track", "annotate.controls", "a.tsv"], tmp_path)
    assert direct == framework and direct[0] == 1 and "rucola upgrade" in direct[2]
    assert not record.exists()
