"""Machine-readable zones of passports built for tests, check digits and all."""

from __future__ import annotations

from atlas.runtime.redaction_mrz import check_digit


def passport_zone(
    surname: str, given: str, country: str, number: str, born: str, sex: str = "M"
) -> str:
    """The two lines of 44 characters of a passport's zone (born as YYMMDD)."""
    names = f"{surname}<<{given.replace(' ', '<')}".upper()
    first = f"P<{country}{names}".ljust(44, "<")[:44]
    expiry = "300101"
    personal = "<" * 14
    second = (
        f"{number.ljust(9, '<')}{check_digit(number.ljust(9, '<'))}{country}{born}"
        f"{check_digit(born)}{sex}{expiry}{check_digit(expiry)}{personal}{check_digit(personal)}"
    )
    second += check_digit(second[0:10] + second[13:20] + second[21:43])
    return f"{first}\n{second}\n"
