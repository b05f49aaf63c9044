"""The expert review's round trip against a real Label Studio server, start to end.

What it does, printing each step: writes the review tasks with ``rucola audit export``
(from a queue you name, or a small demo queue), starts Label Studio on 127.0.0.1 with its
own data folder, creates a project with the review configuration through the HTTP API,
imports the tasks, creates three reviewer users, lets each of them post answers with their
own API token, exports the project as JSON through the API, runs ``rucola audit import``
and checks the errata file and the undecided list against what the reviewers answered:

- a relabel by a majority (two of three; to unacceptable with their category);
- a text fix (two of three wrote the same correction, spaced differently; one kept it);
- a removal (all three, one with a comment, which becomes the reason);
- a tie (keep against remove; the third reviewer skipped the task): undecided, no erratum.

Label Studio pins pyarrow below this project's, so it lives in a venv of its own (any
Python 3.10-3.12), installed from the package registry; nothing else is downloaded, and the
server is told not to look for updates or send analytics::

    python3.12 -m venv /tmp/ls-venv && /tmp/ls-venv/bin/pip install label-studio
    .venv/bin/python scripts/label_studio_review.py --label-studio /tmp/ls-venv/bin/label-studio

Options: ``--queue data/interim/audit.parquet`` reviews rows of a real queue (after
``dvc repro audit``; the four roles go to its first four labelled rows), ``--params FILE``
is passed to both rucola commands, ``--work DIR`` keeps everything (the tasks, Label
Studio's data, the export, the errata) in DIR instead of a temporary folder, ``--port``
picks the port (default: a free one). The executable may also be given as
``$RUCOLA_LABEL_STUDIO``; ``tests/curation/test_label_studio_server.py`` runs this script
when that variable is set. It exits 0 when every check passes, 1 otherwise.

How reviewers are made: ``POST /api/users/`` (as the admin the server is started with),
then each reviewer's API token from ``label-studio user --username EMAIL`` (a command of
Label Studio that reads its database), so every answer is posted by its reviewer; the
organisation is created with legacy tokens enabled (``--enable-legacy-api-token``), as
``Authorization: Token ...`` needs.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

ADMIN = "admin@rucola.local"
REVIEWERS = ["reviewer1@rucola.local", "reviewer2@rucola.local", "reviewer3@rucola.local"]
STARTUP_SECONDS = 300
ERRATA_COLUMNS = ["split", "domain", "id", "field", "new", "reason", "old"]


def say(text: str) -> None:
    print(text, flush=True)


# -- a demo queue (the schema ``rucola audit`` writes) ----------------------------------------
def write_demo_queue(path: Path) -> None:
    """Six rows of four kinds, one row in two kinds: what ``rucola audit`` writes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        ("cross_split_duplicate", "train", "in_domain", 3, "Мальчик спит.", 1, None, 1.0,
         "also in test: test/7", "dup-1"),
        ("cross_split_duplicate", "test", "in_domain", 7, "Мальчик спит.", 1, None, 1.0,
         "also in train: train/in_domain/3", "dup-1"),
        ("conflicting_duplicate", "train", "in_domain", 30, "Я  читал  книгу.", 0, "Semantics",
         1.0, "same sentence labelled 1 in validation/in_domain/4", "conflict-1"),
        ("likely_label_error", "train", "in_domain", 12, "Кошка спать на окне.", 1, None, 0.93,
         "P(label 1) = 0.07 out of fold", None),
        ("likely_label_error", "validation", "out_of_domain", 0, "Он пошёл в магазин.", 0,
         "Syntax", 0.88, "P(label 0) = 0.12 out of fold", None),
        ("likely_label_error", "train", "in_domain", 3, "Мальчик спит.", 1, None, 0.5,
         "P(label 1) = 0.5 out of fold", None),
        ("category_mismatch", "train", "in_domain", 20, "Ихний дом стоит у реки.", 0, "Syntax",
         0.7, "the classifier prefers Morphology", None),
    ]  # fmt: skip
    schema = pa.schema(
        [
            ("kind", pa.string()), ("split", pa.string()), ("domain", pa.string()),
            ("id", pa.int64()), ("sentence", pa.string()), ("label", pa.int64()),
            ("error_type", pa.string()), ("score", pa.float64()), ("evidence", pa.string()),
            ("cluster", pa.string()),
        ]
    )  # fmt: skip
    columns = list(zip(*rows, strict=True))
    table = pa.table([pa.array(c, f.type) for c, f in zip(columns, schema, strict=True)], schema)
    pq.write_table(table, path)


# -- the server -------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(token: str, password: str, data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        LABEL_STUDIO_BASE_DATA_DIR=str(data_dir),  # nothing under ~/.local/share
        LABEL_STUDIO_USERNAME=ADMIN,
        LABEL_STUDIO_PASSWORD=password,
        LABEL_STUDIO_USER_TOKEN=token,
        LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN="true",
        LATEST_VERSION_CHECK="false",  # no request to the package index at start
        COLLECT_ANALYTICS="false",
        SENTRY_DSN="",
        DJANGO_DB="sqlite",
    )
    return env


class Api:
    """The few HTTP calls the round trip needs, with a token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Token {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:500]
            raise SystemExit(f"FAILED: {method} {path}: HTTP {exc.code}: {detail}") from None
        return json.loads(text) if text else None


def wait_until_up(base: str, process: subprocess.Popen[bytes], log: Path) -> float:
    start = time.monotonic()
    while time.monotonic() - start < STARTUP_SECONDS:
        if process.poll() is not None:
            raise SystemExit(f"FAILED: Label Studio exited ({process.returncode}); see {log}")
        try:
            with urllib.request.urlopen(base + "/health", timeout=5) as response:
                if response.status == 200:
                    return time.monotonic() - start
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(1)
    raise SystemExit(f"FAILED: Label Studio did not answer in {STARTUP_SECONDS} s; see {log}")


def reviewer_token(executable: str, data_dir: Path, email: str, env: dict[str, str]) -> str:
    """The reviewer's API token, from Label Studio's own ``user`` command."""
    result = subprocess.run(
        [executable, "user", "--username", email, "--data-dir", str(data_dir)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    for line in result.stdout.splitlines():
        if line.startswith("{") and "'token'" in line:
            return str(ast.literal_eval(line)["token"])
    raise SystemExit(f"FAILED: no token for {email}: {result.stdout[-300:]}{result.stderr[-300:]}")


# -- the answers --------------------------------------------------------------------------------
def region(name: str, kind: str, value: Any) -> dict[str, Any]:
    key = "choices" if kind == "choices" else "text"
    return {"from_name": name, "to_name": "sentence", "type": kind, "value": {key: value}}


def answer(
    decision: str, category: str | None = None, text: str | None = None, comment: str | None = None
) -> dict[str, Any]:
    result = [region("decision", "choices", [decision])]
    if category is not None:
        result.append(region("category", "choices", [category]))
    if text is not None:
        result.append(region("text", "textarea", [text]))
    if comment is not None:
        result.append(region("comment", "textarea", [comment]))
    return {"result": result}


def plan(tasks: list[dict[str, Any]], category: str) -> tuple[dict[int, list], list, list]:
    """Which reviewer answers what on which task (by Label Studio task id), and the errata
    rows and undecided tasks that the answers must give."""
    labelled = [t for t in tasks if t["data"]["label"] in (0, 1)]
    if len(labelled) < 4:
        raise SystemExit("FAILED: the review needs at least four labelled tasks")
    relabel, fix, remove, tie = labelled[:4]
    answers: dict[int, list] = {}
    expected: list[list[str]] = []

    def row(task: dict[str, Any], field: str, new: str, reason: str, old: str) -> list[str]:
        d = task["data"]
        return [d["split"], d["domain"] or "", str(d["id"]), field, new, reason, old]

    d = relabel["data"]
    flipped = 1 - d["label"]
    cat = category if flipped == 0 else None
    answers[relabel["id"]] = [answer("relabel", cat), answer("relabel", cat), answer("keep")]
    expected.append(
        row(relabel, "label", str(flipped), "review: relabel by 2 of 3", str(d["label"]))
    )
    if flipped == 0:
        expected.append(
            row(relabel, "error_type", category, "review: relabel by 2 of 3", d["error_type"] or "")
        )
    corrected = "Исправленное  предложение ."
    answers[fix["id"]] = [
        answer("fix text", text=corrected, comment="a typo in the source"),
        answer("fix text", text=" Исправленное предложение .\n"),
        answer("keep"),
    ]
    expected.append(
        row(
            fix,
            "sentence",
            "Исправленное предложение .",
            "a typo in the source",
            fix["data"]["sentence"],
        )
    )
    answers[remove["id"]] = [
        answer("remove", comment="not a Russian sentence"),
        answer("remove"),
        answer("remove"),
    ]
    expected.append(row(remove, "remove", "", "not a Russian sentence", remove["data"]["sentence"]))
    answers[tie["id"]] = [answer("keep"), answer("remove"), None]  # None: skipped
    undecided = [[tie["data"]["split"], tie["data"]["domain"] or "", str(tie["data"]["id"])]]
    return answers, expected, undecided


def post_answers(base: str, tokens: list[str], answers: dict[int, list]) -> int:
    posted = 0
    for task_id, per_reviewer in answers.items():
        for token, body in zip(tokens, per_reviewer, strict=True):
            api = Api(base, token)
            if body is None:
                api.call(
                    "POST",
                    f"/api/tasks/{task_id}/annotations/?was_cancelled=1",
                    {"result": [], "was_cancelled": True},
                )
            else:
                api.call("POST", f"/api/tasks/{task_id}/annotations/", body)
            posted += 1
    return posted


# -- rucola ---------------------------------------------------------------------------------------
def rucola(work: Path, params: Path | None, *args: str) -> str:
    command = [sys.executable, "-m", "rucola", *args]
    if params is not None:
        command += ["--params", str(params)]
    result = subprocess.run(command, cwd=work, capture_output=True, text=True, check=False)
    shown = " ".join(["rucola", *args])
    if result.returncode != 0:
        raise SystemExit(f"FAILED: {shown}: exit {result.returncode}: {result.stderr.strip()}")
    say(f"$ {shown}")
    for line in result.stdout.splitlines():
        say(f"  {line}")
    return result.stdout


def read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def check(condition: bool, what: str, failures: list[str]) -> None:
    say(f"{'ok' if condition else 'FAILED'}: {what}")
    if not condition:
        failures.append(what)


# -- the round trip -------------------------------------------------------------------------------
def round_trip(args: argparse.Namespace, work: Path) -> list[str]:
    params = Path(args.params).resolve() if args.params else None
    queue = Path(args.queue).resolve() if args.queue else work / "audit.parquet"
    if not args.queue:
        write_demo_queue(queue)
        say(f"demo queue: {queue}")
    if args.tasks:
        review = Path(args.tasks).resolve()
        say(f"tasks from {review}")
    else:
        review = work / "review"
        rucola(work, params, "audit", "export", "--input", str(queue), "--out", "review")
    tasks_file, config_file = review / "tasks.json", review / "review_config.xml"
    tasks = json.loads(tasks_file.read_text(encoding="utf-8"))
    config = config_file.read_text(encoding="utf-8")
    choices = ElementTree.fromstring(config).find(".//Choices[@name='category']")
    category = choices[0].get("value") if choices is not None and len(choices) else "Syntax"

    data_dir = work / "label-studio"
    data_dir.mkdir(exist_ok=True)
    token, password = secrets.token_hex(20), secrets.token_urlsafe(16)
    env = server_env(token, password, data_dir)
    port = args.port or free_port()
    base = f"http://127.0.0.1:{port}"
    log = work / "label-studio.log"
    command = [
        args.label_studio,
        "start",
        "--no-browser",
        "--internal-host",
        "127.0.0.1",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--enable-legacy-api-token",
    ]
    say(f"starting Label Studio on {base} (data: {data_dir})")
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            command,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            cwd=work,
            start_new_session=True,
        )
    try:
        seconds = wait_until_up(base, process, log)
        admin = Api(base, token)
        version = admin.call("GET", "/api/version").get("release", "?")
        say(f"Label Studio {version} up after {seconds:.0f} s")
        project = admin.call(
            "POST", "/api/projects/", {"title": "rucola expert review", "label_config": config}
        )
        pid = project["id"]
        say(f"project {pid} created with review_config.xml")
        imported = admin.call("POST", f"/api/projects/{pid}/import", tasks)
        say(f"imported {imported['task_count']} tasks from {tasks_file.name}")
        listed = admin.call("GET", f"/api/tasks?project={pid}&page_size=100000&fields=all")
        ls_tasks = sorted(listed["tasks"], key=lambda t: t["id"])
        tokens = []
        for email in REVIEWERS:
            user = admin.call(
                "POST", "/api/users/", {"email": email, "username": email.split("@")[0]}
            )
            tokens.append(reviewer_token(args.label_studio, data_dir, email, env))
            say(f"reviewer {email} created (user {user['id']}), API token read")
        answers, expected, undecided = plan(ls_tasks, category)
        say(
            f"posted {post_answers(base, tokens, answers)} annotations by 3 reviewers "
            f"on {len(answers)} tasks (one skipped)"
        )
        export = admin.call(
            "GET", f"/api/projects/{pid}/export?exportType=JSON&download_all_tasks=true"
        )
        export_file = work / "export.json"
        export_file.write_text(json.dumps(export, ensure_ascii=False, indent=1), encoding="utf-8")
        say(f"exported {len(export)} tasks through the API -> {export_file}")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        say("Label Studio stopped")

    rucola(
        work,
        params,
        "audit",
        "import",
        str(export_file),
        "--queue",
        str(queue),
        "--out",
        "errata/review.csv",
        "--undecided",
        "undecided.csv",
    )
    failures: list[str] = []
    errata = read_csv(work / "errata/review.csv")
    check(errata[0] == ERRATA_COLUMNS, "errata.csv has the errata columns", failures)
    check(
        sorted(errata[1:]) == sorted(expected),
        f"errata.csv holds exactly the {len(expected)} expected rows",
        failures,
    )
    if sorted(errata[1:]) != sorted(expected):
        say(f"  expected {expected}\n  found    {errata[1:]}")
    left = [r[:3] for r in read_csv(work / "undecided.csv")[1:]]
    check(left == undecided, "the tie is listed as undecided, and nothing else", failures)
    for row in errata[1:]:
        say("  erratum: " + ",".join(row))
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--label-studio",
        default=os.environ.get("RUCOLA_LABEL_STUDIO"),
        help="the label-studio executable (default: $RUCOLA_LABEL_STUDIO)",
    )
    parser.add_argument("--queue", help="a review queue (audit.out); default: a demo queue")
    parser.add_argument(
        "--tasks", help="a folder `rucola audit export` wrote (from the --queue it names)"
    )
    parser.add_argument("--params", help="params file for the rucola commands")
    parser.add_argument("--work", help="keep everything in this folder (default: temporary)")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    args = parser.parse_args(argv)
    if args.tasks and not args.queue:
        parser.error("--tasks needs the --queue they were exported from (audit import reads it)")
    if not args.label_studio:
        parser.error("name the label-studio executable: --label-studio or $RUCOLA_LABEL_STUDIO")
    executable = shutil.which(args.label_studio)
    if executable is None:
        parser.error(f"not an executable: {args.label_studio}")
    args.label_studio = executable
    if args.work:
        work = Path(args.work).resolve()
        work.mkdir(parents=True, exist_ok=True)
        failures = round_trip(args, work)
    else:
        with tempfile.TemporaryDirectory(prefix="rucola-review-") as folder:
            failures = round_trip(args, Path(folder))
    say("round trip passed" if not failures else f"round trip FAILED: {'; '.join(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
