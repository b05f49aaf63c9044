"""Which pool an answered task belongs to: today's, an earlier one, or none.

Answers are paid for, and the pool they were given on need not be today's: a change of the
screening thresholds (``screen.*``) moves candidates into or out of today's pool. So:

- today's pool is ``screen.out``, what ``annotate export`` sends out now (the screened
  candidates);
- every exported pool was drawn from ``generate.merge.out``, the candidates before
  screening. A candidate id is a stable hash of its sentence,
  generator and source sentence, so one sentence keeps its id in every round, and an
  answer names the same candidate whatever the screening was when it was given.

In every answer format (Toloka TSVs, Label Studio JSON exports, long tables), a vote on a
task that is not a control is then

- in today's pool: used as usual;
- among every candidate but not in today's pool: fate ``not_in_pool`` (dropped, counted),
  and its task is set aside as ``set_aside:not_in_pool``; the answers stay on file and
  count again once the candidate is back in the pool;
- in neither: exit 1 naming the file (and line) and the task, ``task was never exported``
  (answers of another project, or an id edited by hand).

A control task (one with a golden answer) is never checked: it carries its own answer and
may have left the golden set since. Every candidate is read only when some task is outside
today's pool.

Outside the pipeline (a rehearsal on simulated answers, a published vote table merged on
its own) ``screen.out`` may not exist: then no answer is checked against a pool,
and the report says so (``pools.checked``: false). In the pipeline it always exists:
``annotate_merge`` depends on both files.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rucola.annotation import toloka as tl
from rucola.annotation.votes import has_suffix
from rucola.errors import RucolaError
from rucola.stage import read_frame

if TYPE_CHECKING:
    from rucola.settings import Params

NOT_IN_POOL = "not_in_pool"
NEVER_EXPORTED = "task was never exported"


def read_tasks(path: str | Path) -> pd.DataFrame:
    """Sentences to annotate: a parquet file or folder (candidates), or a CSV/TSV.

    The id is ``candidate_id`` when present, else ``id``.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and has_suffix(p, ".parquet"))
        if not files:
            raise RucolaError("no parquet files in the candidates folder", path)
        frame = pd.concat([read_frame(f, "candidates") for f in files], ignore_index=True)
    elif not path.exists():
        raise RucolaError("no such file or folder", path)
    elif has_suffix(path, ".parquet"):
        frame = read_frame(path, "candidates")
    else:
        frame = tl.read_table(path, "\t" if has_suffix(path, ".tsv") else ",")
    key = "candidate_id" if "candidate_id" in frame.columns else "id"
    if key not in frame.columns or "sentence" not in frame.columns:
        raise RucolaError(
            "expected columns candidate_id (or id) and sentence",
            path,
            1 if path.is_file() else None,
        )
    tasks = pd.DataFrame({"id": frame[key].astype(str), "sentence": frame["sentence"].astype(str)})
    duplicated = tasks["id"].duplicated()
    if duplicated.any():
        raise RucolaError(f"duplicated id {tasks['id'][duplicated].iloc[0]!r}", path)
    return tasks.sort_values("id", kind="stable").reset_index(drop=True)


class Pools:
    """Today's pool (``candidates``, ``screen.out``) and every pool (``all_candidates``,
    ``generate.merge.out``), each read once, when first needed."""

    def __init__(self, candidates: str | Path, all_candidates: str | Path) -> None:
        self.candidates = Path(candidates)
        self.all_candidates = Path(all_candidates)
        self._today: frozenset[str] | None = None
        self._every: frozenset[str] | None = None

    @property
    def checked(self) -> bool:
        """Whether answers are checked: today's pool exists (see the module docstring)."""
        return self.candidates.exists()

    def today(self) -> frozenset[str]:
        if self._today is None:
            self._today = frozenset(read_tasks(self.candidates)["id"])
        return self._today

    def every(self) -> frozenset[str]:
        if self._every is None:
            if not self.all_candidates.exists():
                raise RucolaError(
                    "no such file or folder (generate.merge.out)",
                    self.all_candidates,
                    hint="every candidate generated: an answered task outside today's pool "
                    "is looked up there",
                )
            self._every = frozenset(read_tasks(self.all_candidates)["id"]) | self.today()
        return self._every

    def outside(self, votes: pd.DataFrame) -> np.ndarray:
        """Per vote: whether its task is outside today's pool (fate ``not_in_pool``).

        Raises ``RucolaError`` naming the first vote's file, line and task when a task that
        is not a control is in no pool at all."""
        away = np.zeros(len(votes), dtype=bool)
        if votes.empty or not self.checked:
            return away
        tasks = votes["task"].astype(str)
        controls = set(tasks[votes["golden"].notna()])
        candidate = ~tasks.isin(controls)
        away = (candidate & ~tasks.isin(self.today())).to_numpy()
        if away.any():
            never = away & ~tasks.isin(self.every()).to_numpy()
            if never.any():
                row = votes[never].iloc[0]
                line = int(row["line"])
                raise RucolaError(
                    f"task {str(row['task'])!r}: {NEVER_EXPORTED}",
                    str(row["source"]),
                    line if line > 0 else None,
                    hint=f"in no pool: neither {self.candidates} (screen.out) nor "
                    f"{self.all_candidates} (generate.merge.out); another project's answers?",
                )
        return away

    def report(self) -> dict[str, Any]:
        """What ``reports/annotation.json`` says of the pools."""
        return {
            "checked": self.checked,
            "candidates": str(self.candidates),
            "all_candidates": str(self.all_candidates),
        }


def task_pools(params: Params, candidates: str | Path | None = None) -> Pools:
    """The pools the params name: today's is what ``screen`` writes (``candidates`` given
    replaces it), every pool what ``merge-candidates`` writes."""
    return Pools(candidates or params.screen.out, params.generate.merge.out)
