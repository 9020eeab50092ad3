"""What people call countries besides their ISO codes and names: the case form's
jurisdiction and the playbook's reading of an analyst's answer both go by these, and a
form's nationality line by their demonyms too."""

from __future__ import annotations

import functools
import re

import pycountry
from countryinfo import all_countries

# Names ISO 3166 does not give, or gives only for a larger whole ("England").
COUNTRY_NAMES = {
    "uk": "GB",
    "britain": "GB",
    "great britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "usa": "US",
    "america": "US",
    "russia": "RU",
    "uae": "AE",
    "holland": "NL",
    "ivory coast": "CI",
    "czech republic": "CZ",
    "turkey": "TR",
    "macau": "MO",
    "bvi": "VG",
    "burma": "MM",
    "swaziland": "SZ",
    "drc": "CD",
    "dr congo": "CD",
}

# Names people use for more than one country, with those countries: asked, not guessed.
AMBIGUOUS_COUNTRY_NAMES = {"korea": ("KR", "KP"), "congo": ("CG", "CD")}

# The adjectives of the jurisdictions the registry covers ("the British one").
COUNTRY_ADJECTIVES = {
    "british": "GB",
    "english": "GB",
    "american": "US",
    "singaporean": "SG",
    "german": "DE",
    "irish": "IE",
    "canadian": "CA",
    "dutch": "NL",
    "indian": "IN",
    "lithuanian": "LT",
    "swiss": "CH",
    "emirati": "AE",
    "australian": "AU",
    "norwegian": "NO",
    "chilean": "CL",
    "japanese": "JP",
    "austrian": "AT",
    "panamanian": "PA",
    "russian": "RU",
    "nigerian": "NG",
}


def _is_a_country(name: str) -> bool:
    try:
        pycountry.countries.lookup(name)
    except LookupError:
        return False
    return True


# A US company's registry is its state's: "Delaware" names the US ("the Delaware one").
# A state named like a country ("Georgia") is the country.
US_STATES = frozenset(
    state.name.casefold()
    for state in pycountry.subdivisions.get(country_code="US") or []
    if not _is_a_country(state.name)
)


def country_code(name: str) -> str | None:
    """The ISO code of the one country `name` names ("Iran", "the UK", "IRN", "ir"); None
    for a name of several ("Korea"), a number, or no country."""
    key = " ".join(name.split()).casefold().removeprefix("the ")
    if key in COUNTRY_NAMES:
        return COUNTRY_NAMES[key]
    if not key or key in AMBIGUOUS_COUNTRY_NAMES or key.isdigit():
        return None
    try:
        return pycountry.countries.lookup(key).alpha_2
    except LookupError:
        return None


# Demonyms several territories share, with the country a nationality of that name is; the
# others ("Congolese", "Dominican", "Korean") are read as no country rather than guessed.
NATIONALITY_OF = {
    "american": "US",
    "chinese": "CN",
    "french": "FR",
    "indian": "IN",
    "norwegian": "NO",
}
# How far a nationality line is read: several countries fit in it.
NATIONALITY_CHARS = 200
# "British / Iranian", "Iranian and British", "dual: Iran, United Kingdom".
_NATIONALITIES_APART = re.compile(r"(?i)\s*(?:/|,|;|&|\band\b|\bdual\b:?)\s*")


# "British citizen", "Iranian national": the word for the holder says nothing more.
_HOLDER = re.compile(r"(?i)[ \t]+(?:citizen|national)s?[ \t]*$")


def nationality_codes(text: str) -> list[str]:
    """The countries a nationality line gives ("Iranian", "Iran", "British / Iranian"), by
    ISO code, each once; a part naming no one country is left out."""
    codes = [
        code
        for part in _NATIONALITIES_APART.split(text[:NATIONALITY_CHARS])
        if (code := nationality_code(_HOLDER.sub("", part)))
    ]
    return list(dict.fromkeys(codes))


@functools.lru_cache(maxsize=1024)
def nationality_code(name: str) -> str | None:
    """The ISO code of the one country `name` names as a nationality ("Iranian") or as a
    country ("Iran", "the UK"); None for anything else."""
    # "U.S." is the US; "Iran." at a sentence's end is Iran.
    name = name.replace(".", "") if _DOTTED.fullmatch(name.strip()) else name.rstrip(".")
    key = " ".join(name.split()).casefold()
    return NATIONALITY_OF.get(key) or _demonyms().get(key) or country_code(name)


_DOTTED = re.compile(r"(?:[A-Za-z]\.){2,3}")


@functools.cache
def _demonyms() -> dict[str, str]:
    """Every country's demonym ("iranian") -> its code, but for those several share."""
    codes: dict[str, set[str]] = {}
    for country in all_countries():
        if demonym := country.demonym():
            codes.setdefault(demonym.casefold(), set()).add(country.iso()["alpha2"])
    return {demonym: next(iter(held)) for demonym, held in codes.items() if len(held) == 1}


def country_words(code: str) -> str:
    """A country as pages and packets write it: "Iran, IR"."""
    country = pycountry.countries.get(alpha_2=code)
    name = getattr(country, "common_name", None) or getattr(country, "name", None)
    return f"{name}, {code}" if name else code
