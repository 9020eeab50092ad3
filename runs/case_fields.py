"""What a case's subject name and jurisdiction must be, whether the case is opened from the
web form or by run_case."""

from __future__ import annotations

import re

import pycountry
from django.core.exceptions import ValidationError

from atlas.runtime.countries import AMBIGUOUS_COUNTRY_NAMES, COUNTRY_NAMES, US_STATES
from atlas.runtime.state import NOTES_MAX_LENGTH
from atlas.runtime.tools.schemas import NAME_MAX_LENGTH

_COUNTRY_CODE = re.compile(r"[A-Z]{2}")


def clean_subject_name(value: str) -> str:
    """The name with its runs of whitespace collapsed to single spaces."""
    name = " ".join(value.split())
    if len(name) < 2:
        raise ValidationError("Enter the subject's name (at least two characters).")
    if len(name) > NAME_MAX_LENGTH:
        raise ValidationError(
            f"Enter the subject's name in at most {NAME_MAX_LENGTH} characters "
            f"(this one has {len(name)})."
        )
    return name


def clean_notes(value: str) -> str:
    notes = value.strip()
    if len(notes) > NOTES_MAX_LENGTH:
        raise ValidationError(
            f"Keep the notes to {NOTES_MAX_LENGTH} characters (these have {len(notes)}); "
            "attach longer material as a document."
        )
    return notes


def clean_jurisdiction(value: str) -> str:
    """Blank, or an ISO country code after upper-casing: "gb" is GB; "ßx" (SSX), "ÄÖ" and
    "XQ" are not."""
    code = " ".join(value.split())
    if code.casefold() in COUNTRY_NAMES:
        return COUNTRY_NAMES[code.casefold()]
    if len(code) > 2:
        return _code_of_country_named(code)
    # Checked before upper-casing: "ß".upper() is "SS", a code the user never typed.
    if code and not code.isascii():
        raise ValidationError(
            "Use a two-letter country code such as GB, US or SG, or leave it blank."
        )
    code = code.upper()
    if code and not _COUNTRY_CODE.fullmatch(code):
        raise ValidationError(
            "Use a two-letter country code such as GB, US or SG, or leave it blank."
        )
    if code and pycountry.countries.get(alpha_2=code) is None:
        raise ValidationError(f"{code} is not an ISO country code. Use one such as GB, US or SG.")
    return code


def _code_of_country_named(name: str) -> str:
    """ "United Kingdom" is GB, "GBR" too (a three-letter code); a number (826), or a name
    nobody means one country by ("Korea"), is refused."""
    if codes := AMBIGUOUS_COUNTRY_NAMES.get(name.casefold()):
        raise ValidationError(
            f"“{name}” names more than one country: use its code ({' or '.join(codes)})."
        )
    try:
        if name.isdigit():
            raise LookupError(name)
        return pycountry.countries.lookup(name).alpha_2
    except LookupError:
        pass
    if name.casefold() in US_STATES:
        return "US"
    raise ValidationError(
        f"Use a two-letter country code such as GB, US or SG (“{name[:60]}” is not a "
        "country Atlas knows), or leave it blank."
    )
