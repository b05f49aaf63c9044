"""The installed rucola a corpus repository was set up with (``.rucola/tool.json``), and
the check every command makes against it.

A corpus repository (``rucola init``) has no copy of the tool's code: its stages depend on
the code fingerprints ``rucola init`` and ``rucola upgrade`` wrote for the installed
package. Were another version installed afterwards, a stage would write outputs that no
fingerprint in the repository describes, and DVC would never rerun what the new code
changes. So every command run where ``.rucola/tool.json`` lies first compares the installed
package with it and refuses on a difference ("run `rucola upgrade`"). Elsewhere (this
repository, a test's folder) the check is one ``stat``. Kept apart from
``rucola.corpus_repo``: every command's code fingerprint covers this module, and a change to
``init`` or ``upgrade`` should rerun no stage.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rucola.errors import RucolaError
from rucola.package_version import version

TOOL = Path(".rucola") / "tool.json"
PACKAGE = Path(__file__).resolve().parent  # the running rucola package's folder


def code_record(code_root: Path) -> dict[str, Any]:
    """``.rucola/tool.json``: the installed version and one hash of its whole code (every
    module by name, and the package data the stages read), the same for a checkout and
    for an installed wheel of the same code."""
    from rucola.code_fingerprint import package_hash

    return {"rucola": version(), "code": package_hash(code_root)}


def render(record: dict[str, Any]) -> str:
    return json.dumps(record, indent=2, sort_keys=True) + "\n"


def check_tool(root: Path, code: Path) -> None:
    """Refuse to run where ``root/.rucola/tool.json`` records other code than ``code``'s."""
    path = root / TOOL
    if not path.is_file():
        return
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RucolaError(f"cannot be read as rucola's record: {error}", path) from None
    now = code_record(code)
    if not isinstance(recorded, dict) or recorded.get("code") != now["code"]:
        was = recorded.get("rucola", "?") if isinstance(recorded, dict) else "?"
        raise RucolaError(
            f"this corpus was set up with rucola {was}, whose code differs from the installed"
            f" rucola {now['rucola']}",
            path,
            hint="run `rucola upgrade` (it rewrites the generated files and says which stages"
            " will rerun), then `dvc repro`",
        )


def check_installed_code() -> None:
    """In a corpus repository (``.rucola/tool.json``), refuse to run other code than the
    code it was set up with (:func:`check_tool`); elsewhere, one ``stat``. Every command
    but ``init`` and ``upgrade`` runs it first (``rucola.cli.common.BoundaryGroup``, and
    the tracker's own start, ``rucola.track_input.main``)."""
    if not Path(".rucola/tool.json").is_file():
        return
    from rucola.import_graph import code_root

    check_tool(Path.cwd(), code_root())
