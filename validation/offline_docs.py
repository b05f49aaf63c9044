"""Great Expectations Data Docs that read offline: no stylesheet, script or image from a CDN.

GX 1.24's page templates (``index_page.j2``, ``page.j2``, ``js_script_imports.j2``,
``top_navbar.j2``) load Bootstrap 4, jQuery, Popper, bootstrap-table and its filter-control
extension, bootstrap-datepicker, bootstrap-dark, Font Awesome and vega from CDNs, and the logo
and favicon from GX's S3 bucket. Offline, the index then has no table of runs (bootstrap-table
builds it in JavaScript) and the status icons are empty boxes (Font Awesome). So every such
tag is rewritten to a copy beside the pages, under ``static/vendor/``, taken from a pinned
package, never downloaded at run time:

* Bootstrap (its bundle, which includes Popper), jQuery and Font Awesome from the XStatic
  wheels pinned in ``pyproject.toml``;
* bootstrap-table 1.19.1 and its filter-control extension from ``validation/vendor/`` (no
  pip or Debian package ships it; the files are the npm package's, see the README there);
* vega, vega-lite and vega-embed, only for a page that draws a graph (``vegaEmbed(``; the
  suite's expectations draw none today), from ``vl-convert-python``'s bundle;
* the logo and favicon from GX's own ``static/images/`` (the site builder copies it).

bootstrap-datepicker (used by a date filter, which no GX table here has) and bootstrap-dark
(a dark theme) are dropped. Any other remote asset a later GX adds is an error naming the page
and the URL (``RemoteAsset``), so the pages never silently go back to needing the network.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rucola.errors import RucolaError

VENDOR = Path("static/vendor")  # inside the Data Docs site
GX_IMAGES = "https://great-expectations-web-assets.s3.us-east-2.amazonaws.com/"
OWN_VENDOR = Path(__file__).with_name("vendor")
VEGA_BUNDLE = "vega/vega-embed-bundle.js"
VEGA_LITE_VERSION = "5.21"  # GX's and DVC's specs are vega-lite 5

_TAG = re.compile(
    r"<script\b[^>]*\bsrc=\"(?P<script>https?://[^\"]+)\"[^>]*>\s*</script>"
    r"|<link\b[^>]*\bhref=\"(?P<link>https?://[^\"]+)\"[^>]*>"
)
_OWN_IMAGES = re.compile(r"\b(href|src)=\"(?:\./|(?:\.\./)+)static/images/")
# What must not be left: a script, stylesheet or image that would be fetched from the network.
_REMOTE = re.compile(r"<(?:script|link|img)\b[^>]*\b(?:src|href)=\"(https?://[^\"]+)\"")


@dataclass(frozen=True)
class Asset:
    """A local copy standing in for a CDN URL: ``link`` (the file the page links) and
    ``extra`` (what it needs beside it: the fonts a stylesheet names, a licence), relative to
    the package folder ``root()``, copied under ``static/vendor/<folder>/``."""

    root: Callable[[], Path]
    folder: str
    link: str
    extra: tuple[str, ...] = ()


def _xstatic(name: str) -> Callable[[], Path]:
    def where() -> Path:
        import importlib

        return Path(importlib.import_module(f"xstatic.pkg.{name}").BASE_DIR)

    return where


def _own() -> Path:
    return OWN_VENDOR / "bootstrap-table"


BOOTSTRAP_CSS = Asset(_xstatic("bootstrap"), "bootstrap", "css/bootstrap.min.css")
BOOTSTRAP_JS = Asset(_xstatic("bootstrap"), "bootstrap", "js/bootstrap.bundle.min.js")
JQUERY = Asset(_xstatic("jquery"), "jquery", "jquery.min.js")
FONT_AWESOME = Asset(
    _xstatic("font_awesome"), "font-awesome", "css/all.min.css", ("webfonts", "LICENSE.txt")
)
DATEPICKER_CSS = Asset(
    _xstatic("bootstrap_datepicker"), "bootstrap-datepicker", "bootstrap-datepicker3.standalone.css"
)
DATEPICKER_JS = Asset(
    _xstatic("bootstrap_datepicker"), "bootstrap-datepicker", "bootstrap-datepicker.js"
)
TABLE_CSS = Asset(_own, "bootstrap-table", "bootstrap-table.min.css", ("LICENSE",))
TABLE_JS = Asset(_own, "bootstrap-table", "bootstrap-table.min.js", ("LICENSE",))
FILTER = "extensions/filter-control/bootstrap-table-filter-control"
FILTER_CSS = Asset(_own, "bootstrap-table", f"{FILTER}.min.css", ("LICENSE",))
FILTER_JS = Asset(_own, "bootstrap-table", f"{FILTER}.min.js", ("LICENSE",))
VEGA = "vega"  # stands for the one bundle of vega, vega-lite and vega-embed
DROPPED = None

# Every remote asset GX 1.24 links, by URL; a URL not here fails the build (see above).
ASSETS: dict[str, Asset | str | None] = {
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": BOOTSTRAP_CSS,
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": BOOTSTRAP_JS,
    # Popper is in Bootstrap's bundle
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": DROPPED,
    "https://code.jquery.com/jquery-3.7.1.min.js": JQUERY,
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": FONT_AWESOME,
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": TABLE_CSS,
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": TABLE_JS,
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/"
    "bootstrap-table-filter-control.min.css": FILTER_CSS,
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/"
    "bootstrap-table-filter-control.css": FILTER_CSS,
    "https://unpkg.com/bootstrap-table@1.19.1/dist/extensions/filter-control/"
    "bootstrap-table-filter-control.min.js": FILTER_JS,
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/"
    "bootstrap-datepicker.min.css": DATEPICKER_CSS,
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/"
    "bootstrap-datepicker.min.js": DATEPICKER_JS,
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/"
    "bootstrap-prefers-dark.css": DROPPED,
    "https://cdn.jsdelivr.net/npm/vega@5": VEGA,
    "https://cdn.jsdelivr.net/npm/vega-lite@5": VEGA,
    "https://cdn.jsdelivr.net/npm/vega-embed@6": VEGA,
}


class RemoteAsset(RucolaError):
    """A Data Docs page links an asset this module has no local copy of: one line naming
    the page (relative to the site) and the URL, as every rucola error."""

    def __init__(self, page: Path, site: Path, url: str) -> None:
        super().__init__(
            f"links {url}, which has no local copy",
            page.relative_to(site).as_posix(),
            hint=f"a Great Expectations upgrade? add it to ASSETS in {__name__}",
        )


def vega_bundle() -> str:
    """vega, vega-lite and vega-embed in one classic script (it sets ``window.vegaEmbed``),
    from the pinned ``vl-convert-python`` wheel, which carries them offline."""
    try:
        import vl_convert
    except ImportError:
        raise RucolaError(
            "a Data Docs page draws a graph, and vega needs vl-convert-python",
            hint="pip install -e '.[plots]'",
        ) from None
    return vl_convert.javascript_bundle(vl_version=VEGA_LITE_VERSION)


def _tag(kind: str, href: str) -> str:
    if kind == "script":
        return f'<script src="{href}"></script>'
    return f'<link rel="stylesheet" href="{href}">'


def _rewrite(page: Path, site: Path, used: set[Asset | str]) -> str:
    """The page with each CDN tag replaced by a tag for its local copy (once per page: the
    three vega tags become one), ``used`` collecting the copies needed."""
    text = page.read_text(encoding="utf-8")
    up = Path(os.path.relpath(site, page.parent)).as_posix()
    draws = "vegaEmbed(" in text
    seen: set[str] = set()

    def local(match: re.Match[str]) -> str:
        kind = "script" if match.group("script") else "link"
        url = match.group(kind)
        if url not in ASSETS:
            raise RemoteAsset(page, site, url)
        asset = ASSETS[url]
        if asset is DROPPED or (asset == VEGA and not draws):
            return ""
        target = VEGA_BUNDLE if isinstance(asset, str) else f"{asset.folder}/{asset.link}"
        if target in seen:
            return ""
        seen.add(target)
        used.add(asset)
        return _tag(kind, f"{up}/{VENDOR.as_posix()}/{target}")

    text = _TAG.sub(local, text)
    # GX's own images: from its S3 bucket (the logo), or one folder too high (the favicon
    # of a validation page), both to the site's static/images/ at this page's depth
    text = text.replace(GX_IMAGES, f"{up}/static/images/")
    text = _OWN_IMAGES.sub(lambda m: f'{m.group(1)}="{up}/static/images/', text)
    left = _REMOTE.search(text)
    if left:
        raise RemoteAsset(page, site, left.group(1))
    return text


def _copy(asset: Asset, vendor: Path) -> None:
    root, folder = asset.root(), vendor / asset.folder
    for part in (asset.link, *asset.extra):
        source, target = root / part, folder / part
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)


def make_offline(site: Path) -> None:
    """Rewrite every page of the Data Docs ``site`` to local assets and copy those beside
    them, under ``static/vendor/``: the same pages and the same copies for the same GX build,
    so the site stays byte-identical run to run."""
    used: set[Asset | str] = set()
    rewritten = {page: _rewrite(page, site, used) for page in sorted(site.rglob("*.html"))}
    vendor = site / VENDOR
    for asset in used:
        if isinstance(asset, Asset):
            _copy(asset, vendor)
        else:
            (vendor / VEGA_BUNDLE).parent.mkdir(parents=True, exist_ok=True)
            (vendor / VEGA_BUNDLE).write_text(vega_bundle(), encoding="utf-8")
    for page, text in rewritten.items():
        page.write_text(text, encoding="utf-8")
