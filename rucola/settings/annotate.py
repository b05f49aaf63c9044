"""The sections of crowd annotation: ``annotate`` with ``corpus`` (joining labelled rows
to the corpus), ``simulate`` (a worker model for planning) and the votes' columns.
"""

from typing import Literal, get_args

from rucola.settings.types import (
    Accuracy,
    AggregationMethod,
    AnswerFormat,
    Input,
    Inputs,
    NonNegative,
    Output,
    RepeatedVotes,
    Section,
    Seed,
    Share,
    Text,
    _count,
    _key,
)

# --- annotate ------------------------------------------------------------------------


class AnnotateCorpus(Section):
    out: Output = _key(
        "data/interim/combined.parquet", "in-domain and labelled rows (measure reads them)"
    )
    rejected: Output = _key("data/interim/rejected/annotate.parquet", "rows set aside, why")
    report: Output = _key("reports/annotate_corpus.json", "counts")
    private_report: Output = _key(
        "reports/private/annotate_corpus.json",
        "labels and categories of the rows added (private: future test rows among them)",
    )


class Simulate(Section):
    truth: Input | None = _key(None, "sentences with known labels to simulate on")
    out_dir: Output | None = _key(None, "simulated answers; null: none written")
    report: Output = _key("reports/annotation_simulation.json", "scores per method")
    overlap: _count(100) = _key(3, "answers per task at first")
    max_overlap: _count(100) = _key(5, "answers per task at most")
    confidence: Share = _key(0.75, "agreement that stops asking")
    workers: _count(100_000) = _key(60, "stage 1 workers")
    accuracy: Accuracy = _key(lambda: [0.75, 0.95], "stage 1 honest workers' accuracy")
    spammer_share: Share = _key(0.2, "stage 1 share of random answers")
    not_sure_rate: Share = _key(0.02, "share of `not_sure` answers")
    expired_rate: Share = _key(0.02, "share of expired assignments")
    stage2_workers: _count(100_000) = _key(20, "stage 2 workers")
    stage2_accuracy: Accuracy = _key(lambda: [0.8, 0.95], "stage 2 accuracy")
    stage2_spammer_share: Share = _key(0.05, "stage 2 share of random answers")
    methods: list[AggregationMethod] = _key(
        lambda: list(get_args(AggregationMethod)),
        "methods compared",
        min_length=1,
    )
    format: AnswerFormat = _key("toloka", "answers written as Toloka TSVs or Label Studio JSON")


class VoteColumns(Section):
    task: Text = _key("task", "column of the task (item) id")
    worker: Text = _key("worker", "column of the worker id")
    label: Text = _key("label", "column of the answer (1/acceptable, 0/unacceptable)")
    golden: Text = _key("golden", "column of a control's golden answer (optional)")
    sentence: Text = _key("sentence", "column of the sentence (optional)")
    split: Text = _key(
        "split", "column of the row's published split, a human evaluation's (optional)"
    )
    domain: Text = _key("domain", "column of the row's domain, a human evaluation's (optional)")
    separator: Text | None = _key(
        ",", "a row whose worker and label cells list several votes (ItaCoLA); null: never"
    )


# What the tasks of a round name: generated candidates (rows to add) or existing rows.
VotesTarget = Literal["candidates", "corpus"]


class HumanEval(Section):
    method: AggregationMethod = _key("majority", "aggregation of each row's votes (crowd-kit)")
    min_votes: _count(1000) = _key(1, "fewer usable votes, or a tie: not scored")
    report: Output = _key(
        "reports/human_evaluation.json", "human scores on train and validation (public)"
    )
    private_report: Output = _key(
        "reports/private/human_evaluation.json",
        "human accuracy and MCC per split and domain, test included (private)",
    )
    votes_out: Output = _key(
        "data/interim/human_votes.parquet",
        "every kept vote on a row (private: raw worker ids; the release's votes config)",
    )
    test_public: bool = _key(
        False, "also publish the test scores (report and card): the documented exception"
    )


class Annotate(Section):
    controls: Inputs = _key(
        list,
        "at most one golden set; `[]`: pages without control tasks",
        max_length=1,
    )
    export_dir: Output = _key("data/interim/annotation_tasks", "task pools")
    page_size: _count(1000) = _key(5, "tasks per page")
    controls_per_page: _count(999, least=0) = _key(
        1, "control tasks per page (fewer than `page_size`)"
    )
    seed: Seed = _key(42, "page shuffling")
    stage1: Inputs = _key(list, "stage 1 answers (files or folders)")
    stage2: Inputs = _key(list, "stage 2 answers")
    votes: Inputs = _key(list, "long CSVs `task,worker,label`; all three empty: no round")
    vote_columns: VoteColumns = _key(VoteColumns, "column names of the `votes` tables")
    votes_target: VotesTarget = _key(
        "candidates",
        "what tasks name: candidates (rows to add) or corpus rows (a human evaluation)",
    )
    repeated_votes: RepeatedVotes = _key(
        "error", "a worker's conflicting answers to one task: error, first, last or drop"
    )
    output_field: Text = _key("violation", "the stage 1 answer column")
    method: AggregationMethod = _key("majority", "aggregation (crowd-kit)")
    min_votes: _count(1000) = _key(3, "fewer usable votes, or a tie: pending, never guessed")
    min_control_accuracy: Share = _key(0.5, "workers at or below are dropped")
    min_page_seconds: NonNegative | None = _key(30, "faster pages are dropped; null: off")
    out: Output = _key(
        "data/interim/annotated.parquet", "labels per task (annotate corpus reads them)"
    )
    report: Output = _key(
        "reports/annotation.json",
        "agreement and counts, none per label (also the card's agreement section)",
    )
    private_report: Output = _key(
        "reports/private/annotation.json",
        "counts and agreement per label and category (private: future test rows' labels)",
    )
    votes_out: Output = _key(
        "data/interim/votes.parquet", "every kept vote (private: raw worker ids)"
    )
    workers: Output = _key(
        "data/interim/annotation_workers.csv", "per worker (private: raw worker ids)"
    )
    plot: Output = _key("reports/plots/annotation_agreement.csv", "agreement plot data")
    plot_png: Output = _key("reports/plots/annotation_agreement.png", "agreement plot")
    corpus: AnnotateCorpus = _key(AnnotateCorpus, "`annotate corpus`")
    simulate: Simulate = _key(Simulate, "`annotate simulate`: a worker model for planning")
    human_eval: HumanEval = _key(HumanEval, "`annotate human-eval`: votes on corpus rows scored")
