"""Where a document says the money comes from: the source of wealth (how a person came by
what they own) and the source of funds (where the money for this relationship comes
from), each on a labelled line ("Source of wealth: salary and an inheritance"), wrapped
onto the next while its sentence runs on, or on the lines under its label. Enhanced due
diligence asks both of a politically exposed person. A placeholder ("N/A", "to follow",
"see attached") declares nothing."""

from __future__ import annotations

import re

SOURCE_OF_WEALTH = "source_of_wealth"
SOURCE_OF_FUNDS = "source_of_funds"
DECLARED_FIELDS = (SOURCE_OF_WEALTH, SOURCE_OF_FUNDS)

DECLARATION_LABEL = (
    r"sources?[ \t]+of[ \t]+(?:the[ \t]+)?(?:wealth|funds)"
    r"(?:[ \t]+(?:and|&)[ \t]+(?:of[ \t]+)?(?:the[ \t]+)?(?:wealth|funds))?"
)
_LABELLED = re.compile(
    rf"(?im)^[ \t]*(?P<label>{DECLARATION_LABEL})[ \t]*(?:\([^)\n]*\))?[ \t]*:[ \t]*(?P<value>.*)$"
)
# A line that opens with a label of its own ends a declaration written under its label.
_NEXT_LABEL = re.compile(r"^[ \t]*[A-Za-z][\w ()'/&.-]{0,40}:")
_PLACEHOLDER = re.compile(
    r"(?i)^(?:n/?a|none|nil|-+|—|tbc|tbd|to[ \t]+(?:follow|be[ \t]+confirmed)|unknown|pending"
    r"|not[ \t]+(?:provided|given|known|applicable|disclosed|declared)|see[ \t]+.*)[ \t.]*$"
)
MAX_LINES_UNDER = 5
MAX_CHARS = 300


def declarations(text: str) -> dict[str, str]:
    """Each source `text` declares, by field (SOURCE_OF_WEALTH, SOURCE_OF_FUNDS): the
    first declaration of it that says something, on one line, at most MAX_CHARS."""
    found: dict[str, str] = {}
    for match in _LABELLED.finditer(text):
        value = " ".join([match["value"], *_under(text[match.end() :], match["value"])]).strip()
        value = " ".join(value.split())
        if not value or _PLACEHOLDER.match(value):
            continue
        for field in _declared_by(match["label"]):
            found.setdefault(field, _clipped(value))
    return found


def _declared_by(label: str) -> list[str]:
    label = label.lower()
    return [
        field
        for field, word in ((SOURCE_OF_WEALTH, "wealth"), (SOURCE_OF_FUNDS, "funds"))
        if word in label
    ]


def _under(rest: str, on_the_label_line: str) -> list[str]:
    """The lines a declaration goes on to: under a label left empty on its own line, up to a
    blank line or the next label; after a value on the label's line, only while its
    sentence is unfinished (a line wrapped in a form or a PDF)."""
    lines: list[str] = []
    for line in rest.splitlines()[1 : MAX_LINES_UNDER + 1]:
        so_far = (lines[-1] if lines else on_the_label_line).rstrip()
        if on_the_label_line.strip() and so_far.endswith((".", "!", "?", ";")):
            break
        if not line.strip() or _NEXT_LABEL.match(line):
            break
        lines.append(line.strip())
    return lines


def _clipped(value: str) -> str:
    if len(value) <= MAX_CHARS:
        return value
    return value[:MAX_CHARS].rsplit(" ", 1)[0] + "…"
