"""The card follows the corpus the params describe (issue 45, item 2): a Spanish corpus's
card names it, its folders and its language's tokens, and says nothing of RuCoLA (no
Hallucination column for a category of a domain it has no rows of, no crowd, no CSV export
in RuCoLA's layout); the ItaCoLA preset's votes are described as votes on existing rows,
not crowd rounds; a corpus in RuCoLA's layout keeps its CSV export and what the card says
of it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before datasets is imported (conftest too)
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from release_params import typed  # noqa: E402

from rucola.corpus import schema  # noqa: E402
from rucola.io import file_sha256, write_parquet  # noqa: E402
from rucola.release.build import release  # noqa: E402
from rucola.release.card import tokens_named  # noqa: E402
from rucola.release.plots import token_length_plot  # noqa: E402
from rucola.release.public import public_frame  # noqa: E402
from rucola.release.votes import SHARE  # noqa: E402

ROOT = Path(__file__).parents[2]
GRAMMAR = ["Morfología", "Sintaxis", "Semántica"]
ESCOLA = {
    "name": "escola",
    "pretty_name": "EsCoLA: Corpus de Aceptabilidad Lingüística del Español",
    "language": "es",
    "description": "Oraciones en español de publicaciones lingüísticas, con sus juicios.",
    "domain_descriptions": {
        "in_domain": "sentences come from Spanish grammars, with their authors' judgments.",
        "out_of_domain": None,
        "learner": None,
    },
    "license": "cc-by-4.0",
    "license_note": "Las oraciones siguen siendo de sus editores.",
    "citations": [],
    # an out-of-domain list that names Hallucination, but no out-of-domain row
    "categories": {
        "in_domain": GRAMMAR,
        "out_of_domain": [*GRAMMAR, "Hallucination"],
        "learner": [],
    },
}
# what the card may say of the pipeline that built it: its name, not RuCoLA's
TOOL = ["the `rucola` pipeline", "`rucola release build`", "`rucola evaluate`"]


def spanish_rows(domains: tuple[str, ...] = ("in_domain",)) -> pd.DataFrame:
    """40 rows per domain: train, validation and test; an unacceptable row has a category."""
    rows = []
    for domain in domains:
        for i in range(40):
            label = int(i % 3 != 0)
            if domain == "out_of_domain":
                split = "validation" if i % 2 else "test"
            else:
                split = "train" if i % 10 < 8 else "validation" if i % 10 == 8 else "test"
            rows.append(
                {
                    "sentence": f"El estudiante {i} de {domain} ha leído el libro.",
                    "label": label,
                    "error_type": None if label else GRAMMAR[i // 3 % 3],
                    "domain": domain,
                    "detailed_source": ["bosque99", "rae09"][i % 2],
                    "split": split,
                    "mark": "" if label else "*",
                    "group": f"{domain}{i}",
                    "origin": f"es.tsv:{i + 1}",
                    "n_tokens": 8 + i % 4,
                    "high_freq_share": 1.0,
                }
            )
    frame = pd.DataFrame(rows)
    scope = frame["domain"].where(frame["split"] != "test", "")
    frame["id"] = frame.groupby(["split", scope]).cumcount().astype("int64")
    return frame


def build(
    folder: Path, frame: pd.DataFrame, corpus: dict, name: str, **sections: dict
) -> tuple[Path, Path]:
    """The release of ``frame`` (marked validated) into ``out/NAME`` and its CSV folder
    ``out/NAME_csv``; returns both."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "split.parquet"
    frame.to_parquet(data, index=False)
    body = {"success": True, "data_sha256": file_sha256(data)}
    (folder / "validation.json").write_text(json.dumps(body), encoding="utf-8")
    ratios = {"in_domain": [0.8, 0.1, 0.1], "out_of_domain": [0.0, 0.5, 0.5]}
    params = typed({"corpus": corpus, "split": {"ratios": ratios}, **sections}, folder)
    public, csv = folder / f"out/{name}", folder / f"out/{name}_csv"
    release(
        data, folder / "validation.json", params, public, folder / "out/private", compat_dir=csv
    )
    return public, csv


def files_in(folder: Path) -> list[str]:
    """The files a folder holds for its readers (not the build's own bookkeeping)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def card_of(public: Path) -> str:
    return (public / "README.md").read_text(encoding="utf-8")


def without_tool(card: str) -> str:
    for words in TOOL:
        card = card.replace(words, "")
    return card


def test_a_spanish_card_names_its_corpus_and_nothing_of_rucola(tmp_path):
    """Issue 45: the Spanish card kept RuCoLA's folder names, a Hallucination column, the
    razdel axis and a `rucola_csv` export with an empty out-of-domain file."""
    frame = spanish_rows()
    public, csv = build(tmp_path, frame, ESCOLA, "escola")
    card = card_of(public)
    header = yaml.safe_load(card.split("\n---\n", 1)[0].removeprefix("---\n"))
    assert header["language"] == ["es"] and header["pretty_name"] == ESCOLA["pretty_name"]
    assert f"\n# {ESCOLA['pretty_name']}\n" in card
    assert 'ds = load_dataset("escola")' in card
    assert 'ds = load_dataset("path/to/escola", "in_domain")' in card
    assert 'load_dataset("<namespace>/escola", "in_domain", revision="vX.Y.Z")' in card
    rest = without_tool(card)
    for word in ["rucola", "RuCoLA", "razdel", "Hallucination", "crowd", "generator"]:
        assert word.lower() not in rest.lower(), word
    # the categories of the domain it has rows of: the columns of its sources table
    assert "| acceptable | Morfología | Sintaxis | Semántica |\n" in card
    # no CSV layout: its folder is there, empty, and the card points to no file in it
    assert csv.is_dir() and not files_in(csv)
    assert "sample_submission.csv" not in card and "_csv" not in card
    assert "as a CSV of `id,acceptable` with the ids of\n`default`'s test split." in card
    manifest = json.loads((public / "release_manifest.json").read_text("utf-8"))
    assert all("csv" not in json.dumps(entry) for entry in manifest["files"])


def test_a_pipe_in_a_source_s_name_stays_in_its_cell(tmp_path):
    """A file name is a `detailed_source`; its `|` would split the card's table row."""
    frame = spanish_rows()
    frame["detailed_source"] = frame["detailed_source"].replace("rae09", "rae|09.tsv")
    public, _ = build(tmp_path, frame, ESCOLA, "escola")
    assert "| rae\\|09.tsv | in_domain | 16 |" in card_of(public)


def test_the_length_plot_counts_the_language_s_tokens(tmp_path):
    """The x axis is the profile's name for its tokens: `tokens` for Spanish, not RuCoLA's
    `razdel tokens` (the picture is the one drawn with that name, byte for byte)."""
    frame = spanish_rows()
    public, _ = build(tmp_path, frame, ESCOLA, "escola")
    params = typed({"corpus": ESCOLA}, tmp_path)
    assert tokens_named(params) == "tokens"
    assert tokens_named(typed({"corpus": {"language": "ru"}}, tmp_path)) == "razdel tokens"
    rows = public_frame(frame.assign(**{SHARE: None}))
    for named in ("tokens", "razdel tokens"):
        token_length_plot(rows, tmp_path / f"{named}.png", named)
    built = (public / "token_lengths.png").read_bytes()
    assert built == (tmp_path / "tokens.png").read_bytes()
    assert built != (tmp_path / "razdel tokens.png").read_bytes()


def itacola_identity() -> dict:
    overlay = yaml.safe_load((ROOT / "rucola/presets/itacola.yaml").read_text("utf-8"))
    return overlay["corpus"]


def test_the_itacola_votes_are_votes_on_existing_rows(tmp_path):
    """Issue 45: the ItaCoLA card said its out-of-domain sentences were labelled by crowd
    workers in two stages. Its per-player votes judge rows that have their label."""
    frame = spanish_rows()
    frame["sentence"] = frame["sentence"].str.replace("El estudiante", "Lo studente")
    frame["error_type"] = None
    chosen = frame[frame["split"] != "train"].head(6)
    votes = pd.DataFrame(
        [
            {
                "task": schema.row_task(row.split, row.domain, int(row.id)),
                "stage": 1,
                "worker": f"player{w}",
                "answer": "acceptable" if (row.label == 1) != (w == 2) else "unacceptable",
            }
            for row in chosen.itertuples()
            for w in range(3)
        ]
    )
    write_parquet(votes, tmp_path / "human_votes.parquet", schema.VOTES_SCHEMA)
    section = {"human_eval": {"votes_out": str(tmp_path / "human_votes.parquet")}}
    public, csv = build(
        tmp_path,
        frame,
        itacola_identity(),
        "itacola",
        annotate=section,
        release={"annotator_key": "sample"},
    )
    card = card_of(public)
    votes_section = card.split("## Annotator votes", 1)[1].split("\n## ", 1)[0]
    public_votes = 3 * int((chosen["split"] != "test").sum())
    assert f"has one row per vote: {public_votes} votes by 3 annotators" in votes_section
    assert "votes on existing sentences, which already have their label" in votes_section
    assert "| `stage` | int64 | 1 (acceptable?) in every row |" in votes_section
    for words in ["crowd", "two stages", "out-of-domain", "stage 2", "hallucination"]:
        assert words not in votes_section.lower(), words
    assert "Hallucination" not in card and "razdel" not in card
    assert csv.is_dir() and not files_in(csv) and "itacola_csv" not in card


def test_a_corpus_in_rucola_s_layout_keeps_its_csv_export(tmp_path):
    """Rows of both of RuCoLA's domains, each with categories: the published layout is
    written, under the folder's own name, and the card says where it is on the Hub and
    beside the folder."""
    frame = spanish_rows(("in_domain", "out_of_domain"))
    public, csv = build(tmp_path, frame, ESCOLA, "escola")
    names = files_in(csv)
    assert names == [
        "in_domain_dev.csv",
        "in_domain_train.csv",
        "out_of_domain_dev.csv",
        "sample_submission.csv",
        "test.csv",
    ]
    card = card_of(public)
    assert "| acceptable | Morfología | Sintaxis | Semántica | Hallucination |\n" in card
    assert (
        "like the published\n`sample_submission.csv` (in `rucola_csv/` of the published "
        "repository, in\n`escola_csv/` beside this folder, with the ids of `default`'s test "
        "split)." in card
    )


def test_rucola_keeps_its_csv_export_and_its_words(tmp_path):
    """RuCoLA's own card (folders `rucola` and `rucola_csv`, as the sample's are) says what
    it said: the published RuCoLA `sample_submission.csv` in `rucola_csv/`."""
    rucola = {"name": "rucola", "language": "ru"}
    public, csv = build(tmp_path, spanish_rows(), rucola, "rucola")
    assert (csv / "sample_submission.csv").is_file() and (csv / "in_domain_train.csv").is_file()
    card = card_of(public)
    assert (
        "like the published RuCoLA\n`sample_submission.csv` (in `rucola_csv/`, with the ids "
        "of `default`'s test split)." in card
    )
    assert "the publication or generator the sentence comes from" in card


def test_the_command_says_the_csv_folder_is_left_empty(run_cli, tmp_path):
    """`rucola release build` said `RuCoLA CSV layout in ... None` of a corpus without it."""
    from release_params import RELEASE_PARAMS
    from test_build import write_input

    write_input(tmp_path / "data", spanish_rows())
    corpus = yaml.safe_dump({"corpus": ESCOLA}, allow_unicode=True, sort_keys=False)
    (tmp_path / "params.yaml").write_text(RELEASE_PARAMS + corpus, encoding="utf-8")
    code, stdout, stderr = run_cli("release", "build", cwd=tmp_path)
    assert code == 0, stderr
    line = " ".join(stdout.split())
    assert "no RuCoLA CSV layout (out/rucola_csv left empty: not RuCoLA's layout)" in line
    assert "None" not in line


def test_the_card_says_which_rucola_built_it(tmp_path, monkeypatch):
    """Issue 46: the card records the version of the tool that built the release (the
    release stage depends on it: reports/code/version.json)."""
    import rucola.release.card

    monkeypatch.setattr(rucola.release.card, "version", lambda: "9.8.7")
    public, _ = build(tmp_path, spanish_rows(), ESCOLA, "escola")
    card = " ".join(card_of(public).split())
    assert "built by the `rucola` pipeline, version 9.8.7 (`rucola release build`" in card
