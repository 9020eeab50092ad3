"""Amounts of money as the cost columns store them and as people read them: rounded once,
half up, with thousands separators. A format spec ("{:.4f}") rounds a Decimal half to
even, and SQLite keeps what it is given unrounded, so neither is left to chance. Every page,
admin column and readable summary formats money here; machine-readable exports keep
str(Decimal)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

STORED_PLACES = Decimal("0.000001")  # the decimal places of every cost_usd column


def as_stored(amount: Decimal) -> Decimal:
    return amount.quantize(STORED_PLACES, ROUND_HALF_UP)


def dollars(amount: Decimal | str | int, places: int = 4) -> str:
    """An amount spent: "$12,345.6789"; "$0.0003" for 0.00025 at four places."""
    rounded = Decimal(str(amount)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    sign = "-" if rounded < 0 else ""
    return f"{sign}${abs(rounded):,f}"


def budget_dollars(amount: Decimal | str | int) -> str:
    """An amount as someone set it (a budget, a threshold, a price), to the cent or finer:
    "$100,000.00", "$0.015", "$0.00" (a column's trailing zeros, as in 0.0000, are dropped)."""
    amount = Decimal(str(amount))
    places_set = -amount.normalize().as_tuple().exponent
    return dollars(amount, places=max(2, places_set))
