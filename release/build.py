"""The release build: a Hugging Face dataset folder with its card, and the private gold.

Only data that passed validation is released: the validation report must be a success and
must carry the SHA-256 of exactly the file being released.

Layout of ``out_dir`` (every file written the same way each time, so two builds from the
same input are byte-identical)::

    README.md                      the dataset card (YAML configs and dataset_info)
    token_lengths.png              n_tokens by domain
    error_types.png                violation categories by domain (train and validation);
                                   absent when the corpus declares no categories
    default/{split}.parquet        RuCoLA's two domains, with the hidden test split (absent,
                                   like every test file, for a corpus without test rows)
    in_domain/{split}.parquet      train and validation
    out_of_domain/{split}.parquet  validation (train ratio 0); absent with no
                                   out-of-domain rows
    learner/{split}.parquet        the learner-corpus pairs, with their own hidden test
                                   split; absent with no learner rows
    votes/{split}.parquet          per-annotator votes of train and validation rows
                                   (``release.votes``); absent without votes

The CSV folder (``release.compat``) holds the published RuCoLA layout only for a corpus in
that layout (``card.has_csv_layout``: RuCoLA, or rows of both its domains with categories);
another corpus's is written empty, so that its files never claim RuCoLA's layout.
    release_manifest.json          every public file (this folder's and the CSV
                                   layout's): path, size, SHA-256, rows, columns

Every public file is built from the rows' public form (``release.public``), never from the
split rows: test rows there are ``id``, ``sentence``, ``label = -1`` and nulls. The CSV
layout holds exactly the ``default`` config's rows, so the ids of its ``test.csv`` are those
of ``default/test.parquet``.

Every row carries ``share_acceptable``, the soft label of a crowd-labelled row (null for
others). The public ``test`` files have ``label = -1`` and null ``error_type``, ``domain``,
``detailed_source`` and ``share_acceptable``; the gold goes to
``private_dir/test_gold.parquet`` (``default``) and ``learner_test_gold.parquet`` only, and
so do the votes on test rows (``private_dir/votes_test.parquet``): they would tell the
hidden labels. Annotator ids are keyed hashes of the worker ids (``release.votes``); no raw
worker id is written anywhere.

The public folder, the private folder and (from ``rucola release build``) the folder in the
published CSV layout are staged and replace the previous ones together, once all are
written (``rucola.stage``): a build that fails anywhere leaves the previous release as it
was. Accounting: ``read`` is the split rows, ``kept`` the rows released (every row, in the
``default`` or the ``learner`` config; a test row with its label hidden), ``set_aside`` is
empty: a row the release could not take is an error naming the split file, never a silent
loss.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rucola.corpus import schema
from rucola.corpus.pin import id_scopes
from rucola.errors import RucolaError
from rucola.io import file_sha256, write_json
from rucola.release.card import (
    card_categories,
    domains_of,
    has_csv_layout,
    render_card,
    tokens_named,
)
from rucola.release.compat import write_rucola_csv
from rucola.release.layout import SplitFile
from rucola.release.ledger import LEDGER_FILE, corrections_ledger
from rucola.release.manifest import write_manifest
from rucola.release.plots import category_plot, token_length_plot
from rucola.release.public import (
    DEFAULT,
    GOLD_FILES,
    SOURCE_FILE,
    TEST_CONFIGS,
    public_configs,
    public_frame,
    test_config,
)
from rucola.release.votes import PRIVATE_FILE as VOTES_FILE
from rucola.release.votes import (
    SHARE,
    VOTES_CONFIG,
    ReleasedVotes,
    read_votes,
    release_votes,
    soft_labels,
    task_ids,
    vote_features,
    with_votes_on_rows,
    write_votes,
)
from rucola.stage import StageRun, read_frame

if TYPE_CHECKING:
    from rucola.settings import Params

STAGE = "release"
__all__ = ["SplitFile", "build_release", "run_release"]

RELEASE_COLUMNS = schema.RELEASE_SCHEMA.names
HIDDEN = schema.HIDDEN_COLUMNS  # with the label, null in public test
# ``share_acceptable`` is derived here, from the provenance of a crowd-labelled row
REQUIRED_COLUMNS = [*(c for c in RELEASE_COLUMNS if c != SHARE), "split", "n_tokens"]
GOLD_FILE = GOLD_FILES[DEFAULT]
PLOTS = {"token_lengths": "token_lengths.png", "error_types": "error_types.png"}
COMPRESSION = "zstd"

_STRING_COLUMNS = schema.columns_of_type(schema.RELEASE_SCHEMA, pa.types.is_string)
# the gold: the release row with what the public test hides first (its order is the files')
GOLD_SCHEMA = pa.schema(
    [schema.RELEASE_SCHEMA.field(name) for name in ["id", "label", *HIDDEN, "sentence"]]
)


def features():  # noqa: ANN201 - datasets.Features (imported lazily: datasets is slow)
    from datasets import ClassLabel, Features, Value

    return Features(
        {
            "id": Value("int64"),
            "sentence": Value("string"),
            "label": ClassLabel(names=schema.LABEL_NAMES),
            "error_type": Value("string"),
            "domain": Value("string"),
            "detailed_source": Value("string"),
            "share_acceptable": Value("float64"),
        }
    )


def arrow_schema() -> pa.Schema:
    """The released files' schema, with the features ``datasets`` reads back from it."""
    fields = pa.schema(
        [
            ("id", pa.int64()),
            ("sentence", pa.string()),
            ("label", pa.int64()),  # ClassLabel storage
            ("error_type", pa.string()),
            ("domain", pa.string()),
            ("detailed_source", pa.string()),
            ("share_acceptable", pa.float64()),
        ]
    )
    # The key ``datasets`` writes and reads: ``label`` loads as a ClassLabel even without
    # the card. Column order matters here, so the JSON keys are not sorted.
    meta = {"huggingface": json.dumps({"info": {"features": features().to_dict()}})}
    return fields.with_metadata(meta)


def check_validated(input_path: Path, report_path: Path) -> None:
    """Refuse unless the report says success for exactly the bytes of ``input_path``."""
    if not report_path.is_file():
        raise RucolaError(
            "no validation report; the release is built only from validated data",
            report_path,
            hint="run 'rucola validate' (or 'dvc repro') first",
        )
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RucolaError(f"the validation report is not valid JSON: {exc}", report_path) from None
    if not isinstance(report, dict) or report.get("success") is not True:
        raise RucolaError(
            "validation failed; the release is built only from validated data",
            report_path,
            hint="fix the data and run 'rucola validate' again",
        )
    expected = file_sha256(input_path)
    if report.get("data_sha256") != expected:
        raise RucolaError(
            f"the validation report is for other data than {input_path} "
            f"(report data_sha256 {report.get('data_sha256')!r}, file {expected})",
            report_path,
            hint="run 'rucola validate' again",
        )


def read_split(input_path: Path) -> pd.DataFrame:
    """The split stage's rows, checked for what the release relies on."""
    frame = read_frame(input_path, "split data")
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise RucolaError(f"missing column(s): {', '.join(missing)}", input_path)
    if frame.empty:
        raise RucolaError("no rows to release", input_path)
    unlabelled = frame["label"] == schema.UNLABELLED
    problems = {
        "split": set(frame["split"]) - set(schema.SPLITS),
        "domain": set(frame.loc[~unlabelled, "domain"]) - set(schema.DOMAINS),
        "label": set(frame["label"].tolist())
        - {schema.UNACCEPTABLE, schema.ACCEPTABLE, schema.UNLABELLED},
    }
    if (unlabelled & (frame["split"] != "test")).any():
        problems["label"] = {schema.UNLABELLED}  # only a published test row may lack its label
    for column, unknown in problems.items():
        if unknown:
            shown = ", ".join(sorted(map(repr, unknown))[:5])
            raise RucolaError(f"unexpected value(s) in '{column}': {shown}", input_path)
    duplicated = frame.assign(_scope=id_scopes(frame)).duplicated(["split", "_scope", "id"])
    if duplicated.any():
        first = frame.loc[duplicated, ["split", "id"]].iloc[0]
        raise RucolaError(f"id {first['id']} occurs twice in split '{first['split']}'", input_path)
    frame = frame.copy()
    frame["id"] = frame["id"].astype("int64")
    frame["label"] = frame["label"].astype("int64")
    frame["n_tokens"] = frame["n_tokens"].astype("int64")
    return frame


def gold_rows(frame: pd.DataFrame, config: str = DEFAULT) -> pa.Table:
    """The hidden test labels we hold of one test config (none for published test rows
    without the gold)."""
    mine = test_config(frame["domain"]) == config
    test = frame[(frame["split"] == "test") & (frame["label"] != schema.UNLABELLED) & mine]
    test = test.sort_values("id", kind="stable")
    test = test[GOLD_SCHEMA.names].astype({c: object for c in _STRING_COLUMNS})
    test = test.where(test.notna(), None)
    return pa.Table.from_pandas(
        test, schema=GOLD_SCHEMA, preserve_index=False
    ).replace_schema_metadata(None)


def _write_split(rows: pd.DataFrame, folder: Path, config: str, split: str) -> SplitFile:
    target = arrow_schema()
    table = pa.Table.from_pandas(rows, schema=target, preserve_index=False)
    table = table.replace_schema_metadata(target.metadata)  # drop the pandas metadata
    relative = f"{config}/{split}.parquet"
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression=COMPRESSION)
    return _split_file(folder, config, split, table.num_rows)


def _split_file(folder: Path, config: str, split: str, rows: int) -> SplitFile:
    """What the card records of a written file ``config/split.parquet``."""
    relative = f"{config}/{split}.parquet"
    path = folder / relative
    return SplitFile(
        config=config,
        split=split,
        path=relative,
        num_examples=rows,
        # what ``datasets`` counts: the Arrow size of the table read back from the file
        num_bytes=int(pq.read_table(path).nbytes),
        file_size=path.stat().st_size,
    )


def _write_votes(table: pa.Table, folder: Path, split: str) -> SplitFile:
    write_votes(table, folder / f"{VOTES_CONFIG}/{split}.parquet", COMPRESSION)
    return _split_file(folder, VOTES_CONFIG, split, table.num_rows)


def build_release(
    input_path: str | Path,
    validation_report: str | Path,
    params: Params,
    out_dir: str | Path,
    private_dir: str | Path,
) -> dict:
    """Build the public folder and the private gold; returns ``{config: {split: rows}}``.

    Raises ``RucolaError`` (naming the file) when the input is missing or was not validated
    as it is; nothing is written then. Both folders are swapped in only once both are built.
    """
    report = release(input_path, validation_report, params, out_dir, private_dir)
    return report["configs"]


def check_separate_folders(folders: dict[str, str | Path | None]) -> None:
    """``release.out``, ``release.private`` and ``release.compat`` are three folders, none
    inside another: the gold written into a public folder would be published, and a folder
    swapped in whole would replace the other one inside it."""
    given = {key: Path(p).resolve() for key, p in folders.items() if p is not None}
    keys = list(given)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            pa_, pb = given[a], given[b]
            if pa_ == pb or pa_ in pb.parents or pb in pa_.parents:
                relation = "is" if pa_ == pb else "is nested with"
                raise RucolaError(
                    f"params release.{a} ({folders[a]}) {relation} release.{b} "
                    f"({folders[b]}): the public, private and CSV folders must be separate",
                    hint="give each its own folder, none inside another",
                )


def run_release(params: Params, source: str | Path | None = None) -> dict[str, Any]:
    """``rucola release build``: the split stage's rows (``split.out``, or ``source``), the
    validate stage's private report (``validate.private_report``: it holds the SHA-256 of
    the data it validated), and the ``release`` folders and report."""
    section = params.release
    return release(
        source if source is not None else params.split.out,
        params.validate.private_report,
        params,
        section.out,
        section.private,
        compat_dir=section.compat,
        report=section.report,
    )


def release(
    input_path: str | Path,
    validation_report: str | Path,
    params: Params,
    out_dir: str | Path,
    private_dir: str | Path,
    *,
    compat_dir: str | Path | None = None,
    report: str | Path | None = None,
) -> dict[str, Any]:
    """Build and swap in the public folder, the private folder and (``compat_dir``) the
    CSV layout together; returns the report (written to ``report`` when given)."""
    check_separate_folders({"out": out_dir, "private": private_dir, "compat": compat_dir})
    input_path, report_path = Path(input_path), Path(validation_report)
    if not input_path.is_file():
        raise RucolaError("split data not found; run 'rucola split' first", input_path)
    check_validated(input_path, report_path)
    data_sha256 = file_sha256(input_path)
    frame = read_split(input_path)
    tasks = task_ids(frame, input_path)  # the candidate id of a crowd-labelled row
    frame[SHARE] = soft_labels(frame, tasks, input_path)
    public_rows = public_frame(frame)  # all that the public files are drawn from
    configs = public_configs(public_rows)
    ledger = corrections_ledger(frame, params).replace_schema_metadata(None)
    golds = {config: gold_rows(frame, config) for config in GOLD_FILES}
    # before anything is staged: votes to release without a key are an error
    votes = release_votes(
        frame,
        tasks,
        read_votes(params.annotate.votes_out),
        params.release.annotator_key,
        input_path,
    )
    votes = with_votes_on_rows(
        votes,
        frame,
        read_votes(params.annotate.human_eval.votes_out),
        params.release.annotator_key,
        input_path,
    )

    folders = [p for p in (out_dir, private_dir, compat_dir) if p is not None]
    private_report = params.release.private_report if report is not None else None
    run = StageRun(STAGE, report=report, private_report=private_report, outputs=folders)
    with run:
        public, private = run.folder(out_dir), run.folder(private_dir)
        compat = run.folder(compat_dir) if compat_dir is not None else None
        # only a corpus in RuCoLA's layout has files in it; another's CSV folder stays empty
        domains = domains_of(public_rows)
        csv_layout = has_csv_layout(params, domains)
        run.count_read(len(frame))
        files = [
            _write_split(rows, public, config, split)
            for config, splits in configs.items()
            for split, rows in splits.items()
        ]
        # every row is in exactly one of ``default`` and ``learner``
        run.count_kept(sum(f.num_examples for f in files if f.config in TEST_CONFIGS))
        files += [_write_votes(table, public, split) for split, table in votes.public.items()]
        token_length_plot(public_rows, public / PLOTS["token_lengths"], tokens_named(params))
        categories = card_categories(params, domains)
        plots: dict[str, str | None] = {**PLOTS, "error_types": None}
        if categories:  # a corpus without categories has no picture of them
            category_plot(
                public_rows[public_rows["split"] != "test"],
                public / PLOTS["error_types"],
                categories,
            )
            plots["error_types"] = PLOTS["error_types"]
        card = render_card(
            public_rows,
            files,
            params,
            _features(files),
            plots,
            votes=_card_votes(votes),
            folder=Path(out_dir).name,
            csv_folder=Path(compat_dir).name if compat is not None and csv_layout else None,
        )
        (public / "README.md").write_bytes(card.encode("utf-8"))
        written = {}
        for config, gold in golds.items():
            if config == DEFAULT or gold.num_rows:  # the default gold, even empty, always
                pq.write_table(gold, private / GOLD_FILES[config], compression=COMPRESSION)
                written[GOLD_FILES[config]] = gold.num_rows
        pq.write_table(ledger, private / LEDGER_FILE, compression=COMPRESSION)
        written[LEDGER_FILE] = ledger.num_rows
        # the split data's hash ties the release to what was validated; it is a hash of the
        # hidden labels too, so it is kept with them and not on the public card
        write_json({"data_sha256": data_sha256}, private / SOURCE_FILE)
        if votes.private.num_rows:  # test-row votes: private, like the gold they would reveal
            write_votes(votes.private, private / VOTES_FILE, COMPRESSION)
            written[VOTES_FILE] = votes.private.num_rows
        private.chmod(0o700)  # the gold stays private; the release is for reading
        csv_counts = (
            write_rucola_csv(public_rows, compat) if compat is not None and csv_layout else None
        )
        write_manifest(public, compat)  # last: every public file, and nothing else
        counts: dict[str, Any] = {}
        for file in files:
            counts.setdefault(file.config, {})[file.split] = file.num_examples
        # git tracks the report: the public files' rows only; the private files' rows, the
        # votes on hidden test rows and the data's hash go to the private report
        full_votes = votes.report()
        public_votes = {k: v for k, v in full_votes.items() if k not in PRIVATE_VOTE_COUNTS}
        hidden = {"data_sha256": data_sha256, "private": written, "votes": full_votes}
        report = run.finish(private=hidden, configs=counts, compat=csv_counts, votes=public_votes)
        return {**report, **hidden}  # the command's own view: the maintainer's


# What the release report says of the votes that only the private report may: how many were
# read, were on hidden test rows, or on rows not released.
PRIVATE_VOTE_COUNTS = ("read", "private", "not_released")


def _features(files: list[SplitFile]) -> dict[str, Any]:
    """Each config's ``datasets`` features: the rows', or the votes'."""
    rows, votes = features(), vote_features()
    return {f.config: votes if f.config == VOTES_CONFIG else rows for f in files}


def _card_votes(votes: ReleasedVotes) -> dict[str, Any] | None:
    """What the card says of the votes (only public ones: the card is published)."""
    if not votes.public:
        return None
    assert votes.key is not None  # votes are never released unhashed
    by_split = {split: table.num_rows for split, table in votes.public.items()}
    by_stage: dict[int, int] = {}
    for table in votes.public.values():
        for stage in table.column("stage").to_pylist():
            by_stage[stage] = by_stage.get(stage, 0) + 1
    return {
        "config": VOTES_CONFIG,
        "by_split": by_split,
        "by_stage": dict(sorted(by_stage.items())),
        "annotators": votes.annotators(),
        "on_rows": votes.on_rows,
        # votes that went into a label (crowd rounds on candidates), not on existing rows
        "crowd": sum(by_split.values()) - votes.on_rows,
        "sample_key": votes.key.is_sample,
        "fingerprint": votes.key.fingerprint,
    }
