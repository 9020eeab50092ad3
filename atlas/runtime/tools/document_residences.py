"""Where the people a document lists live, as it says beside their names: "Farhad Rahimi
(resident in Iran)", "Jane Roe, residing in the UK", "Omar Li (country of residence:
Singapore)", "Ana Ruiz (Chile resident)"; and what they are nationals of: "Farhad Rahimi
(Iranian national)", "Jane Roe, a citizen of Iran", "Omar Li (nationality: Singaporean)". A
country is the one of the name it follows, given by its ISO code; one that names no single
country is not read."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from atlas.runtime.countries import country_code, nationality_codes
from atlas.runtime.tools.document_directors import place_named

T = TypeVar("T")

_COUNTRY = r"([A-Za-z][A-Za-z .'-]{1,50}?)"
_ENDS = r"(?=[ \t]*(?:[),;/]|\d|$|(?:and|since|from|until)\b))"
_LIVES_IN = re.compile(
    rf"(?i)\b(?:resident|residing|living|lives|based)[ \t]+(?:in|of)[ \t]+{_COUNTRY}{_ENDS}"
    rf"|\b(?:country[ \t]+of[ \t]+)?residence[ \t]*:[ \t]*{_COUNTRY}{_ENDS}"
    rf"|\([ \t]*{_COUNTRY}[ \t]+resident[ \t]*\)"
)


_NATIONAL_OF = re.compile(
    rf"(?i)\b(?:national|citizen)[ \t]+of[ \t]+{_COUNTRY}{_ENDS}"
    rf"|\b(?:nationality|citizenship)[ \t]*:[ \t]*{_COUNTRY}{_ENDS}"
    r"|\b([A-Za-z][A-Za-z -]{1,40}?)[ \t]+(?:national|citizen)\b(?![ \t]+of\b)"
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


def nationalities_listed(line: str, names: list[str]) -> dict[str, list[str]]:
    """The countries each of `names`, the names `line` lists, is said to be a national of."""
    placed = sorted((place_named(line, name), name) for name in names)
    found: dict[str, list[str]] = {}
    for phrase in _NATIONAL_OF.finditer(line):
        said = next(group for group in phrase.groups() if group)
        codes = nationality_codes(said.removeprefix("an ").removeprefix("a "))
        whose = next((name for at, name in reversed(placed) if at < phrase.start()), None)
        if codes and whose:
            found.setdefault(whose, codes)
    return found


def nationality_entry(name: str, codes: list[str]) -> str:
    """The countries a person is a national of, as the extraction tool lists them:
    "Farhad Rahimi: IR, GB"."""
    return f"{name}: {', '.join(codes)}"


def read_nationality_entry(entry: str) -> tuple[str, list[str]]:
    """(name, codes) of a nationality_entry."""
    name, _, codes = entry.rpartition(": ")
    return name.strip(), [code.strip() for code in codes.split(",") if code.strip()]
