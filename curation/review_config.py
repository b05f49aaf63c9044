"""The expert review's vocabulary and its Label Studio labelling configuration.

One place names every control of the review (the decision, the category, the corrected
text, the comment) and the values a reviewer can pick, because the export writes them into
the configuration and the import reads them back from Label Studio's JSON: a name spelt
twice would drift, and an answer under a name the import does not know would be lost.

The configuration shows the sentence, a header with what the row says now (label,
category, split, kinds of finding) and the audit's evidence, then one required
single choice (``decision``); the category choices appear only for a relabel or a change
of category, and the text area for the corrected sentence only for a text fix (Label
Studio's ``visibleWhen``), so a reviewer is not asked what the decision does not need.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

TEXT = "sentence"  # the <Text> every control points to (``toName``)
EVIDENCE = "evidence"  # a second <Text>: what the audit found
DECISION = "decision"
CATEGORY = "category"
FIX = "text"  # the corrected sentence (a <TextArea>)
COMMENT = "comment"
CONTROLS = (DECISION, CATEGORY, FIX, COMMENT)

KEEP = "keep"
RELABEL = "relabel"
RECATEGORISE = "change category"
FIX_TEXT = "fix text"
REMOVE = "remove"
DECISIONS = (KEEP, RELABEL, RECATEGORISE, FIX_TEXT, REMOVE)
NO_CATEGORY = "none"  # the row has no category (an acceptable row's)

HINTS = {
    KEEP: "the row is right as it is",
    RELABEL: "flip the label (to unacceptable: pick the category too)",
    RECATEGORISE: "keep the label, change the category (pick it below)",
    FIX_TEXT: "the sentence has a typo or artefact: write the corrected sentence below",
    REMOVE: "the row does not belong in the corpus",
}


def category_choices(error_types: Sequence[str]) -> list[str]:
    """The categories a reviewer can pick (``corpus.categories``, every domain's), then
    ``none``."""
    return [*error_types, NO_CATEGORY]


def _visible_when(parent: ET.Element, *decisions: str) -> ET.Element:
    """A <View> shown only while one of ``decisions`` is chosen."""
    return ET.SubElement(
        parent,
        "View",
        {
            "visibleWhen": "choice-selected",
            "whenTagName": DECISION,
            "whenChoiceValue": ",".join(decisions),
        },
    )


def review_config(error_types: Sequence[str]) -> str:
    """The labelling configuration of the review (XML, one trailing newline)."""
    view = ET.Element("View")
    ET.SubElement(view, "Header", {"value": "$header", "size": "5"})
    ET.SubElement(view, "Text", {"name": TEXT, "value": f"${TEXT}"})
    ET.SubElement(view, "Header", {"value": "What the audit found", "size": "6"})
    ET.SubElement(view, "Text", {"name": EVIDENCE, "value": f"${EVIDENCE}"})
    ET.SubElement(view, "Header", {"value": "Your decision", "size": "5"})
    decision = ET.SubElement(
        view,
        "Choices",
        {"name": DECISION, "toName": TEXT, "choice": "single", "required": "true"},
    )
    for value in DECISIONS:
        ET.SubElement(decision, "Choice", {"value": value, "hint": HINTS[value]})
    categories = _visible_when(view, RELABEL, RECATEGORISE)
    ET.SubElement(
        categories, "Header", {"value": "Category (for an unacceptable row)", "size": "6"}
    )
    category = ET.SubElement(
        categories, "Choices", {"name": CATEGORY, "toName": TEXT, "choice": "single"}
    )
    for value in category_choices(error_types):
        ET.SubElement(category, "Choice", {"value": value})
    fix = _visible_when(view, FIX_TEXT)
    ET.SubElement(
        fix,
        "TextArea",
        {
            "name": FIX,
            "toName": TEXT,
            "editable": "true",
            "maxSubmissions": "1",
            "rows": "2",
            "placeholder": "the corrected sentence",
        },
    )
    ET.SubElement(
        view,
        "TextArea",
        {
            "name": COMMENT,
            "toName": TEXT,
            "editable": "true",
            "maxSubmissions": "1",
            "rows": "2",
            "placeholder": "why (becomes the erratum's reason)",
        },
    )
    ET.indent(view)
    return ET.tostring(view, encoding="unicode") + "\n"
