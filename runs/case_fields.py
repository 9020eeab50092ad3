"""What a case's subject name and jurisdiction must be, whether the case is opened from the
web form or by run_case, and what any text a person types for a run may hold."""

from __future__ import annotations

import re
import unicodedata

import pycountry
from django.core.exceptions import ValidationError

from atlas.runtime.countries import AMBIGUOUS_COUNTRY_NAMES, COUNTRY_NAMES, US_STATES
from atlas.runtime.decisions import UNSAFE_CHARACTERS
from atlas.runtime.state import NOTES_MAX_LENGTH
from atlas.runtime.tools.schemas import NAME_MAX_LENGTH

_COUNTRY_CODE = re.compile(r"[A-Z]{2}")

# Invisible marks the text reads the same without: direction embeddings and isolates with
# their ends (names copied from Arabic or Hebrew sources carry them), zero-width spaces,
# word joiners and a byte-order mark. Dropped, not refused. The direction overrides, which
# make text show in another order than it is written, and the control characters are not
# dropped: the text without them may not be what the person saw, so they are refused.
# Zero-width joiners and non-joiners stay: Persian and Indic spellings need them.
_INVISIBLE_MARKS = re.compile("[\u200b\u2060\ufeff\u202a-\u202c\u2066-\u2069]")
_OVERRIDES = {"\u202d": "left-to-right override", "\u202e": "right-to-left override"}


def clean_typed_text(value: str, what: str) -> str:
    """`value` without its invisible marks; a ValidationError if it still holds a
    character a run refuses (atlas.runtime.decisions.UNSAFE_CHARACTERS). `what` names the
    text in the message: "The answer"."""
    text = _INVISIBLE_MARKS.sub("", value)
    if found := UNSAFE_CHARACTERS.search(text):
        raise ValidationError(
            f"{what} contains {_unsafe_character(found.group())}. Type it in rather than "
            "pasting it.",
            code="unsafe_character",
        )
    return text


def _unsafe_character(char: str) -> str:
    code = f"U+{ord(char):04X}"
    if char in _OVERRIDES:
        return (
            f"a {_OVERRIDES[char]} ({code}), an invisible character that makes text show in "
            "another order than it is written"
        )
    if unicodedata.category(char) == "Cc":
        return f"the control character {code}, which cannot be shown"
    return f"the invisible character {code}"


def clean_subject_name(value: str) -> str:
    """The name without invisible marks, its runs of whitespace (a form feed among them)
    collapsed to single spaces."""
    name = clean_typed_text(" ".join(value.split()), "The subject's name")
    name = " ".join(name.split())  # a mark dropped between two spaces
    if not any(char.isalnum() for char in name):
        raise ValidationError("Enter the subject's name: it needs at least one letter or digit.")
    if len(name) < 2:
        raise ValidationError("Enter the subject's name (at least two characters).")
    if len(name) > NAME_MAX_LENGTH:
        raise ValidationError(
            f"Enter the subject's name in at most {NAME_MAX_LENGTH} characters "
            f"(this one has {len(name)})."
        )
    return name


def clean_notes(value: str) -> str:
    notes = clean_typed_text(value, "The notes").strip()
    if len(notes) > NOTES_MAX_LENGTH:
        raise ValidationError(
            f"Keep the notes to {NOTES_MAX_LENGTH} characters (these have {len(notes)}); "
            "attach longer material as a document."
        )
    return notes


def clean_jurisdiction(value: str, *, in_a_list: bool = False) -> str:
    """Blank, or an ISO country code after upper-casing: "gb" is GB; "ßx" (SSX), "ÄÖ" and
    "XQ" are not. `in_a_list`: one entry of a list of countries, which the error names, and
    which is not left blank but taken out."""
    code = " ".join(value.split())
    if code.casefold() in COUNTRY_NAMES:
        return COUNTRY_NAMES[code.casefold()]
    if len(code) > 2:
        return _code_of_country_named(code, in_a_list)
    # Checked before upper-casing: "ß".upper() is "SS", a code the user never typed.
    if code and (not code.isascii() or not _COUNTRY_CODE.fullmatch(code.upper())):
        raise ValidationError(_use_a_code(code if in_a_list else "", in_a_list))
    code = code.upper()
    if code and pycountry.countries.get(alpha_2=code) is None:
        raise ValidationError(f"{code} is not an ISO country code. Use one such as GB, US or SG.")
    return code


def _code_of_country_named(name: str, in_a_list: bool) -> str:
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
    raise ValidationError(_use_a_code(name, in_a_list))


def _use_a_code(entry: str, in_a_list: bool) -> str:
    named = f" (“{entry[:60]}” is not a country Atlas knows)" if entry else ""
    ending = "." if in_a_list else ", or leave it blank."
    return f"Use a two-letter country code such as GB, US or SG{named}{ending}"
