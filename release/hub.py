"""Sending a publish plan (``release.publish.Plan``) to the Hugging Face Hub.

The only module that talks to the Hub. A plan with a blocker is refused before any
request; the private repository must exist and be reported private before anything is
uploaded to either repository; each repository gets one commit, then the tag. Every
failure the Hub or the network can cause is one line (``RucolaError``).
"""

from __future__ import annotations

from typing import Any

from rucola.errors import RucolaError
from rucola.release.publish import Plan, PlannedFile


def _commit(api: Any, repo_id: str, files: list[PlannedFile], plan: Plan) -> str:
    from huggingface_hub import CommitOperationAdd

    operations = [
        CommitOperationAdd(path_in_repo=f.path_in_repo, path_or_fileobj=f.source) for f in files
    ]
    info = api.create_commit(
        repo_id=repo_id,
        repo_type="dataset",
        operations=operations,
        commit_message=f"Release {plan.tag}",
        revision=plan.revision,
    )
    api.create_tag(
        repo_id=repo_id,
        repo_type="dataset",
        tag=plan.tag,
        revision=info.oid,
        tag_message=f"Release {plan.tag}",
    )
    return info.oid


def _reported_private(api: Any, repo_id: str) -> bool | None:
    """Whether the Hub reports the dataset repository private; None when it does not exist
    (or the token cannot see it: the Hub answers both alike, and creating it then fails)."""
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        info = api.repo_info(repo_id, repo_type="dataset")
    except RepositoryNotFoundError:
        return None
    return info.private is True


def prepare_repos(api: Any, plan: Plan) -> list[str]:
    """Before any upload: the private repository exists and the Hub reports it private
    (created private when missing, then asked again, since an organisation's settings may
    override the request); otherwise nothing is sent to either repository. A missing public
    repository is created public, the first release of a new corpus; one the Hub reports
    private is only warned about (the release is invisible until it is made public, as when
    a launch is staged). Returns the warnings."""
    if plan.private_repo_id:
        private = _reported_private(api, plan.private_repo_id)
        if private is None:
            api.create_repo(plan.private_repo_id, repo_type="dataset", private=True)
            private = _reported_private(api, plan.private_repo_id)
        if not private:
            raise RucolaError(
                f"--private-repo-id: the Hub reports {plan.private_repo_id} as public;"
                " nothing was uploaded",
                hint="make it private on the Hub, or name a repository that does not exist yet",
            )
    public = _reported_private(api, plan.repo_id)
    if public is None:
        api.create_repo(plan.repo_id, repo_type="dataset", private=False)
    elif public:
        return [f"{plan.repo_id} is private on the Hub: the release is hidden until made public"]
    return []


def publish(plan: Plan, token: str | None = None, endpoint: str | None = None) -> dict[str, Any]:
    """Refused when the plan has a blocker, before any request; then the repositories
    checked (``prepare_repos``), the private gold first (so a failure there publishes
    nothing), then the public commit."""
    from huggingface_hub import HfApi, get_token
    from huggingface_hub.errors import HTTPError

    if plan.blockers:  # the CLI lists them all first; nothing is sent with any of them
        first = plan.blockers[0]
        more = f" (and {len(plan.blockers) - 1} more)" if len(plan.blockers) > 1 else ""
        raise RucolaError(f"{first.message}{more}", first.path, first.line, first.hint)
    token = token or get_token()
    if not token:
        raise RucolaError("no Hugging Face token", hint="set HF_TOKEN or run 'hf auth login'")
    api = HfApi(endpoint=endpoint, token=token)
    result: dict[str, Any] = {"tag": plan.tag}
    try:
        result["warnings"] = prepare_repos(api, plan)
        for repo_id, files in plan.uploads().items():
            key = "private_commit" if repo_id == plan.private_repo_id else "commit"
            result[key] = _commit(api, repo_id, files, plan)
    except HTTPError as exc:
        raise RucolaError(f"the Hub refused the release: {str(exc).splitlines()[0]}") from None
    except OSError as exc:  # connection refused, DNS, TLS
        raise RucolaError(f"cannot reach the Hub: {exc}") from None
    except Exception as exc:  # httpx transport errors do not derive from OSError
        if type(exc).__module__.startswith(("httpx", "httpcore")):
            raise RucolaError(f"cannot reach the Hub: {exc}") from None
        raise
    return result
