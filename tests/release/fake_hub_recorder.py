"""A local HTTP stand-in for the Hugging Face Hub that records requests.

It is NOT the Hub: it answers only the four endpoints a release uses (validate-yaml,
preupload, commit, tag) closely enough for ``huggingface_hub`` to complete, and keeps
every request, with the committed files decoded, for the tests to inspect.

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
    def __init__(self, fail_with: int | None = None, fail_on: str | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.commits: list[dict[str, Any]] = []
        self.tags: list[dict[str, Any]] = []
        self.fail_with = fail_with or (500 if fail_on else None)
        self.fail_on = fail_on
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                stand_in.requests.append(
                    {
                        "method": "POST",
                        "path": self.path,
                        "authorization": self.headers.get("authorization"),
                    }
                )
                if stand_in.fail_with and (stand_in.fail_on or "") in self.path:
                    message = (
                        "refused by the stand-in" if stand_in.fail_on else "Invalid credentials"
                    )
                    stand_in.requests[-1]["refused"] = True
                    return self._send(stand_in.fail_with, {"error": message})
                if self.path == "/api/validate-yaml":
                    return self._send(200, {"errors": [], "warnings": []})
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

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
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
