"""An HTML template for ``dvc plots show --html-template`` that draws the plots offline.

DVC's own page loads vega, vega-lite and vega-embed from a CDN (``dvc_render``'s
``VegaRenderer.SCRIPTS``, put where the template says ``{scripts}``), so offline the CSV plots
(``reports/plots/*.csv``) are blank. This template has no ``{scripts}``: it carries the three
libraries inline instead, from the pinned ``vl-convert-python`` wheel (extra ``plots``),
which ships them for its own offline rendering. Nothing is downloaded, at build or at view.

``make plots`` writes the template to ``.cache/`` and runs ``dvc plots show`` with it; by hand:
``python -m rucola.offline_plots PATH`` then ``dvc plots show --html-template PATH``.
"""

from __future__ import annotations

import sys
from pathlib import Path

VEGA_LITE_VERSION = "5.21"  # DVC's plot templates are vega-lite 5 specs

PAGE = """<!DOCTYPE html>
<html>
<head>
    <meta charset="utf-8">
    {refresh_tag}
    <title>DVC Plot</title>
    <!-- vega {vega}, vega-lite {vega_lite}, vega-embed {vega_embed}: inlined from
         vl-convert-python {vl_convert}, so the page needs no network -->
    <script>
__BUNDLE__
    </script>
    <style>
        table {
            border-spacing: 15px;
        }
    </style>
</head>
<body>
    {plot_divs}
</body>
</html>
"""


def template() -> str:
    """The page, ``{plot_divs}`` (and ``{refresh_tag}``) left for DVC to fill."""
    import vl_convert

    bundle = vl_convert.javascript_bundle(vl_version=VEGA_LITE_VERSION)
    if "</script" in bundle.lower() or "{plot_divs}" in bundle:
        # would end the inline script early, or be filled in by DVC
        raise RuntimeError("vl-convert's JavaScript bundle cannot be inlined as it is")
    versions = {
        "{vega}": vl_convert.get_vega_version(),
        "{vega_lite}": VEGA_LITE_VERSION,
        "{vega_embed}": vl_convert.get_vega_embed_version(),
        "{vl_convert}": vl_convert.__version__,
    }
    page = PAGE
    for placeholder, value in versions.items():
        page = page.replace(placeholder, value)
    return page.replace("__BUNDLE__", bundle)


def write_template(path: str | Path) -> Path:
    """Write the template (the same bytes for the same pinned wheel) and return its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(template(), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m rucola.offline_plots PATH", file=sys.stderr)
        return 2
    try:
        write_template(args[0])
    except ImportError:
        print(
            "error: vl-convert-python is not installed: pip install -e '.[plots]' (make plots)",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {args[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
