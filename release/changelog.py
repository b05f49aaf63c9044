"""The release changelog (``release.changelog``): a section per version, newest first.

``release publish`` uploads the new text from memory and writes it locally only after the
Hub accepted the release, so a failed publish leaves the git tree as it was.
"""

from __future__ import annotations

from pathlib import Path


def changelog_section(
    version: str, new: str | Path, previous: str | Path | None = None, language: str = "ru"
) -> str:
    """The changelog section of ``version``: the diff against ``previous`` when there is
    one, rows matched in ``language`` (``corpus.language``)."""
    if not previous:
        return f"## v{version}\n\nFirst release.\n"
    from rucola.release.diff import release_diff, to_markdown

    return to_markdown(release_diff(previous, new, language=language), f"v{version}")


def render_changelog(path: Path, section: str) -> str:
    """The changelog with ``section`` prepended under the title, newest first (nothing is
    written: see ``write_changelog``)."""
    title = "# Changelog\n\n"
    old = path.read_text(encoding="utf-8") if path.is_file() else title
    body = old[len(title) :] if old.startswith(title) else old
    return title + section + "\n" + body


def write_changelog(path: Path, text: str) -> None:
    """Write the full text from ``render_changelog`` (after the Hub accepted the release).

    The changelog is the maintainers' file, committed to git, that each publish prepends a
    section to: rucola may replace it when the new text is the old one with a section added
    under the title (the ownership claim below), and refuses when it changed since."""
    from rucola.io import atomic_path

    def only_prepended(current: Path) -> bool:
        title = "# Changelog\n\n"
        if not current.is_file() or not text.startswith(title):
            return False
        body = current.read_text(encoding="utf-8").removeprefix(title)
        return text.endswith(body)

    with atomic_path(path, claim=only_prepended) as tmp:
        tmp.write_text(text, encoding="utf-8")
