"""Amounts of money as the cost columns store them and as pages show them: rounded once,
half up. A format spec ("{:.4f}") rounds a Decimal half to even, and SQLite keeps what it
is given unrounded, so neither is left to chance."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

STORED_PLACES = Decimal("0.000001")  # the decimal places of every cost_usd column


def as_stored(amount: Decimal) -> Decimal:
    return amount.quantize(STORED_PLACES, ROUND_HALF_UP)


def budget_dollars(amount: Decimal) -> str:
    """A budget as it was set, to the cent or finer: "$100,000.00", "$0.015"."""
    amount = Decimal(amount)
    if amount == amount.quantize(Decimal("0.01")):
        return f"${amount:,.2f}"
    return f"${amount.normalize():,f}"


def dollars(amount: Decimal, places: int = 4) -> str:
    """ "$0.0003" for 0.00025 at four places."""
    return f"${Decimal(amount).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP):f}"
