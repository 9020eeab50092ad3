"""What a case's subject name and jurisdiction must be, whether the case is opened from the
web form or by run_case."""

from __future__ import annotations

import re

import pycountry
from django.core.exceptions import ValidationError

from runs.models import Case

_COUNTRY_CODE = re.compile(r"[A-Z]{2}")


def clean_subject_name(value: str) -> str:
    """The name with its runs of whitespace collapsed to single spaces."""
    name = " ".join(value.split())
    if len(name) < 2:
        raise ValidationError("Enter the subject's name (at least two characters).")
    limit = Case._meta.get_field("subject_name").max_length
    if len(name) > limit:
        raise ValidationError(f"Enter the subject's name (at most {limit} characters).")
    return name


def clean_jurisdiction(value: str) -> str:
    """Blank, or an ISO country code after upper-casing: "gb" is GB; "ßx" (SSX), "ÄÖ" and
    "XQ" are not."""
    code = value.strip().upper()
    if code and not _COUNTRY_CODE.fullmatch(code):
        raise ValidationError(
            "Use a two-letter country code such as GB, US or SG, or leave it blank."
        )
    if code and pycountry.countries.get(alpha_2=code) is None:
        raise ValidationError(f"{code} is not an ISO country code. Use one such as GB, US or SG.")
    return code
