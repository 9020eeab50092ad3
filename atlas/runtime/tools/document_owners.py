"""Beneficial owners a document names: on a labelled line ("Beneficial owners: ...",
"Ultimate beneficial owner (UBO): ...", "UBO 1 - ...") or one a line under such a label,
their shares ("60%") set aside. Names are read as a directors line reads them
(document_directors.directors_listed). A document that speaks of its owners but names none
this way is told apart (mentions_owners), for a person to read."""

from __future__ import annotations

import re

from atlas.runtime.tools.document_directors import BULLET, directors_listed

_LABEL = (
    r"(?:(?:ultimate[ \t]+)?beneficial[ \t]+owners?(?:[ \t]*\(s\))?(?:[ \t]*\(ubos?\))?|ubos?)"
    r"(?:[ \t]+\d{1,2})?"
)
_ON_ITS_LINE = re.compile(
    rf"(?im)^[ \t]*{_LABEL}[ \t]*(?::|[ \t][-–—])[ \t]*(?P<value>\S.*?)[ \t]*$"
)
_OVER_A_LIST = re.compile(rf"(?im)^[ \t]*{_LABEL}[ \t]*:[ \t]*\n")
_SHARE = re.compile(r"\(?\b\d{1,3}(?:[.,]\d+)?[ \t]*(?:%|per[ \t]?cent)\)?", re.IGNORECASE)
_MENTION = re.compile(r"(?i)\b(?:beneficial[ \t]+owner|ubos?\b)")
MAX_LIST_LINES = 20


def owners_named(text: str) -> list[str]:
    """The owners `text` names, each once, in order."""
    names = [name for match in _ON_ITS_LINE.finditer(text) for name in _listed(match["value"])]
    for label in _OVER_A_LIST.finditer(text):
        for line in text[label.end() :].splitlines()[:MAX_LIST_LINES]:
            line = BULLET.sub("", line).strip()
            found = _listed(line) if line and ":" not in line else []
            if not found:
                break
            names += found
    return list(dict.fromkeys(names))


def mentions_owners(text: str) -> bool:
    return bool(_MENTION.search(text))


def _listed(value: str) -> list[str]:
    return directors_listed(_SHARE.sub(" ", value))
