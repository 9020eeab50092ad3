"""Where the people a document lists live, as it says beside their names: "Farhad Rahimi
(resident in Iran)", "Jane Roe, residing in the UK", "Omar Li (country of residence:
Singapore)", "Ana Ruiz (Chile resident)". A country is the one of the name it follows, given
by its ISO code; one that names no single country is not read. (What they are nationals of
is read by document_nationalities.)"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from atlas.runtime.countries import country_code
from atlas.runtime.tools.document_directors import place_named

T = TypeVar("T")

_COUNTRY = r"([A-Za-z][A-Za-z .'-]{1,50}?)"
_ENDS = r"(?=[ \t]*(?:[),;/]|\d|$|(?:and|since|from|until)\b))"
_LIVES_IN = re.compile(
    rf"(?i)\b(?:resident|residing|living|lives|based)[ \t]+(?:in|of)[ \t]+{_COUNTRY}{_ENDS}"
    rf"|\b(?:country[ \t]+of[ \t]+)?residence[ \t]*:[ \t]*{_COUNTRY}{_ENDS}"
    rf"|\([ \t]*{_COUNTRY}[ \t]+resident[ \t]*\)"
)


def said_beside_names(
    lines: Iterable[tuple[str, list[str]]], read: Callable[[str, list[str]], dict[str, T]]
) -> dict[str, T]:
    """What `read` (residences_listed, nationalities_listed) finds beside the names of each
    line, by name, the first line's word on a name kept."""
    found: dict[str, T] = {}
    for line, names in lines:
        for name, said in read(line, names).items():
            found.setdefault(name, said)
    return found


def residences_listed(line: str, names: list[str]) -> dict[str, str]:
    """The country code of each of `names`, the names `line` lists, that it says lives
    somewhere."""
    placed = sorted((place_named(line, name), name) for name in names)
    found: dict[str, str] = {}
    for phrase in _LIVES_IN.finditer(line):
        code = country_code(next(group for group in phrase.groups() if group))
        whose = next((name for at, name in reversed(placed) if at < phrase.start()), None)
        if code and whose:
            found.setdefault(whose, code)
    return found


def residence_entry(name: str, code: str) -> str:
    """A residence as the extraction tool lists it: "Farhad Rahimi: IR"."""
    return f"{name}: {code}"


def read_residence_entry(entry: str) -> tuple[str, str]:
    """(name, code) of a residence_entry."""
    name, _, code = entry.rpartition(": ")
    return name.strip(), code.strip()
