"""Per-annotator votes in the release, with annotator ids that leak nothing.

The annotate stage keeps every used vote of a crowd round in a private table
(``annotate.votes_out``, :data:`rucola.corpus.schema.VOTES_SCHEMA`) with the raw worker id.
The release publishes those votes as the ``votes`` configuration, one row per vote, joined
to the released row by the candidate id (the row's ``origin`` ``annotations:<task>``), with
the worker id replaced by an annotator id: an HMAC-SHA256 of the worker id under a key.

- The same key gives the same annotator id in every version (ids stay comparable across
  versions); another key gives unrelated ids; without the key an id cannot be traced back
  to the worker (:func:`annotator_id`).
- The key (``release.annotator_key``): ``env`` reads it from ``$RUCOLA_ANNOTATOR_KEY``, a
  secret the maintainer keeps outside the repository; ``sample`` uses :data:`SAMPLE_KEY`,
  published here and therefore no secret: good for trying the pipeline, refused by
  ``rucola release publish``.
- A new key must be worth :data:`MIN_KEY_BITS` by a stated estimate
  (:mod:`rucola.release.key_strength`); a key a kept version (``data/releases/vX.Y.Z``) was
  built with is taken whatever it is worth, with a warning (:func:`check_key_strength`).
- The key's fingerprint (:func:`key_fingerprint`, an HMAC of a fixed message, which tells
  nothing about the key) travels with every votes file (:data:`KEY_METADATA` in the parquet
  schema metadata) and the card, so that ``publish`` can tell which key built a release
  without the key being stored anywhere.
- Votes on test rows would reveal the hidden labels: they go to the private folder only.
- A human evaluation's votes on existing rows of any domain
  (``annotate.human_eval.votes_out``, tasks ``row:<split>:<domain>:<id>``) join the same
  configuration (:func:`with_votes_on_rows`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rucola.corpus import schema
from rucola.errors import RucolaError
from rucola.release.kept import KEPT_ROOT
from rucola.release.key_strength import GOOD_KEY_COMMAND, MIN_KEY_BITS, key_bits
from rucola.settings import AnnotatorKey as KeyKind
from rucola.stage import read_table

ENV_VARIABLE = "RUCOLA_ANNOTATOR_KEY"
KEY_PARAM = "release.annotator_key"
# The sample's key: published with the code, so NOT a secret. Anyone can recompute the
# annotator id of a worker id they know; ``rucola release publish`` refuses such a release.
SAMPLE_KEY = "rucola-sample-annotator-key: published with the code, not a secret"
ID_LENGTH = 16  # hex digits of the HMAC kept: 64 bits, no collision among any crowd's workers
# The message whose HMAC is the key's fingerprint; the NUL byte keeps it apart from any
# worker id (so a fingerprint is never some worker's annotator id).
_FINGERPRINT_MESSAGE = b"\x00rucola annotator key fingerprint v1"
KEY_METADATA = b"rucola_annotator_key"  # parquet schema metadata of every votes file

VOTES_CONFIG = "votes"
PRIVATE_FILE = "votes_test.parquet"
TASK_PREFIX = "annotations:"  # a crowd-labelled row's origin: annotations:<candidate id>
SHARE = "share_acceptable"  # the soft label, in the row's provenance JSON
STAGE1_ANSWERS = {"acceptable", "unacceptable"}

# One released vote: the row it belongs to (release id, split and domain: ids are unique
# per split and domain, so validation row 0 of each domain is another row), then the vote.
# (The interim table it is made from is ``schema.VOTES_SCHEMA``, with the raw worker id.)
RELEASED_VOTE_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("split", pa.string()),
        ("domain", pa.string()),
        ("stage", pa.int64()),
        ("annotator", pa.string()),
        ("answer", pa.string()),
    ]
)
SORT = ["id", "domain", "stage", "annotator", "answer"]


# -- the keyed hash -----------------------------------------------------------------


def annotator_id(worker: str, key: str) -> str:
    """The released id of a worker: HMAC-SHA256 of the worker id under ``key``, in hex,
    shortened to :data:`ID_LENGTH` digits."""
    digest = hmac.new(key.encode("utf-8"), str(worker).encode("utf-8"), hashlib.sha256)
    return digest.hexdigest()[:ID_LENGTH]


def key_fingerprint(key: str) -> str:
    """Which key this is, without telling the key: HMAC of a fixed message, shortened."""
    digest = hmac.new(key.encode("utf-8"), _FINGERPRINT_MESSAGE, hashlib.sha256)
    return digest.hexdigest()[:ID_LENGTH]


SAMPLE_FINGERPRINT = key_fingerprint(SAMPLE_KEY)


@dataclass(frozen=True)
class AnnotatorKey:
    """The key a release hashes worker ids with; ``kind`` as ``release.annotator_key``."""

    kind: str
    key: str = field(repr=False)

    @property
    def fingerprint(self) -> str:
        return key_fingerprint(self.key)

    @property
    def is_sample(self) -> bool:
        return self.kind == "sample" or self.key == SAMPLE_KEY

    def metadata(self) -> dict[str, str]:
        """What a votes file and the report record of the key: its kind and fingerprint."""
        kind = "sample" if self.is_sample else self.kind
        return {"kind": kind, "fingerprint": self.fingerprint}


def _env_key(environ: Mapping[str, str] | None) -> str:
    return (os.environ if environ is None else environ).get(ENV_VARIABLE, "")


def resolve_key(kind: KeyKind, environ: Mapping[str, str] | None = None) -> AnnotatorKey | None:
    """The key of ``release.annotator_key``: the sample's, or the one in
    ``$RUCOLA_ANNOTATOR_KEY``; None with ``env`` when the variable is missing or empty (an
    error only where there are votes to release, see :func:`require_key`)."""
    if kind == "sample":
        return AnnotatorKey("sample", SAMPLE_KEY)
    value = _env_key(environ)
    return AnnotatorKey("env", value) if value else None


def require_key(kind: KeyKind, environ: Mapping[str, str] | None = None) -> AnnotatorKey:
    """:func:`resolve_key`, refusing a missing key: votes are never released unhashed."""
    key = resolve_key(kind, environ)
    if key is None:
        raise RucolaError(
            f"{KEY_PARAM} is 'env' but ${ENV_VARIABLE} is not set (or empty): the annotator "
            "ids of the votes cannot be hashed",
            hint=f"export {ENV_VARIABLE} with the maintainer's secret key, or set "
            f"{KEY_PARAM}: sample to build with the sample's published key (not publishable)",
        )
    if key.kind == "env":
        check_key_strength(key)
    return key


def kept_fingerprints(root: Path | None = None) -> dict[str, list[str]]:
    """The fingerprints of the keys kept versions were built with (``data/releases/vX.Y.Z``,
    ``rucola release keep``), each with the versions: read from their votes files' schema
    metadata, where every build records its key's kind and fingerprint (never the key)."""
    root = KEPT_ROOT if root is None else root
    found: dict[str, list[str]] = {}
    if not root.is_dir():
        return found
    for version in sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("v")):
        files = [*version.glob(f"*/{VOTES_CONFIG}/*.parquet"), *version.glob(f"*/{PRIVATE_FILE}")]
        for path in sorted(files):
            try:
                meta = recorded_key(path)
            except RucolaError:
                continue  # an unreadable file records nothing
            if meta and meta.get("kind") == "env" and isinstance(meta.get("fingerprint"), str):
                versions = found.setdefault(meta["fingerprint"], [])
                if version.name not in versions:
                    versions.append(version.name)
    return found


_WARNED: set[str] = set()


def check_key_strength(key: AnnotatorKey, kept_root: Path | None = None) -> None:
    """A new key worth less than :data:`MIN_KEY_BITS` by :func:`key_bits` is refused; a key
    a kept version was built with is taken whatever it is worth, with a warning on stderr:
    the same key must give the same annotator ids in every version."""
    bits = key_bits(key.key)
    if bits >= MIN_KEY_BITS:
        return
    versions = kept_fingerprints(kept_root).get(key.fingerprint)
    if versions:
        if key.fingerprint not in _WARNED:
            _WARNED.add(key.fingerprint)
            print(
                f"warning: ${ENV_VARIABLE} is worth about {bits:.0f} bits (a new key needs "
                f"{MIN_KEY_BITS}), taken because {', '.join(versions)} was built with it "
                "(its fingerprint): the same key keeps every annotator's id",
                file=sys.stderr,
            )
        return
    raise RucolaError(
        f"{KEY_PARAM} is 'env' but ${ENV_VARIABLE} is worth about {bits:.0f} bits by "
        f"rucola's estimate (repeats, runs, words; at least {MIN_KEY_BITS} needed): it could "
        "be guessed, and with it every annotator",
        hint=f"make one with {GOOD_KEY_COMMAND} and keep it secret",
    )


# -- the votes table ----------------------------------------------------------------


def read_votes(path: str | Path | None) -> pd.DataFrame:
    """The kept votes (``annotate.votes_out``), checked; empty when ``path`` is None or the
    file does not exist (no annotation round: nothing to release)."""
    columns = schema.VOTES_SCHEMA.names
    if not path or not Path(path).is_file():
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    hint = "rebuild it with 'rucola annotate merge' (annotate.votes_out)"
    table = read_table(path, "votes", columns, hint=hint)
    try:
        table = table.select(columns).cast(schema.VOTES_SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        reason = str(exc).splitlines()[0]
        message = f"votes do not have the votes schema ({reason})"
        raise RucolaError(message, path, hint=hint) from None
    frame = table.to_pandas()
    for column in ("task", "worker", "answer"):
        empty = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
        if empty.any():
            row = int(empty.to_numpy().nonzero()[0][0])
            raise RucolaError(f"vote {row} has no {column}", path, hint=hint)
    bad_stage = frame["stage"].isna() | ~frame["stage"].isin([1, 2])
    if bad_stage.any():
        row = int(bad_stage.to_numpy().nonzero()[0][0])
        raise RucolaError(f"vote {row}: stage {frame['stage'].iloc[row]!r} is not 1 or 2", path)
    bad_answer = (frame["stage"] == 1) & ~frame["answer"].isin(STAGE1_ANSWERS)
    if bad_answer.any():
        row = int(bad_answer.to_numpy().nonzero()[0][0])
        raise RucolaError(
            f"vote {row}: stage-1 answer {frame['answer'].iloc[row]!r} is not "
            f"{' or '.join(sorted(STAGE1_ANSWERS))}",
            path,
        )
    frame["stage"] = frame["stage"].astype("int64")
    return frame


def _provenance(value: Any, origin: Any, path: Path) -> dict[str, Any]:
    if not isinstance(value, str) or not value:
        return {}
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise RucolaError(f"row {origin}: provenance is not JSON ({exc})", path) from None
    return data if isinstance(data, dict) else {}


def task_ids(frame: pd.DataFrame, path: Path) -> pd.Series:
    """The candidate id of every crowd-labelled row (``origin`` ``annotations:<id>``, else
    an out-of-domain row's provenance ``candidate_id``); None for other rows."""
    provenance = frame["provenance"] if "provenance" in frame.columns else [None] * len(frame)
    tasks: list[str | None] = []
    rows = zip(frame["origin"], provenance, frame["domain"], strict=True)
    for origin, value, domain in rows:
        if isinstance(origin, str) and origin.startswith(TASK_PREFIX):
            tasks.append(origin[len(TASK_PREFIX) :])
            continue
        if domain in (schema.IN_DOMAIN, schema.LEARNER):  # no crowd candidate
            tasks.append(None)
            continue
        candidate = _provenance(value, origin, path).get("candidate_id")
        tasks.append(None if candidate is None else str(candidate))
    return pd.Series(tasks, index=frame.index, dtype=object)


def soft_labels(frame: pd.DataFrame, tasks: pd.Series, path: Path) -> pd.Series:
    """``share_acceptable`` of every crowd-labelled row, from its provenance JSON (written
    by ``annotation.corpus_merge``); NaN for other rows."""
    shares = pd.Series(math.nan, index=frame.index, dtype="float64")
    if "provenance" not in frame.columns:
        return shares
    for index in frame.index[tasks.notna()]:
        origin = frame.at[index, "origin"]
        value = _provenance(frame.at[index, "provenance"], origin, path).get(SHARE)
        if value is None:
            continue
        try:
            share = float(value)
        except (TypeError, ValueError):
            share = math.nan
            value = repr(value)
        if not 0.0 <= share <= 1.0:  # NaN fails too
            raise RucolaError(f"row {origin}: {SHARE} {value} is not a share in [0, 1]", path)
        shares.at[index] = share
    return shares


@dataclass
class ReleasedVotes:
    """The votes of one release: public tables per split, the private test votes, counts."""

    public: dict[str, pa.Table]
    private: pa.Table
    read: int
    not_released: int
    key: AnnotatorKey | None
    on_rows: int = 0  # public votes of a human evaluation on existing rows

    def annotators(self) -> int:
        """Distinct annotators among the public votes."""
        ids = set()
        for table in self.public.values():
            ids |= set(table.column("annotator").to_pylist())
        return len(ids)

    def report(self) -> dict[str, Any]:
        meta = self.key.metadata() if self.key is not None else {"kind": None, "fingerprint": None}
        return {
            "read": self.read,
            "public": sum(t.num_rows for t in self.public.values()),
            "public_by_split": {s: t.num_rows for s, t in self.public.items()},
            "private": self.private.num_rows,
            "not_released": self.not_released,
            "annotator_key": meta["kind"],
            "key_fingerprint": meta["fingerprint"],
        }


def row_tasks(frame: pd.DataFrame) -> pd.Series:
    """Every released row's task as a human evaluation's votes name it
    (``schema.row_task``: split, domain and id)."""
    return pd.Series(
        [
            schema.row_task(str(split), domain, int(i))
            for split, domain, i in zip(frame["split"], frame["domain"], frame["id"], strict=True)
        ],
        index=frame.index,
        dtype=object,
    )


def with_votes_on_rows(
    released: ReleasedVotes,
    frame: pd.DataFrame,
    votes: pd.DataFrame,
    key_kind: KeyKind,
    path: Path,
    environ: Mapping[str, str] | None = None,
) -> ReleasedVotes:
    """``released`` (the votes on candidates) plus a human evaluation's votes on existing
    rows of any domain (``annotate.human_eval.votes_out``), joined by
    ``row:<split>:<domain>:<id>``; test-row votes private as any. No such votes: ``released``
    as it is."""
    if votes.empty:
        return released
    on_rows = release_votes(
        frame, row_tasks(frame), votes, key_kind, path, environ, any_domain=True
    )
    public = {}
    for split in schema.SPLITS:
        parts = [released.public.get(split), on_rows.public.get(split)]
        if any(t is not None for t in parts):
            public[split] = _sorted([t for t in parts if t is not None], on_rows.key)
    return ReleasedVotes(
        public,
        _sorted([released.private, on_rows.private], on_rows.key),
        released.read + on_rows.read,
        released.not_released + on_rows.not_released,
        on_rows.key,
        on_rows=sum(t.num_rows for t in on_rows.public.values()),
    )


def _sorted(tables: list[pa.Table], key: AnnotatorKey | None) -> pa.Table:
    """Released vote tables as one, in the release's order, under ``key``'s metadata."""
    rows = pd.concat([t.to_pandas() for t in tables], ignore_index=True)
    return _table(rows.sort_values(SORT, kind="stable"), key)


def release_votes(
    frame: pd.DataFrame,
    tasks: pd.Series,
    votes: pd.DataFrame,
    key_kind: KeyKind,
    path: Path,
    environ: Mapping[str, str] | None = None,
    *,
    any_domain: bool = False,
) -> ReleasedVotes:
    """Join the kept votes to the released rows by candidate id and hash the workers.

    ``frame`` is the release's split rows (``split``, ``id``, ``domain``), ``tasks`` their
    candidate ids (:func:`task_ids`). Votes of tasks that are no released row are counted,
    not released; votes on test rows go to the private table. Raises ``RucolaError`` when
    there are votes to release and no key (nothing is written then: the caller has not
    started writing)."""
    key = resolve_key(key_kind, environ)
    voted = frame.loc[tasks.notna(), ["split", "id", "domain"]].assign(task=tasks[tasks.notna()])
    repeated = voted["task"].duplicated()
    if repeated.any():
        task = voted.loc[repeated, "task"].iloc[0]
        raise RucolaError(f"candidate {task!r} is the origin of two released rows", path)
    rows = votes.merge(voted, on="task", how="inner", validate="many_to_one")
    not_released = len(votes) - len(rows)
    wrong = rows[(rows["split"] != "test") & (rows["domain"] != schema.OUT_OF_DOMAIN)]
    if len(wrong) and not any_domain:  # a human evaluation's votes: rows of any domain
        raise RucolaError(
            f"candidate {wrong['task'].iloc[0]!r} has votes but its row is "
            f"{wrong['domain'].iloc[0]}: the votes configuration holds out-of-domain rows only",
            path,
        )
    if len(rows):
        key = require_key(key_kind, environ)
    hashed = {w: annotator_id(w, key.key) for w in rows["worker"].unique()} if len(rows) else {}
    if len(set(hashed.values())) != len(hashed):  # 64 bits: never, but never silently
        raise AssertionError("two workers got the same annotator id")
    rows = rows.assign(annotator=rows["worker"].map(hashed))
    rows = rows.sort_values(SORT, kind="stable")
    public = {}
    for split in schema.SPLITS:
        part = rows[rows["split"] == split]
        if split != "test" and len(part):
            public[split] = _table(part, key)
    private = _table(rows[rows["split"] == "test"], key)
    return ReleasedVotes(public, private, len(votes), not_released, key)


def _table(rows: pd.DataFrame, key: AnnotatorKey | None) -> pa.Table:
    part = rows.reindex(columns=RELEASED_VOTE_SCHEMA.names).reset_index(drop=True)
    table = pa.Table.from_pandas(part, schema=RELEASED_VOTE_SCHEMA, preserve_index=False)
    return table.replace_schema_metadata(arrow_metadata(key))


def vote_features():  # noqa: ANN201 - datasets.Features (imported lazily: datasets is slow)
    from datasets import Features

    return Features.from_arrow_schema(RELEASED_VOTE_SCHEMA)


def arrow_metadata(key: AnnotatorKey | None) -> dict[bytes, bytes]:
    """A votes file's schema metadata: the features ``datasets`` reads back, and the key's
    kind and fingerprint (never the key) for ``publish``."""
    meta = {b"huggingface": json.dumps({"info": {"features": vote_features().to_dict()}})}
    if key is not None:
        meta[KEY_METADATA] = json.dumps(key.metadata(), sort_keys=True)
    return {k: v.encode("utf-8") for k, v in meta.items()}


def write_votes(table: pa.Table, path: Path, compression: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression=compression)


def recorded_key(path: Path) -> dict[str, Any] | None:
    """The key kind and fingerprint a votes file was built with (None when it has none)."""
    from rucola.stage import reading

    with reading(path, "votes file"):
        metadata = pq.read_schema(path).metadata or {}
    raw = metadata.get(KEY_METADATA)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def vote_files(public_dir: Path, private_dir: Path | None) -> list[Path]:
    """The votes files of a built release: the public ``votes`` config and the private test
    votes."""
    files = sorted((public_dir / VOTES_CONFIG).glob("*.parquet"))
    if private_dir is not None and (private_dir / PRIVATE_FILE).is_file():
        files.append(private_dir / PRIVATE_FILE)
    return files


def check_publishable(
    public_dir: Path, private_dir: Path | None, environ: Mapping[str, str] | None = None
) -> None:
    """Refuse to publish votes whose annotator ids were hashed with the sample's published
    key, when ``$RUCOLA_ANNOTATOR_KEY`` is not set, or when it is not the key the release
    was built with (its fingerprint differs: the release must be rebuilt)."""
    files = vote_files(public_dir, private_dir)
    if not files:
        return
    rebuild = f"export {ENV_VARIABLE}, set {KEY_PARAM}: env and run 'rucola release build'"
    recorded = []
    for path in files:
        meta = recorded_key(path)
        if meta is None or not isinstance(meta.get("fingerprint"), str):
            raise RucolaError(
                "the votes file records no annotator key fingerprint", path, hint=rebuild
            )
        if meta.get("kind") == "sample" or meta["fingerprint"] == SAMPLE_FINGERPRINT:
            raise RucolaError(
                "the release's annotator ids were hashed with the sample's published key "
                f"({KEY_PARAM}: sample); they are not private",
                path,
                hint=rebuild,
            )
        recorded.append((path, meta["fingerprint"]))
    value = _env_key(environ)
    if not value:
        raise RucolaError(
            f"the release has annotator votes but ${ENV_VARIABLE} is not set: cannot check "
            "which key hashed the annotator ids",
            hint=f"export {ENV_VARIABLE} with the key the release was built with",
        )
    fingerprint = key_fingerprint(value)
    for path, built in recorded:
        if built != fingerprint:
            raise RucolaError(
                f"${ENV_VARIABLE} is not the key this release was built with (key fingerprint "
                f"{fingerprint}, release {built})",
                path,
                hint="rebuild the release with this key ('rucola release build'), or export "
                "the key it was built with",
            )
