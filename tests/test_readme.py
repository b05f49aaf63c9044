"""The README is a contract, not a manual (issue 44): at most 200 lines, every relative link
in it and in docs/ reaches an existing file (and heading), every docs/ page is linked from
it, and each guarantee it lists names the tests/ file(s) that prove it. Fast: reads text only.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_LINES = 200

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")  # `x` or ``x`` (a span may hold a backtick)
LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(number, line) of every line outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every Markdown link outside code."""
    found = []
    for number, line in prose_lines(text):
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            found.append((number, match.group(1)))
    return found


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (letters, digits,
    ``_``, hyphens and spaces stay), each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file; a repeated one gets GitHub's -1, -2."""
    seen: dict[str, int] = {}
    result = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        slug = anchor(match.group(2))
        if slug in seen:
            seen[slug] += 1
            slug = f"{slug}-{seen[slug]}"
        else:
            seen[slug] = 0
        result.add(slug)
    return result


def broken_links(path: Path) -> list[str]:
    """Each relative link of ``path`` that reaches no file, or no heading of it."""
    problems = []
    for number, target in links(path.read_text(encoding="utf-8")):
        if SCHEME.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if not resolved.exists():
            problems.append(f"{where}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            problems.append(f"{where}: no heading #{fragment} in {resolved.name}")
    return problems


def section(text: str, title: str) -> list[str]:
    """The lines of the level-2 section ``## title`` (up to the next level-2 heading)."""
    lines = [line for _, line in prose_lines(text)]
    start = next(i for i, line in enumerate(lines) if line.strip() == f"## {title}")
    rest = lines[start + 1 :]
    end = next((i for i, line in enumerate(rest) if line.startswith("## ")), len(rest))
    return rest[:end]


def test_the_readme_is_at_most_200_lines():
    count = len(README.read_text(encoding="utf-8").splitlines())
    assert count <= MAX_LINES, f"README.md has {count} lines: move detail into docs/"


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path: Path):
    assert broken_links(path) == []


def test_every_docs_page_is_linked_from_the_readme():
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for _, target in links(README.read_text(encoding="utf-8"))
        if not SCHEME.match(target) and not target.startswith("#")
    }
    missing = [p.relative_to(ROOT).as_posix() for p in DOCS if p.resolve() not in linked]
    assert missing == [], f"docs pages the README does not link: {missing}"


def test_each_guarantee_links_its_docs_and_a_test_file():
    listed = section(README.read_text(encoding="utf-8"), "Guarantees")
    promises = [line for line in listed if line.startswith("- ")]
    assert len(promises) >= 10, "the README's Guarantees list one promise a line"
    for line in promises:
        targets = [target.partition("#")[0] for _, target in links(line)]
        tests = [t for t in targets if t.startswith("tests/") and (ROOT / t).is_file()]
        docs = [t for t in targets if t.startswith("docs/") and (ROOT / t).is_file()]
        assert tests, f"a guarantee that links no tests/ file: {line}"
        assert docs, f"a guarantee that links no docs/ page: {line}"


# The checks themselves: each can fail.


def test_a_broken_link_or_anchor_is_found(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/page.md").write_text("# Page\n\n## A section: `its key`, (too)\n")
    readme = tmp_path / "README.md"
    readme.write_text(
        "# T\n\n[ok](docs/page.md#a-section-its-key-too) [self](#t) [web](https://x.org/a)\n"
        "`[in code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n"
        "[gone](docs/gone.md) [bad anchor](docs/page.md#a-section) [bad self](#u)\n"
    )
    assert broken_links(readme) == [
        "README.md:8: docs/gone.md: no such file",
        "README.md:8: docs/page.md#a-section: no heading #a-section in page.md",
        "README.md:8: #u: no heading #u in README.md",
    ]


def test_repeated_headings_get_numbered_anchors(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text("# Notes\n\n## Notes\n\n```bash\n# not a heading\n```\n## Ids and pins\n")
    assert anchors(page) == {"notes", "notes-1", "ids-and-pins"}
