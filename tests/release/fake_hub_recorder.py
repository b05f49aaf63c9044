"""A local HTTP stand-in for the Hugging Face Hub that records requests.

It is NOT the Hub: it answers only the endpoints a release uses (repository info,
repository creation, validate-yaml, preupload, commit, tag) closely enough for
``huggingface_hub`` to complete, and keeps every request, with the committed files
decoded and the repositories created, for the tests to inspect.

``repos`` maps the dataset repositories that exist to whether they are private (ids
compared case-insensitively, as on the Hub); by default ``org/rucola`` (public) and
``org/rucola-private`` (private). An unknown repository answers 404 with
``X-Error-Code: RepoNotFound`` (which ``huggingface_hub`` raises as
``RepositoryNotFoundError``), to info, preupload, commit and tag alike.
``POST /api/repos/create`` adds one, private when asked, unless ``creates_public`` (a Hub
whose organisation settings override the request); an existing one answers 409.

``fail_with`` makes it refuse with that HTTP status: every request, or with ``fail_on``
only the requests whose path contains that text (e.g. ``"/commit/"`` to accept the
preupload and refuse the commit, or ``"org/rucola/tag/"`` to refuse one repository's
tag after its commit went through), which is how a publish that fails mid-way looks.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class HubStandIn:
    def __init__(
        self,
        fail_with: int | None = None,
        fail_on: str | None = None,
        repos: dict[str, bool] | None = None,
        creates_public: bool = False,
    ) -> None:
        self.requests: list[dict[str, Any]] = []
        self.commits: list[dict[str, Any]] = []
        self.tags: list[dict[str, Any]] = []
        self.created: list[dict[str, Any]] = []
        if repos is None:
            repos = {"org/rucola": False, "org/rucola-private": True}
        self.repos = {repo.lower(): private for repo, private in repos.items()}
        self.creates_public = creates_public
        self.fail_with = fail_with or (500 if fail_on else None)
        self.fail_on = fail_on
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if self._refused("GET"):
                    return
                path = self.path.split("?")[0]
                if path.startswith("/api/datasets/") and path.count("/") == 4:
                    repo = path.removeprefix("/api/datasets/")
                    if self._unknown(repo):
                        return
                    private = stand_in.repos[repo.lower()]
                    return self._send(200, {"id": repo, "private": private, "sha": "0" * 40})
                return self._send(404, {"error": f"not served by the stand-in: {self.path}"})

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self._refused("POST"):
                    return
                if self.path == "/api/validate-yaml":
                    return self._send(200, {"errors": [], "warnings": []})
                if self.path == "/api/repos/create":
                    request = json.loads(body)
                    repo = f"{request['organization']}/{request['name']}"
                    if repo.lower() in stand_in.repos:
                        return self._send(409, {"error": "You already created this dataset repo"})
                    private = request.get("visibility") == "private"
                    private = private and not stand_in.creates_public
                    stand_in.repos[repo.lower()] = private
                    stand_in.created.append(
                        {
                            "repo": repo,
                            "type": request.get("type"),
                            "visibility": request.get("visibility"),
                        }
                    )
                    return self._send(200, {"url": f"{stand_in.url}/datasets/{repo}"})
                repo = self.path.split("/api/datasets/")[-1].split("/")[:2]
                if self.path.startswith("/api/datasets/") and self._unknown("/".join(repo)):
                    return
                if "/preupload/" in self.path:
                    files = json.loads(body)["files"]
                    return self._send(
                        200,
                        {
                            "files": [
                                {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                                for f in files
                            ]
                        },
                    )
                if "/commit/" in self.path:
                    lines = [json.loads(line) for line in body.splitlines() if line.strip()]
                    files = {
                        item["value"]["path"]: base64.b64decode(item["value"]["content"])
                        for item in lines
                        if item["key"] == "file"
                    }
                    oid = hashlib.sha1(body).hexdigest()
                    repo = self.path.split("/api/datasets/")[1].split("/commit/")[0]
                    stand_in.commits.append(
                        {"repo": repo, "files": files, "oid": oid, "header": lines[0]["value"]}
                    )
                    url = f"{stand_in.url}/datasets/{repo}/commit/{oid}"
                    return self._send(
                        200, {"commitUrl": url, "commitOid": oid, "pullRequestUrl": None}
                    )
                if "/tag/" in self.path:
                    repo, revision = self.path.split("/api/datasets/")[1].split("/tag/")
                    stand_in.tags.append({"repo": repo, "revision": revision, **json.loads(body)})
                    return self._send(200, {})
                return self._send(404, {"error": f"not served by the stand-in: {self.path}"})

            def _refused(self, method: str) -> bool:
                """Record the request; refuse it (and say so) when ``fail_with`` covers it."""
                stand_in.requests.append(
                    {
                        "method": method,
                        "path": self.path,
                        "authorization": self.headers.get("authorization"),
                    }
                )
                if not stand_in.fail_with or (stand_in.fail_on or "") not in self.path:
                    return False
                message = (
                    "refused by the stand-in"
                    if stand_in.fail_on
                    else "Invalid credentials in Authorization header"
                )
                stand_in.requests[-1]["refused"] = True
                self._send(stand_in.fail_with, {"error": message}, {"X-Error-Message": message})
                return True

            def _unknown(self, repo: str) -> bool:
                """Answer 404 RepoNotFound, as the Hub does, for a repository that does
                not exist."""
                if repo.lower() in stand_in.repos:
                    return False
                headers = {
                    "X-Error-Code": "RepoNotFound",
                    "X-Error-Message": "Repository not found",
                }
                self._send(404, {"error": "Repository not found"}, headers)
                return True

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> HubStandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
